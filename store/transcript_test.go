package store

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
)

func TestTranscriptIsReplacedAppendedAndDeleted(t *testing.T) {
	s := newStore(t)
	if err := s.Save(&Record{ID: "a"}); err != nil {
		t.Fatal(err)
	}
	if err := s.AppendTranscript("a", []byte("{\"n\":1}\n")); err != nil {
		t.Fatal(err) // a first append creates the file
	}
	if err := s.AppendTranscript("a", []byte("{\"n\":2}\n")); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(s.TranscriptPath("a")); string(b) != "{\"n\":1}\n{\"n\":2}\n" {
		t.Fatalf("after appends: %q", b)
	}
	if err := s.WriteTranscript("a", []byte("{\"n\":3}\n")); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(s.TranscriptPath("a")); string(b) != "{\"n\":3}\n" {
		t.Fatalf("after a replace: %q", b)
	}
	for path, want := range map[string]os.FileMode{s.TranscriptsDir(): 0o700, s.TranscriptPath("a"): 0o600} {
		if fi, err := os.Stat(path); err != nil || fi.Mode().Perm() != want {
			t.Errorf("%s mode %v (%v), want %v", path, fi.Mode().Perm(), err, want)
		}
	}
	if err := s.Delete("a"); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Lstat(s.TranscriptPath("a")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the transcript outlived its session: %v", err)
	}
}

// A transcript that is a symbolic link is never written through: nothing
// outside the home changes.
func TestTranscriptRefusesALink(t *testing.T) {
	s := newStore(t)
	outside := filepath.Join(t.TempDir(), "outside")
	if err := os.WriteFile(outside, []byte("mine\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(s.TranscriptsDir(), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, s.TranscriptPath("a")); err != nil {
		t.Fatal(err)
	}
	var nr *NotRegularError
	if err := s.AppendTranscript("a", []byte("x\n")); !errors.As(err, &nr) {
		t.Errorf("append through a link: %v", err)
	}
	if err := s.WriteTranscript("a", []byte("x\n")); err == nil {
		t.Error("a replace through a link succeeded")
	}
	if b, _ := os.ReadFile(outside); string(b) != "mine\n" {
		t.Fatalf("the file outside the home changed: %q", b)
	}
	if err := s.WriteTranscript("../x", nil); err == nil {
		t.Error("an id with .. was accepted")
	}
}
