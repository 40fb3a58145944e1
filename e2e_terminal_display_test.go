//go:build linux || darwin

package main_test

import (
	"path/filepath"
	"strings"
	"testing"
)

// slowAnswer is a script whose one-word answer comes after a second and a
// half: the spinner draws some 14 frames first.
func slowAnswer(e *env) string {
	return e.script(map[string]any{"text": "late", "delayMs": 1500})
}

// beforeAnswer is what the terminal showed before the answer's first byte.
func beforeAnswer(t *testing.T, out string) string {
	t.Helper()
	i := strings.Index(out, "late")
	if i < 0 {
		t.Fatalf("no answer:\n%q", out)
	}
	return out[:i]
}

// On a 20-column terminal "⠋ waiting for script 1s" (22 columns) would
// wrap, and each \r-redrawn frame leave a line behind: each frame is cut
// to 19 columns, and the line is cleared with \x1b[K.
func TestSpinnerOnANarrowTerminalLeavesNoLines(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.setenv("TERM=xterm")
	e.cols = 20
	code, out := e.startOnTerminal("run", "--provider", "script", "--script", slowAnswer(e), "hi").wait()
	if code != 0 {
		t.Fatalf("exit %d:\n%q", code, out)
	}
	spin := beforeAnswer(t, out)
	if !strings.Contains(spin, "waiting for") || strings.Contains(spin, "\n") || !strings.HasSuffix(spin, "\r\x1b[K") {
		t.Fatalf("the spinner is missing, ends a line or is not cleared: %q", spin)
	}
	for _, f := range strings.Split(spin, "\r")[1:] {
		if n := columns(f); n >= 20 {
			t.Errorf("a frame of %d columns on a 20-column terminal: %q", n, f)
		}
	}
}

// TERM=dumb (Emacs' shell) cannot redraw a line: no spinner there.
func TestNoSpinnerOnADumbTerminal(t *testing.T) {
	t.Parallel()
	e := newEnv(t) // TERM=dumb
	code, out := e.startOnTerminal("run", "--provider", "script", "--script", slowAnswer(e), "hi").wait()
	if code != 0 || strings.Contains(beforeAnswer(t, out), "waiting for") {
		t.Fatalf("exit %d, a spinner on TERM=dumb:\n%q", code, out)
	}
}

// trail started with & by a shell with job control draws no spinner over
// the shell's prompt; in the foreground of the same shell it does.
func TestNoSpinnerInTheBackground(t *testing.T) {
	t.Parallel()
	for _, job := range []string{"&", ""} {
		e := newEnv(t)
		e.setenv("TERM=xterm", "TRAIL="+trailBin, "SCRIPT="+slowAnswer(e))
		c := e.cmd()
		c.Path, c.Args = "/bin/sh", []string{"sh", "-c", `set -m; "$TRAIL" run --provider script --script "$SCRIPT" hi ` + job + ` wait $!; exit $?`}
		if job == "" {
			c.Args[2] = `set -m; "$TRAIL" run --provider script --script "$SCRIPT" hi`
		}
		code, out := e.startCmdOnTerminal(c).wait()
		if code != 0 || !strings.Contains(out, "late") {
			t.Fatalf("job %q: exit %d:\n%q", job, code, out)
		}
		if shown := strings.Contains(beforeAnswer(t, out), "waiting for"); shown != (job == "") {
			t.Errorf("job %q: spinner shown %v:\n%q", job, shown, out)
		}
	}
}

// Colour follows NO_COLOR, CLICOLOR and CLICOLOR_FORCE / FORCE_COLOR;
// forcing it into a pipe colours the tool lines and nothing more: no
// spinner, no question.
func TestColorEnvironment(t *testing.T) {
	t.Parallel()
	const green = "\x1b[32m✓"
	tool := func(e *env) string {
		return e.script(calls(call("Bash", map[string]any{"command": "true"})), map[string]any{"text": "done", "delayMs": 400})
	}
	for _, tt := range []struct {
		env  []string
		want bool
	}{
		{[]string{"FORCE_COLOR=1"}, true},
		{[]string{"CLICOLOR_FORCE=1"}, true},
		{[]string{"CLICOLOR_FORCE=0"}, false},
		{[]string{"CLICOLOR_FORCE=1", "NO_COLOR=1"}, false},
		{nil, false},
	} {
		e := newEnv(t)
		e.setenv(tt.env...)
		r := e.must("", "-v", "run", "--provider", "script", "--script", tool(e), "--allow-tool", "Bash", "go")
		if strings.Contains(r.stderr, green) != tt.want || !strings.Contains(r.stderr, " Bash(true)\n") {
			t.Errorf("%v, piped: colour want %v: %s", tt.env, tt.want, r)
		}
		if strings.Contains(r.stderr, "waiting for") || strings.Contains(r.stderr, "\x1b[K") {
			t.Errorf("%v, piped: a spinner: %s", tt.env, r)
		}
		if r := e.run("", "run", "--provider", "script", "--script", tool(e), "go"); strings.Contains(r.stderr, "[y/a/N]") || !strings.Contains(r.stderr, "no terminal to ask") {
			t.Errorf("%v, piped: asked, or did not say why not: %s", tt.env, r)
		}
	}
	for _, tt := range []struct {
		env  []string
		want bool
	}{
		{[]string{"TERM=xterm"}, true},
		{[]string{"TERM=xterm", "CLICOLOR=0"}, false},
		{[]string{"TERM=xterm", "NO_COLOR=1"}, false},
	} {
		e := newEnv(t)
		e.setenv(tt.env...)
		code, out := e.startOnTerminal("run", "--provider", "script", "--script", tool(e), "--allow-tool", "Bash", "go").wait()
		if code != 0 || strings.Contains(out, green) != tt.want || strings.Contains(out, "\x1b[2m") != tt.want || !strings.Contains(out, "Bash(true)") {
			t.Errorf("%v on a terminal: colour want %v: exit %d %q", tt.env, tt.want, code, out)
		}
	}
}

// -v shows a tool loop's intermediate text on stderr: with stdout in a
// file and stderr on the terminal (trail -v run ... > out.txt) it has no
// other place, and was shown nowhere. Beside stdout on the same terminal
// it is not shown twice.
func TestVerboseIntermediateTextWithStdoutInAFile(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	s := e.script(map[string]any{"text": "intermediate words", "toolCalls": []map[string]any{call("Glob", map[string]any{"pattern": "*.json"})}}, answer("final"))
	out := filepath.Join(e.cwd, "out.txt")
	e.setenv("TRAIL="+trailBin, "SCRIPT="+s, "OUT="+out)
	c := e.cmd()
	c.Path, c.Args = "/bin/sh", []string{"sh", "-c", `"$TRAIL" -v run --provider script --script "$SCRIPT" go > "$OUT"`}
	code, term := e.startCmdOnTerminal(c).wait()
	if code != 0 || !strings.Contains(term, "intermediate words") {
		t.Errorf("stdout in a file: exit %d, the terminal (stderr) shows:\n%q", code, term)
	}
	if got := e.read("out.txt"); got != "final\n" {
		t.Errorf("stdout in a file = %q, want the final answer only", got)
	}
	code, term = e.startOnTerminal("-v", "run", "--provider", "script", "--script", e.script(map[string]any{"text": "intermediate words", "toolCalls": []map[string]any{call("Glob", map[string]any{"pattern": "*.json"})}}, answer("final")), "go").wait()
	if code != 0 || strings.Count(term, "intermediate words") != 1 {
		t.Errorf("all on one terminal: exit %d, the text shown %d times:\n%q", code, strings.Count(term, "intermediate words"), term)
	}
}
