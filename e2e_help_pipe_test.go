package main_test

import (
	"bytes"
	"os"
	"strings"
	"testing"
)

// runIntoClosedPipe runs trail with stdout a pipe nobody reads any more,
// as `| head -1` leaves it once it has its line.
func (e *env) runIntoClosedPipe(args ...string) (int, string) {
	e.t.Helper()
	pr, pw, err := os.Pipe()
	if err != nil {
		e.t.Fatal(err)
	}
	pr.Close()
	c := e.cmd(args...)
	var errb bytes.Buffer
	c.Stdout, c.Stderr = pw, &errb
	_ = c.Run()
	pw.Close()
	return c.ProcessState.ExitCode(), errb.String()
}

// Help into a reader that stopped reading is not a failure: `trail run
// --help | grep -q -- --stream` under pipefail used to fail most of the
// time, depending on which write met the closed pipe. A command's own
// output lost that way still is (exit 1, quietly).
func TestHelpIntoAClosedPipeSucceeds(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	for _, args := range [][]string{{"--help"}, {"run", "--help"}, {"help", "run"}, {"list", "-h"}} {
		if code, stderr := e.runIntoClosedPipe(args...); code != 0 || stderr != "" {
			t.Errorf("trail %s into a closed pipe: exit %d, stderr %q", strings.Join(args, " "), code, stderr)
		}
	}
	e.must("", "run", "--provider", "echo", "hi")
	if code, stderr := e.runIntoClosedPipe("list"); code != 1 || stderr != "" {
		t.Errorf("list into a closed pipe: exit %d, stderr %q; want 1 and nothing said", code, stderr)
	}
}
