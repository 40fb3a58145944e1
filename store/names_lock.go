package store

import (
	"context"
	"errors"
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

// namesMinWait is the least the names lock is waited for, whatever
// --wait says: --wait 0 means "do not wait for a busy session", and steps
// naming different sessions side by side each hold this lock only for
// the time of a check, which reads every session's head (about 50 ms in
// a home of 2,000 sessions): 64 named starts at once on two busy cores
// queued past 10 s. namesQuiet is how long the wait may take before it
// is said.
const (
	namesMinWait = 30 * time.Second
	namesQuiet   = time.Second
)

// LockNames takes the home's names lock, waiting up to wait (--wait, at
// least namesMinWait) for a step that holds it.
func (s *FS) LockNames(ctx context.Context, wait time.Duration) (*Lock, error) {
	if err := s.EnsureLayout(); err != nil {
		var le *LayoutError
		if err == s.NoHome || errors.As(err, &le) {
			return nil, err // says all there is to say
		}
		return nil, fmt.Errorf("lock names: %w", err)
	}
	return s.lockQuietly(ctx, s.NamesLockPath(), namesLockID, namesQuiet, max(wait, namesMinWait))
}

// NamesLockPath is the home's names lock, beside its folders (a file in
// sessions/ named <id>.lock would be some session's lock).
func (s *FS) NamesLockPath() string { return filepath.Join(s.Home, "names.lock") }
