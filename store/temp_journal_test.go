package store

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"testing"
)

func sweep(t *testing.T, s *FS, id string) ([]string, error) {
	t.Helper()
	var got []string
	err := s.SweepTempFiles(id, func(p string) { got = append(got, p) })
	return got, err
}

func TestTempJournalListsEveryNotedPathOnceThenIsGone(t *testing.T) {
	s := New(t.TempDir())
	if err := s.EnsureLayout(); err != nil {
		t.Fatal(err)
	}
	paths := []string{"/p/.a.tmp-1", "/p/new\nline/.b.tmp-2"}
	for _, p := range paths {
		if err := s.NoteTempFile("s1", p); err != nil {
			t.Fatal(err)
		}
	}
	if fi, err := os.Stat(s.TempJournalPath("s1")); err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("journal: %v %v", fi, err)
	}
	// A kill in the middle of an append leaves a torn line: it names a file
	// that was never created, and is skipped.
	f, _ := os.OpenFile(s.TempJournalPath("s1"), os.O_WRONLY|os.O_APPEND, 0)
	f.WriteString(`"/p/.c.tm`)
	f.Close()
	got, err := sweep(t, s, "s1")
	if err != nil || !reflect.DeepEqual(got, paths) {
		t.Fatalf("sweep = %q, %v; want %q", got, err, paths)
	}
	if _, err := os.Lstat(s.TempJournalPath("s1")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("journal still there after the sweep: %v", err)
	}
	if got, err := sweep(t, s, "s1"); err != nil || got != nil {
		t.Errorf("second sweep = %q, %v", got, err)
	}
}

func TestTempJournalNeverFollowsALinkOrOpensAFIFO(t *testing.T) {
	s := New(t.TempDir())
	s.EnsureLayout()
	victim := filepath.Join(t.TempDir(), "victim")
	os.WriteFile(victim, []byte("\"/p/.x.tmp-1\"\n"), 0o644)
	os.Symlink(victim, s.TempJournalPath("link"))
	var je *TempJournalError
	if err := s.NoteTempFile("link", "/p/.y.tmp-2"); !errors.As(err, &je) || je.Path != s.TempJournalPath("link") {
		t.Errorf("note through a link: %v", err)
	}
	if got, err := sweep(t, s, "link"); !errors.As(err, &je) || got != nil {
		t.Errorf("sweep through a link = %q, %v", got, err)
	}
	if b, _ := os.ReadFile(victim); string(b) != "\"/p/.x.tmp-1\"\n" {
		t.Errorf("the link's target changed: %q", b)
	}
	if err := mkfifo(s.TempJournalPath("fifo")); err != nil {
		t.Skip("no FIFOs here:", err)
	}
	if _, err := sweep(t, s, "fifo"); !errors.As(err, &je) {
		t.Errorf("sweep of a FIFO: %v", err)
	}
	if err := s.NoteTempFile("fifo", "/p/.z.tmp-3"); err == nil {
		t.Error("note into a FIFO succeeded")
	}
}

func TestDeleteRemovesTheTempJournal(t *testing.T) {
	s := New(t.TempDir())
	s.EnsureLayout()
	os.WriteFile(s.RecordPath("s1"), []byte(`{"id":"s1"}`), 0o600)
	s.NoteTempFile("s1", "/p/.a.tmp-1")
	if err := s.Delete("s1"); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Lstat(s.TempJournalPath("s1")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("journal left after delete: %v", err)
	}
}
