package store

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// Lock is an exclusive lock on sessions/<id>.lock: flock on unix, LockFileEx
// on Windows (open_*.go). The kernel drops it when the process dies, so a killed step never leaves a stale lock.
//
// The lock file also holds the name of the record temp file its owner is
// writing, if any (one line; empty when none). A step killed between
// creating that file and renaming it leaves the name behind, and the next
// process that takes the lock removes the file before it does anything
// else: no folder listing, so the cost does not grow with the sessions.
type Lock struct {
	f   *os.File
	id  string
	dir string // the folder of the lock file and of the records it guards
	fs  *FS    // the store the lock is registered with, if any
}

// Retry backoff while another process holds the lock: short at first, so a
// quick save by the other side costs us little, capped so we still notice
// release promptly.
const (
	lockFirstSleep = 2 * time.Millisecond
	lockMaxSleep   = 25 * time.Millisecond
)

// maxLockNote bounds what is read of a lock file: one temp file name.
const maxLockNote = 512

// Lock takes the session lock for id, retrying until wait has passed (wait
// <= 0 tries once). It returns a *BusyError when the lock stays held, and
// ctx.Err() when ctx ends first. A record temp file a killed step left
// behind is removed once the lock is held; Save under this lock notes its
// own temp file in the lock file.
func (s *FS) Lock(ctx context.Context, id string, wait time.Duration) (*Lock, error) {
	if err := ValidateID(id); err != nil {
		return nil, fmt.Errorf("lock session: %w", err)
	}
	if err := s.EnsureLayout(); err != nil {
		var le *LayoutError
		if err == s.NoHome || errors.As(err, &le) {
			return nil, err // says all there is to say
		}
		return nil, fmt.Errorf("lock session %s: %w", id, err)
	}
	l, err := s.lockAt(ctx, s.LockPath(id), id, wait)
	if err != nil {
		return nil, err
	}
	s.register(l)
	return l, nil
}

// register makes l the lock Save uses for its session.
func (s *FS) register(l *Lock) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.held == nil {
		s.held = map[string]*Lock{}
	}
	s.held[l.id] = l
	l.fs = s
}

// heldLock is the lock this process holds on id through s, or nil.
func (s *FS) heldLock(id string) *Lock {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.held[id]
}

// lockAt takes the lock at path, first without waiting, then, when it is
// held, telling OnWait and waiting up to wait.
func (s *FS) lockAt(ctx context.Context, path, id string, wait time.Duration) (*Lock, error) {
	return s.lockQuietly(ctx, path, id, 0, wait)
}

// lockQuietly is lockAt that first waits up to quiet without a word: the
// names lock, held for milliseconds, is not worth a line until then.
func (s *FS) lockQuietly(ctx context.Context, path, id string, quiet, wait time.Duration) (*Lock, error) {
	quiet = min(quiet, wait)
	l, err := lockFile(ctx, path, id, quiet)
	var busy *BusyError
	if errors.As(err, &busy) && wait > quiet {
		if s.OnWait != nil {
			s.OnWait(busyWhat(id), wait)
		}
		l, err = lockFile(ctx, path, id, wait-quiet)
	}
	return l, err
}

func lockFile(ctx context.Context, path, id string, wait time.Duration) (*Lock, error) {
	deadline := time.Now().Add(wait)
	sleep := lockFirstSleep
	for {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		f, err := tryLock(path)
		if err != nil {
			return nil, fmt.Errorf("lock %s: %w", busyWhat(id), err)
		}
		if f != nil {
			l := &Lock{f: f, id: id, dir: filepath.Dir(path)}
			l.removeStaleTemp()
			return l, nil
		}
		left := time.Until(deadline)
		if left <= 0 {
			return nil, &BusyError{ID: id}
		}
		t := time.NewTimer(min(sleep, left))
		select {
		case <-ctx.Done():
			t.Stop()
			return nil, ctx.Err()
		case <-t.C:
		}
		sleep = min(sleep*2, lockMaxSleep)
	}
}

