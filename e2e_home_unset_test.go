package main_test

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// With HOME unset (env -i, cron, some containers) a log given by path
// needs no home: validate-log and replay of it, and list, ran only with
// TRAIL_HOME set (exit 2 otherwise). A step is still refused, and a home
// written with ~ is never made as a folder named "~" here, nor under a
// HOME that does not exist.
func TestNoHOMEStillReadsLogsAndMakesNoFolder(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.must("", "run", "--provider", "echo", "hi")
	log := e.logPath(e.onlySession())
	bare := func(extra []string, args ...string) result {
		c := exec.Command(trailBin, args...)
		c.Dir = e.cwd
		c.Env = append([]string{"PATH=" + os.Getenv("PATH"), "TERM=dumb"}, extra...)
		return e.wait(c)
	}
	for _, args := range [][]string{{"validate-log", log}, {"replay", log, "--format", "jsonl"}, {"list"}, {"config"}} {
		if r := bare(nil, args...); r.code != 0 || strings.Contains(r.stdout, "trail-home-unset") {
			t.Errorf("trail %s with HOME unset: %s", args[0], r)
		}
	}
	if r := bare(nil, "run", "--provider", "echo", "hi"); r.code != 2 || !strings.Contains(r.stderr, "HOME is not set") {
		t.Errorf("a step with HOME unset: %s", r)
	}
	if r := bare([]string{"TRAIL_HOME=~/x"}, "run", "--provider", "echo", "hi"); r.code != 2 || !strings.Contains(r.stderr, `trail's home "~/x" starts with ~, and HOME is not set`) {
		t.Errorf("TRAIL_HOME=~/x with HOME unset: %s", r)
	}
	gone := filepath.Join(e.user, "gone")
	if r := bare([]string{"HOME=" + gone}, "--home", "~/a/b", "run", "--provider", "echo", "hi"); r.code != 2 || !strings.Contains(r.stderr, "does not exist") {
		t.Errorf("--home ~/a/b under a HOME that does not exist: %s", r)
	}
	if r := bare([]string{"HOME=" + e.user, "TRAIL_HOME=~root/x"}, "run", "--provider", "echo", "hi"); r.code != 2 || !strings.Contains(r.stderr, "starts with ~user") {
		t.Errorf("TRAIL_HOME=~root/x: %s", r)
	}
	if e.exists("~") || e.exists("~root") {
		t.Error(`a folder named "~" or "~root" was made in the working folder`)
	}
	if _, err := os.Stat(gone); err == nil {
		t.Errorf("%s was made", gone)
	}
}

// The folder a shell stands in deleted under it (a CI step's temporary
// checkout): a step cannot know its project's settings, and says what
// happened and what to do.
func TestADeletedWorkingFolderIsSaidSo(t *testing.T) {
	t.Parallel()
	if _, err := exec.LookPath("sh"); err != nil {
		t.Skip("no sh")
	}
	e := newEnv(t)
	e.must("", "run", "--provider", "echo", "--name", "j", "hi")
	gone := filepath.Join(e.cwd, "gone")
	os.Mkdir(gone, 0o755)
	c := exec.Command("sh", "-c", `cd "$1" && rmdir "$1" && exec "$0" resume j again`, trailBin, gone)
	c.Env = e.environ()
	r := e.wait(c)
	if r.code != 1 || !strings.Contains(r.stderr, "the folder this shell stands in was deleted") {
		t.Errorf("resume from a deleted folder: %s", r)
	}
}

// With PATH unset (env -i in a minimal CI container) the Bash tool and
// hooks found no shell ("exec: bash: executable file not found"): they
// run the system's, which finds the command's programs on its own
// default path.
func TestNoPATHStillRunsToolsAndHooks(t *testing.T) {
	t.Parallel()
	if _, err := os.Stat("/bin/sh"); err != nil {
		t.Skip("no /bin/sh")
	}
	if _, err := os.Stat("/bin/bash"); err != nil {
		t.Skip("no /bin/bash")
	}
	e := newEnv(t)
	e.writeFile(".claude/settings.json", `{"hooks": {"UserPromptSubmit": [{"hooks": [{"type": "command", "command": "touch hooked"}]}]}}`)
	s := e.script(calls(call("Bash", map[string]any{"command": "ls / >/dev/null && echo listed"})), answer("done"))
	c := exec.Command(trailBin, "run", "--provider", "script", "--script", s, "--allow-tool", "Bash", "go")
	c.Dir = e.cwd
	c.Env = []string{"HOME=" + e.user, "TRAIL_HOME=" + e.home, "TERM=dumb"}
	if r := e.wait(c); r.code != 0 {
		t.Fatalf("%s", r)
	}
	if out := fmt.Sprint(e.toolResults(e.onlySession())["call_0_0"]["output"]); !strings.Contains(out, "listed") {
		t.Errorf("the Bash call with PATH unset: %q", out)
	}
	if !e.exists("hooked") {
		t.Error("the hook did not run with PATH unset")
	}
}
