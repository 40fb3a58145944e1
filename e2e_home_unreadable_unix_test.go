//go:build unix

package main_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// A home the user cannot enter (another user's 0700 home, restored from a
// CI cache made by root; a path through a file) was exit 7 blaming a
// settings.json that does not exist, with a hint to replace it. It is an
// I/O error (exit 1) naming the folder.
func TestAHomeThatCannotBeEnteredIsNamed(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	file := e.writeFile("plain-file", "x")
	e.setenv("TRAIL_HOME=" + filepath.Join(file, "home"))
	for _, args := range [][]string{{"run", "--provider", "echo", "hi"}, {"config"}} {
		r := e.run("", args...)
		if r.code != 1 || !strings.Contains(r.stderr, "cannot look in "+filepath.Join(file, "home")+" for settings: not a directory") || strings.Contains(r.stderr, "replace or remove") {
			t.Errorf("trail %s with a home under a file: %s", args[0], r)
		}
	}

	if os.Getuid() != 0 {
		return
	}
	if _, err := exec.LookPath("setpriv"); err != nil {
		return
	}
	e = newEnv(t)
	e.must("", "run", "--provider", "echo", "hi") // root makes the home, 0700
	// others may reach the working folder (the folders above it up to
	// the tests' own temporary root, never further), not the home
	root := os.Getenv("TMPDIR")
	for d := filepath.Dir(e.cwd); strings.HasPrefix(d, root) && len(d) >= len(root); d = filepath.Dir(d) {
		os.Chmod(d, 0o755)
	}
	os.Chmod(e.cwd, 0o777)
	c := exec.Command("setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", trailBin, "run", "--provider", "echo", "hi")
	c.Dir, c.Env = e.cwd, e.environ()
	r := e.wait(c)
	if r.code != 1 || !strings.Contains(r.stderr, "cannot look in "+e.home+" for settings: permission denied") || !strings.Contains(r.stderr, "set TRAIL_HOME to a folder of your own") {
		t.Errorf("another user's home: %s", r)
	}

	// A HOME this user cannot write (docker run --user 1234 gives HOME=/):
	// the folder is named, with what to set; it said "lock session ID:
	// create …" with no hint.
	c = exec.Command("setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", trailBin, "run", "--provider", "echo", "hi")
	c.Dir = e.cwd
	c.Env = []string{"PATH=" + os.Getenv("PATH"), "TERM=dumb", "HOME=" + filepath.Dir(e.cwd)}
	r = e.wait(c)
	want := "trail: cannot make trail's folder " + filepath.Join(filepath.Dir(e.cwd), ".trail") + ": permission denied\nhint: set TRAIL_HOME (or --home) to a folder this user can write"
	if r.code != 1 || !strings.HasPrefix(r.stderr, want) {
		t.Errorf("a HOME this user cannot write: %s", r)
	}
}
