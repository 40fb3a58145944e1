package store

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
)

func TestDeleteRemovesEverything(t *testing.T) {
	s := newStore(t)
	if err := s.Save(&Record{ID: "a"}); err != nil {
		t.Fatal(err)
	}
	l, err := s.Lock(t.Context(), "a", 0)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Unlock()
	os.WriteFile(s.LogPath("a"), []byte("{}\n"), 0o600)
	os.MkdirAll(s.PayloadDir("a"), 0o700)
	os.WriteFile(filepath.Join(s.PayloadDir("a"), "x.json"), []byte("{}"), 0o600)
	if err := s.Save(&Record{ID: "keep"}); err != nil {
		t.Fatal(err)
	}
	if err := s.Delete("a"); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{s.RecordPath("a"), s.LockPath("a"), s.LogPath("a"), s.PayloadDir("a")} {
		if _, err := os.Lstat(p); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("%s still there: %v", p, err)
		}
	}
	if ok, _ := s.Exists("keep"); !ok {
		t.Error("another session was deleted")
	}
}

func TestDeleteMissingPieces(t *testing.T) {
	s := newStore(t)
	os.MkdirAll(s.LogsDir(), 0o700)
	os.WriteFile(s.LogPath("logonly"), []byte("{}\n"), 0o600)
	if err := s.Delete("logonly"); err != nil {
		t.Errorf("a session with only a log: %v", err)
	}
	// Only the lock file, as a caller holding the lock has created it.
	l, err := s.Lock(t.Context(), "ghost", 0)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Unlock()
	if err := s.Delete("ghost"); !errors.Is(err, ErrNotFound) {
		t.Errorf("got %v, want ErrNotFound", err)
	}
	if _, err := os.Stat(s.LockPath("ghost")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("lock file left behind")
	}
	if err := s.Delete("never"); !errors.Is(err, ErrNotFound) {
		t.Errorf("got %v, want ErrNotFound", err)
	}
}
