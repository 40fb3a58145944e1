package store

import (
	"os"
	"path/filepath"
	"testing"
)

func TestDirMatcherSeesThroughSymlinks(t *testing.T) {
	base := t.TempDir()
	real := filepath.Join(base, "real dir")
	other := filepath.Join(base, "other")
	link := filepath.Join(base, "link")
	for _, d := range []string{real, other} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink(real, link); err != nil {
		t.Skip("no symlinks here:", err)
	}
	m := NewDirMatcher(real)
	for cwd, want := range map[string]bool{real: true, link: true, other: false, "": false, filepath.Join(base, "gone"): false} {
		if got := m.Match(cwd); got != want {
			t.Errorf("Match(%q) = %v, want %v", cwd, got, want)
		}
	}
	if !NewDirMatcher(link).Match(real) {
		t.Error("from the link's spelling, the real path is not matched")
	}
}
