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

// The temp files a killed save leaves hold the whole conversation: Robota's
// <id>.json.<pid>.tmp and trail's own go with the session, and files of
// other sessions whose names start alike stay.
func TestDeleteRemovesLeftoverTempFiles(t *testing.T) {
	s := newStore(t)
	id := "session_1767600000000_r0b0t4xyz"
	if err := s.Save(&Record{ID: id}); err != nil {
		t.Fatal(err)
	}
	os.MkdirAll(s.TranscriptsDir(), 0o700)
	gone := []string{
		filepath.Join(s.SessionsDir(), id+".json.4242.tmp"),
		filepath.Join(s.SessionsDir(), id+".json.tmp-123456"),
		filepath.Join(s.SessionsDir(), id+".json.bak.tmp-7"),
		filepath.Join(s.TranscriptsDir(), id+".jsonl.tmp-99"),
	}
	kept := []string{
		filepath.Join(s.SessionsDir(), id+".json.bak"),            // a backup the user asked for
		filepath.Join(s.SessionsDir(), id+"x.json.4242.tmp"),      // another session's
		filepath.Join(s.SessionsDir(), id+".json.42.json"),        // session <id>.json.42's record
		filepath.Join(s.SessionsDir(), id+".json.42.json.7.tmp"),  // and its leftover
		filepath.Join(s.SessionsDir(), id+".json.4a.tmp"),         // not a pid
		filepath.Join(s.SessionsDir(), id+".json.tmp-"),           // no digits
		filepath.Join(s.TranscriptsDir(), id+"2.jsonl.tmp-99"),    // another session's
		filepath.Join(s.TranscriptsDir(), id+".jsonl.tmp-99.bak"), // not a temp file
	}
	for _, p := range append(append([]string{}, gone...), kept...) {
		if err := os.WriteFile(p, []byte(`{"partial":`), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.Delete(id); err != nil {
		t.Fatal(err)
	}
	for _, p := range gone {
		if _, err := os.Lstat(p); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("%s still there: %v", filepath.Base(p), err)
		}
	}
	for _, p := range kept {
		if _, err := os.Lstat(p); err != nil {
			t.Errorf("%s was removed: %v", filepath.Base(p), err)
		}
	}
}