// tryLock returns the locked file, or nil when someone else holds it. The
// lock file is opened without following a symbolic link (a link would
// create or lock a file outside the home) and must be a regular file.
func tryLock(path string) (*os.File, error) {
	// Delete removes the lock file while its owner holds it. Whoever opened
	// the old file before that would then hold a lock nobody else can see,
	// so a lock counts only if path still names the file we locked; if not,
	// open the new one. The bound only guards against a pathological race.
	for range 16 {
		f, err := openFile(path, os.O_RDWR|os.O_CREATE, 0o600)
		if err != nil {
			return nil, noFollow(path, err)
		}
		st, err := f.Stat()
		if err != nil || !st.Mode().IsRegular() {
			_ = f.Close()
			if err != nil {
				return nil, err
			}
			return nil, &NotRegularError{Path: path, Kind: FileKind(st.Mode())}
		}
		if st.Mode().Perm()&0o600 != 0o600 {
			ownerReadWrite(f) // made under a umask that strips the owner's bits
		}
		held, err := flockNB(f)
		if err != nil || held {
			_ = f.Close()
			return nil, err
		}
		if stillAt(f, path) {
			return f, nil
		}
		_ = f.Close()
	}
	return nil, nil
}

// stillAt reports whether path still names the open file f (itself, not
// through a link).
func stillAt(f *os.File, path string) bool {
	fst, ferr := f.Stat()
	pst, perr := os.Lstat(path)
	return ferr == nil && perr == nil && os.SameFile(fst, pst)
}

// noteTemp records name (a file in the lock's folder) as the temp file
// being written, or clears the note when name is "". A nil lock notes
// nothing: the caller writes without one (tests, a store without locks).
func (l *Lock) noteTemp(name string) error {
	if l == nil || l.f == nil {
		return nil
	}
	if name != "" {
		if _, err := l.f.WriteAt([]byte(name+"\n"), 0); err != nil {
			return fmt.Errorf("note temp file in %s: %w", l.f.Name(), err)
		}
	}
	size := 0
	if name != "" {
		size = len(name) + 1
	}
	if err := l.f.Truncate(int64(size)); err != nil {
		return fmt.Errorf("note temp file in %s: %w", l.f.Name(), err)
	}
	return nil
}

// removeStaleTemp removes the temp file a killed owner of the lock noted,
// then clears the note. Only a name of this session's record temp files
// (<id>.json.tmp-<digits>, <id>.json.bak.tmp-<digits>) is acted on, so a
// lock file with anything else in it never costs another file. Best
// effort: a temp file left behind wastes space, never data.
func (l *Lock) removeStaleTemp() {
	buf := make([]byte, maxLockNote)
	n, _ := l.f.ReadAt(buf, 0)
	if n == 0 {
		return
	}
	name := strings.TrimSuffix(string(buf[:n]), "\n")
	if isTempOf(name, l.id) {
		if err := os.Remove(filepath.Join(l.dir, name)); err != nil && !errors.Is(err, os.ErrNotExist) {
			return // keep the note: the next step tries again
		}
	}
	_ = l.f.Truncate(0)
}

// isTempOf reports whether name is one of the temp files writeFileAtomic
// makes for the record (or its backup) of session id.
func isTempOf(name, id string) bool {
	for _, file := range []string{id + ".json", id + ".json.bak"} {
		digits, ok := strings.CutPrefix(name, file+tempInfix)
		if ok && isDigits(digits) {
			return true
		}
	}
	return false
}

// DropUnused removes the lock file of a session that has neither record
// nor log (a new session refused before its first write: a taken name),
// so refused steps leave nothing in sessions/. It runs while the lock is
// held, as delete removes a lock file; the caller unlocks after.
func (l *Lock) DropUnused() {
	if l == nil || l.f == nil || l.fs == nil {
		return
	}
	for _, p := range []string{l.fs.RecordPath(l.id), l.fs.LogPath(l.id)} {
		if _, err := os.Lstat(p); !errors.Is(err, fs.ErrNotExist) {
			return
		}
	}
	_ = os.Remove(l.fs.LockPath(l.id))
}

// Unlock releases the lock. Calling it again is a no-op.
func (l *Lock) Unlock() error {
	if l == nil || l.f == nil {
		return nil
	}
	if s := l.fs; s != nil {
		s.mu.Lock()
		if s.held[l.id] == l {
			delete(s.held, l.id)
		}
		s.mu.Unlock()
	}
	f := l.f
	l.f = nil
	// Closing the descriptor drops the flock; an explicit LOCK_UN first
	// would only matter if the fd had been duplicated, which it is not.
	if err := f.Close(); err != nil {
		return fmt.Errorf("unlock session %s: %w", l.id, err)
	}
	return nil
}
