package store

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"sync"
	"testing"
	"time"
)

func TestLockIsExclusive(t *testing.T) {
	s := newStore(t)
	l1, err := s.Lock(t.Context(), "a", 0)
	if err != nil {
		t.Fatal(err)
	}
	// flock belongs to the open file description, so a second open in this
	// process conflicts just as another process would.
	_, err = s.Lock(t.Context(), "a", 0)
	var be *BusyError
	if !errors.As(err, &be) || be.ID != "a" || err.Error() != "session a is busy" {
		t.Fatalf("second lock: %v", err)
	}
	start := time.Now()
	if _, err := s.Lock(t.Context(), "a", 60*time.Millisecond); !errors.As(err, &be) {
		t.Fatalf("second lock with a wait: %v", err)
	}
	if waited := time.Since(start); waited < 60*time.Millisecond {
		t.Errorf("gave up after %v, before the wait", waited)
	}
	other, err := s.Lock(t.Context(), "b", 0)
	if err != nil {
		t.Fatalf("another session's lock: %v", err)
	}
	other.Unlock()
	if err := l1.Unlock(); err != nil {
		t.Fatal(err)
	}
	if err := l1.Unlock(); err != nil {
		t.Errorf("second Unlock: %v", err)
	}
	l2, err := s.Lock(t.Context(), "a", 0)
	if err != nil {
		t.Fatalf("lock after unlock: %v", err)
	}
	l2.Unlock()
	if st, err := os.Stat(s.LockPath("a")); err != nil || st.Mode().Perm() != 0o600 {
		t.Errorf("lock file: %v %v", st, err)
	}
}

func TestLockWaitsForRelease(t *testing.T) {
	s := newStore(t)
	l1, err := s.Lock(t.Context(), "a", 0)
	if err != nil {
		t.Fatal(err)
	}
	time.AfterFunc(30*time.Millisecond, func() { l1.Unlock() })
	l2, err := s.Lock(t.Context(), "a", 5*time.Second)
	if err != nil {
		t.Fatalf("waiting lock: %v", err)
	}
	l2.Unlock()
}

func TestLockStopsOnContextCancel(t *testing.T) {
	s := newStore(t)
	l1, err := s.Lock(t.Context(), "a", 0)
	if err != nil {
		t.Fatal(err)
	}
	defer l1.Unlock()
	ctx, cancel := context.WithCancel(t.Context())
	time.AfterFunc(20*time.Millisecond, cancel)
	start := time.Now()
	if _, err := s.Lock(ctx, "a", time.Minute); !errors.Is(err, context.Canceled) {
		t.Fatalf("got %v, want context.Canceled", err)
	}
	if time.Since(start) > 5*time.Second {
		t.Errorf("cancel not noticed promptly")
	}
}

// Delete removes the lock file under its holder. A waiter that opened the
// old file must not then count its flock on it as the session lock, or it
// would share the session with a newcomer that created a new lock file.
func TestLockOnARemovedLockFileDoesNotCount(t *testing.T) {
	s := newStore(t)
	l1, err := s.Lock(t.Context(), "a", 0)
	if err != nil {
		t.Fatal(err)
	}
	if !stillAt(l1.f, s.LockPath("a")) {
		t.Fatal("a fresh lock is not at its path")
	}
	os.Remove(s.LockPath("a"))
	if stillAt(l1.f, s.LockPath("a")) {
		t.Error("a removed lock file still counts")
	}
	l2, err := s.Lock(t.Context(), "a", 0) // recreates the file
	if err != nil {
		t.Fatal(err)
	}
	defer l2.Unlock()
	if stillAt(l1.f, s.LockPath("a")) {
		t.Error("a replaced lock file still counts")
	}
	l1.Unlock()
}

func TestConcurrentWritersLoseNoTurn(t *testing.T) {
	s := newStore(t)
	if err := s.Save(&Record{ID: "a", Messages: []json.RawMessage{json.RawMessage(`{"role":"user","n":0}`)}}); err != nil {
		t.Fatal(err)
	}
	const writers = 8
	var wg sync.WaitGroup
	errs := make(chan error, writers)
	for i := range writers {
		wg.Go(func() {
			errs <- func() error {
				l, err := s.Lock(t.Context(), "a", 10*time.Second)
				if err != nil {
					return err
				}
				defer l.Unlock()
				r, err := s.Load("a")
				if err != nil {
					return err
				}
				r.Messages = append(r.Messages, json.RawMessage(fmt.Sprintf(`{"role":"user","n":%d}`, i+1)))
				r.MessageCount = len(r.Messages)
				return s.Save(r)
			}()
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	r, err := s.Load("a")
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Messages) != 1+writers || r.MessageCount != 1+writers {
		t.Errorf("%d messages (count %d), want %d", len(r.Messages), r.MessageCount, 1+writers)
	}
}
