package store

import (
	"context"
	"fmt"
	"path/filepath"
	"time"
)

// Names are unique in a home, and the check that a name is free and the
// write that makes it known (a new session's first log line, a renamed
// record) are two steps of one process: without a lock two steps taking
// one name at once both passed. The home's names lock is held across
// both, a few milliseconds; a session's own lock is always taken first,
// so no two processes wait on each other.

// LockNames takes the home's names lock, waiting up to wait (--wait) for
// a step that holds it: its holders keep it for the time of a check and
// one write, so a wait means a step stopped at that moment (Ctrl-Z).
func (s *FS) LockNames(ctx context.Context, wait time.Duration) (*Lock, error) {
	if err := s.EnsureLayout(); err != nil {
		if err == s.NoHome {
			return nil, err // says all there is to say
		}
		return nil, fmt.Errorf("lock names: %w", err)
	}
	return s.lockAt(ctx, s.NamesLockPath(), namesLockID, wait)
}

// NamesLockPath is the home's names lock, beside its folders (a file in
// sessions/ named <id>.lock would be some session's lock).
func (s *FS) NamesLockPath() string { return filepath.Join(s.Home, "names.lock") }
