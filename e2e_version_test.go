package main_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// A build that does not stamp the version (go install . in a clone, the
// README's install line) names the commit, as make build does, not the
// development placeholder.
func TestGoInstallNamesTheCommit(t *testing.T) {
	t.Parallel()
	git := func(args ...string) string {
		out, err := exec.Command("git", args...).Output()
		if err != nil {
			t.Skipf("git %s: %v (not a git clone)", strings.Join(args, " "), err)
		}
		return strings.TrimSpace(string(out))
	}
	want := git("rev-parse", "--short=7", "HEAD")
	if git("status", "--porcelain") != "" {
		want += "-dirty"
	}
	bin := filepath.Join(t.TempDir(), "trail")
	build := exec.Command("go", append(releaseBuild, "-o", bin, ".")...)
	build.Env = append(os.Environ(), "CGO_ENABLED=0", "GOFLAGS=-buildvcs=true")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	out, err := exec.Command(bin, "--version").Output()
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.TrimSpace(string(out)); got != "trail "+want {
		t.Errorf("--version = %q, want %q", got, "trail "+want)
	}
}

// No trail package does work when the program starts: every process pays
// for it, --version included. A table or regular expression a package needs
// is built on first use (trail/lazy) or written as data the compiler lays
// out; GODEBUG=inittrace lists each package whose init ran.
func TestNoPackageOfTrailRunsAnInit(t *testing.T) {
	t.Parallel()
	c := exec.Command(trailBin, "--version")
	c.Env = append(os.Environ(), "GODEBUG=inittrace=1")
	out, err := c.CombinedOutput()
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if !strings.Contains(string(out), "init runtime") && !strings.Contains(string(out), "init os") {
		t.Fatalf("GODEBUG=inittrace printed nothing:\n%s", out)
	}
	for _, line := range strings.Split(string(out), "\n") {
		if strings.HasPrefix(line, "init trail") {
			t.Errorf("a package of trail runs an init at start-up: %s", line)
		}
	}
}
