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

// The floor is not set above what a step with a tool needs: at the floor a
// Bash call still gets its pipes and runs.
func TestAToolRunsAtTheOpenFilesFloor(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	script := e.script(calls(call("Bash", map[string]any{"command": "echo out; echo err >&2"})), answer("done"))
	r := e.wait(e.withOpenFiles("20", "run", "--provider", "script", "--script", script, "--allow-tool", "Bash", "go"))
	if r.code != 0 || r.stdout != "done\n" {
		t.Fatalf("run at the floor:\n%s", r)
	}
	if res := e.toolResults(e.onlySession())["call_0_0"]; res["success"] != true || !strings.Contains(res["output"].(string), "out") {
		t.Fatalf("the tool did not run at the floor: %v", res)
	}
}
