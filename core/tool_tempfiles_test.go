package core

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"trail/core/errs"
	"trail/store"
)

// The sweep removes a journaled temp file, and nothing a user owns: not
// a file the journal does not name, not a named path without the temp form,
// not a link, not a file reached through a folder replaced by a link.
func TestSweepToolTempsRemovesOnlyJournaledTempFiles(t *testing.T) {
	st := store.New(filepath.Join(t.TempDir(), "home"))
	st.EnsureLayout()
	proj, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	elsewhere, _ := filepath.EvalSymlinks(t.TempDir())
	file := func(rel string) string {
		p := filepath.Join(proj, rel)
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	leftover := file(".out.txt.tmp-123")
	unlisted := file(".out.txt.tmp-456")
	notTemp := file("out.txt")
	link := filepath.Join(proj, ".link.tmp-1")
	os.Symlink(file("target.txt"), link)
	// A folder the journal named, replaced by a link to a folder elsewhere
	// holding a file of the same name.
	os.WriteFile(filepath.Join(elsewhere, ".f.tmp-9"), []byte("x"), 0o644)
	os.Symlink(elsewhere, filepath.Join(proj, "moved"))
	through := filepath.Join(proj, "moved", ".f.tmp-9")
	for _, p := range []string{leftover, notTemp, link, through, filepath.Join(proj, ".gone.tmp-7"), "relative/.x.tmp-1"} {
		if err := st.NoteTempFile("s1", p); err != nil {
			t.Fatal(err)
		}
	}
	if err := SweepToolTemps(st, "s1"); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Lstat(leftover); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("journaled leftover kept: %v", err)
	}
	for _, p := range []string{unlisted, notTemp, link, filepath.Join(proj, "target.txt"), filepath.Join(elsewhere, ".f.tmp-9")} {
		if _, err := os.Lstat(p); err != nil {
			t.Errorf("%s removed: %v", p, err)
		}
	}
	if _, err := os.Lstat(st.TempJournalPath("s1")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("journal kept: %v", err)
	}
}

func TestSweepToolTempsRefusesASymlinkedJournal(t *testing.T) {
	st := store.New(filepath.Join(t.TempDir(), "home"))
	st.EnsureLayout()
	os.Symlink(filepath.Join(t.TempDir(), "x"), st.TempJournalPath("s1"))
	var bad *errs.InvalidDataError
	if err := SweepToolTemps(st, "s1"); !errors.As(err, &bad) || bad.Path != st.TempJournalPath("s1") {
		t.Errorf("got %v, want an InvalidDataError naming the journal", err)
	}
}
