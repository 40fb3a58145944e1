//go:build linux

package main_test

import (
	"os"
	"os/exec"
	"strings"
	"testing"
)

// Output that never arrived fails the command: with stdout on a full disk
// (/dev/full) every command that prints exits 1 naming the failure, never
// 0 with the answer lost. The session itself is saved as usual.
func TestAnOutputThatCannotBeWrittenIsAFailure(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.setenv("TRAIL_PROVIDER=echo")
	for _, args := range [][]string{
		{"--version"},
		{"run", "hi"},
		{"run", "-o", "json", "hi"},
		{"resume", "--last", "more"},
		{"list"},
		{"list", "--json"},
		{"config"},
		{"validate-log", "--format", "json", e.home + "/logs/*.jsonl"},
		{"replay", "--last"},
		{"export", "--last", "--to", "markdown"},
	} {
		full, err := os.OpenFile("/dev/full", os.O_WRONLY, 0)
		if err != nil {
			t.Skip("no /dev/full")
		}
		c := e.cmd(args...)
		c.Stdout = full
		var stderr strings.Builder
		c.Stderr = &stderr
		err = c.Run()
		full.Close()
		code := 0
		if err != nil {
			code = c.ProcessState.ExitCode()
		}
		if code != 1 || stderr.String() != "trail: write standard output: no space left on device\n" {
			t.Errorf("trail %s > /dev/full: exit %d, stderr %q", strings.Join(args, " "), code, stderr.String())
		}
	}
	if ids := e.sessionIDs(); len(ids) != 2 {
		t.Fatalf("sessions %v: both runs are saved", ids)
	}
	if r := e.must("", "replay", "--last"); !strings.Contains(r.stdout, "echo: more") {
		t.Errorf("the resumed answer is in the session: %s", r)
	}
}

// A stdout the shell closed (`trail run ... >&-`) is output that cannot be
// written: the Go runtime puts /dev/null in its place, so the answer went
// nowhere with exit 0. It is exit 1 now, the session saved as usual, and
// for --version's fast path too (a script probing for trail); a stdout
// sent to /dev/null on purpose stays exit 0.
func TestAClosedStdoutIsAFailure(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.setenv("TRAIL_PROVIDER=echo")
	for _, tt := range []struct {
		redirect string
		code     int
	}{{">&-", 1}, {">/dev/null", 0}} {
		for _, args := range [][]string{{"run", "-o", "json", "hi"}, {"list"}, {"replay", "--last"}, {"--version"}} {
			c := exec.Command("/bin/sh", append([]string{"-c", `exec "$0" "$@" ` + tt.redirect, trailBin}, args...)...)
			c.Dir, c.Env = e.cwd, e.environ()
			var stderr strings.Builder
			c.Stderr = &stderr
			err := c.Run()
			code := 0
			if err != nil {
				code = c.ProcessState.ExitCode()
			}
			if code != tt.code || tt.code == 1 && stderr.String() != "trail: write standard output: it was closed (>&-)\n" {
				t.Errorf("trail %s %s: exit %d, stderr %q", strings.Join(args, " "), tt.redirect, code, stderr.String())
			}
		}
	}
	if ids := e.sessionIDs(); len(ids) != 2 {
		t.Fatalf("sessions %v: both runs are saved", ids)
	}
}
