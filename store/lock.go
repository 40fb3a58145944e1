package store

import (
	"context"
	"errors"
	"fmt"
	"os"
	"syscall"
	"time"
)

// Lock is an exclusive flock on sessions/<id>.lock. The kernel drops it when
// the process dies, so a killed step never leaves a stale lock.
type Lock struct {
	f  *os.File
	id string
}

// Retry backoff while another process holds the lock: short at first, so a
// quick save by the other side costs us little, capped so we still notice
// release promptly.
const (
	lockFirstSleep = 2 * time.Millisecond
	lockMaxSleep   = 25 * time.Millisecond
)

// Lock takes the session lock for id, retrying until wait has passed (wait
// <= 0 tries once). It returns a *BusyError when the lock stays held, and
// ctx.Err() when ctx ends first.
func (s *FS) Lock(ctx context.Context, id string, wait time.Duration) (*Lock, error) {
	if err := ValidateID(id); err != nil {
		return nil, fmt.Errorf("lock session: %w", err)
	}
	if err := s.EnsureLayout(); err != nil {
		return nil, fmt.Errorf("lock session %s: %w", id, err)
	}
	return lockFile(ctx, s.LockPath(id), id, wait)
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
			return nil, fmt.Errorf("lock session %s: %w", id, err)
		}
		if f != nil {
			return &Lock{f: f, id: id}, nil
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

// tryLock returns the locked file, or nil when someone else holds it.
func tryLock(path string) (*os.File, error) {
	// Delete removes the lock file while its owner holds it. Whoever opened
	// the old file before that would then hold a lock nobody else can see,
	// so a lock counts only if path still names the file we locked; if not,
	// open the new one. The bound only guards against a pathological race.
	for range 16 {
		f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
		if err != nil {
			return nil, err
		}
		if err := flockNB(f); err != nil {
			_ = f.Close()
			if errors.Is(err, syscall.EWOULDBLOCK) {
				return nil, nil
			}
			return nil, err
		}
		if stillAt(f, path) {
			return f, nil
		}
		_ = f.Close()
	}
	return nil, nil
}

// stillAt reports whether path still names the open file f.
func stillAt(f *os.File, path string) bool {
	fst, ferr := f.Stat()
	pst, perr := os.Stat(path)
	return ferr == nil && perr == nil && os.SameFile(fst, pst)
}

func flockNB(f *os.File) error {
	for {
		err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
		if !errors.Is(err, syscall.EINTR) {
			return err
		}
	}
}

// Unlock releases the lock. Calling it again is a no-op.
func (l *Lock) Unlock() error {
	if l == nil || l.f == nil {
		return nil
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
