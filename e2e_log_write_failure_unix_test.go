//go:build unix

package main_test

import (
	"fmt"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"testing"
)

// A log that cannot be written (a full log volume, a CI runner's file-size
// limit) failed nothing: the step said a warning and exited 0, and a CI job
// kept a log short of the step. The answer still comes and the record is
// saved; the step now ends with exit 1 saying so, and the next step brings
// the log back in line (log_sync.go), so it replays to the record again.
func TestALogThatCannotBeWrittenFailsTheStep(t *testing.T) {
	t.Parallel()
	if _, err := exec.LookPath("bash"); err != nil {
		t.Skip("no bash")
	}
	e := newEnv(t)
	e.must("", "run", "--provider", "echo", "--name", "ci", "first")
	id := e.onlySession()
	size := func(p string) int64 {
		fi, err := os.Stat(p)
		if err != nil {
			t.Fatal(err)
		}
		return fi.Size()
	}
	// Thirty rounds of a small tool call, every request logged whole: the
	// record grows by a few kilobytes a round (about 80 KB in all), the
	// log by the whole conversation each round (over 600 KB). The limit
	// lets the record be saved and stops the log part way.
	var answers []map[string]any
	for i := 0; i < 30; i++ {
		answers = append(answers, calls(call("Bash", map[string]any{"command": "true"})))
	}
	s := e.script(append(answers, answer("done"))...)
	const limitKB = 240
	c := exec.Command("bash", "-c", fmt.Sprintf(`ulimit -f %d; exec "$0" "$@"`, limitKB), trailBin,
		"resume", "ci", "--provider", "script", "--script", s, "--allow-tool", "Bash", "--log-requests", "full", "go on")
	c.Dir, c.Env = e.cwd, e.environ()
	r := e.wait(c)
	if r.code != 1 || r.stdout != "done\n" || !strings.Contains(r.stderr, "trail: log not written: ") || !strings.Contains(r.stderr, "the answer and the session are saved") {
		t.Fatalf("a step whose log hit the file-size limit: %s", r)
	}
	if n := len(e.recordMessages(id)); n < 60 {
		t.Errorf("the record holds %d messages: the step's rounds were lost", n)
	}
	if size(e.logPath(id)) < limitKB<<10-64<<10 {
		t.Errorf("the log stopped at %d bytes, far from the limit: the test did not hit it as meant", size(e.logPath(id)))
	}
	// The next step re-syncs the log; the checks every test ends with
	// (validate, replay equals the record) then hold.
	e.must("", "resume", "ci", "--provider", "echo", "again")
}

// A first step whose record cannot be saved (the disk full, a file-size
// limit) leaves only its log, which keeps its name: the failure says how
// to get the record back, where it said only "no space left on device"
// and a script's retry of run --name met the name taken.
func TestAFirstStepThatCannotBeSavedSaysHowToRebuildIt(t *testing.T) {
	t.Parallel()
	if _, err := exec.LookPath("bash"); err != nil {
		t.Skip("no bash")
	}
	e := newEnv(t)
	prompt := strings.Repeat("a long pasted text ", 8000) // 150 KB: over the limit in the record
	c := exec.Command("bash", "-c", `ulimit -f 100; exec "$0" "$@"`, trailBin, "run", "--provider", "echo", "--name", "job")
	c.Dir, c.Env, c.Stdin = e.cwd, e.environ(), strings.NewReader(prompt)
	r := e.wait(c)
	if r.code != 1 || !strings.Contains(r.stderr, "trail: save session ") || !strings.Contains(r.stderr, "--write-record rebuilds its record") {
		t.Fatalf("a first step that cannot be saved: %s", r)
	}
	if !strings.HasPrefix(r.stdout, "echo: a long pasted text") {
		t.Errorf("the answer that came is not shown: stdout %.40q", r.stdout)
	}
	m := regexp.MustCompile(`trail replay (\S+) --write-record`).FindStringSubmatch(r.stderr)
	if m == nil {
		t.Fatalf("no session named in the hint: %s", r)
	}
	e.must("", "replay", m[1], "--write-record")
	e.must("", "resume", "job", "--provider", "echo", "again")
}
