//go:build unix

package main_test

import (
	"os/exec"
	"strings"
	"testing"
)

// withOpenFiles prepares trail under `ulimit -n n`, as a locked-down CI
// runner or a user's shell would start it.
func (e *env) withOpenFiles(n string, args ...string) *exec.Cmd {
	c := exec.Command("sh", append([]string{"-c", `ulimit -n "$0" && exec "$@"`, n, trailBin}, args...)...)
	c.Dir = e.cwd
	c.Env = e.environ()
	return c
}

// A limit too low for the Go runtime's poller used to end in "fatal error:
// runtime: eventfd failed" and a page of goroutine stacks.
func TestAnOpenFilesLimitTooLowIsOneLine(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	r := e.wait(e.withOpenFiles("6", "run", "--provider", "echo", "hi"))
	if r.code != 1 || r.stdout != "" {
		t.Fatalf("want exit 1 and no answer:\n%s", r)
	}
	if strings.Count(r.stderr, "\n") != 1 || !strings.Contains(r.stderr, "open-files limit is 6 (ulimit -n)") {
		t.Fatalf("want one line naming the limit:\n%s", r.stderr)
	}
	if ids := e.sessionIDs(); len(ids) != 0 {
		t.Fatalf("a refused run left sessions %v", ids)
	}
	// --version opens nothing and still answers.
	if r := e.wait(e.withOpenFiles("6", "--version")); r.code != 0 || !strings.HasPrefix(r.stdout, "trail ") {
		t.Fatalf("--version under a low limit:\n%s", r)
	}
}

// The floor is not set above what a step with tools needs: at the floor,
// and a little above it, a round of eight Bash calls all get their pipes
// and run (fewer at once: under `ulimit -n 40` five started together
// failed with "too many open files").
func TestToolsRunAtTheOpenFilesFloor(t *testing.T) {
	t.Parallel()
	for _, limit := range []string{"20", "40"} {
		t.Run(limit, func(t *testing.T) {
			t.Parallel()
			e := newEnv(t)
			var cs []map[string]any
			for range 8 {
				cs = append(cs, call("Bash", map[string]any{"command": "sleep 0.2; echo out; echo err >&2"}))
			}
			script := e.script(calls(cs...), answer("done"))
			r := e.wait(e.withOpenFiles(limit, "run", "--provider", "script", "--script", script, "--allow-tool", "Bash", "go"))
			if r.code != 0 || r.stdout != "done\n" {
				t.Fatalf("run at ulimit -n %s:\n%s", limit, r)
			}
			for id, res := range e.toolResults(e.onlySession()) {
				if res["success"] != true || !strings.Contains(res["output"].(string), "out") {
					t.Errorf("%s did not run under ulimit -n %s: %v", id, limit, res)
				}
			}
		})
	}
}
