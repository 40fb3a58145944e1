package main_test

import (
	"regexp"
	"strings"
	"testing"
)

// Ctrl-C on a terminal: before the first byte of an answer the message
// does not promise a partial answer; at the approval prompt the message
// starts a line of its own.
func TestCtrlCLinesOnATerminal(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.setenv("TERM=xterm") // TERM=dumb shows no spinner
	s := e.script(map[string]any{"text": "late", "delayMs": 30000})
	tr := e.startOnTerminal("run", "--provider", "script", "--script", s, "wait for it")
	tr.expect("waiting for script")
	tr.send("\x03")
	code, shown := tr.wait()
	lines := strings.Split(strings.ReplaceAll(shown, "\r\n", "\n"), "\n")
	var msg string
	for _, l := range lines {
		if i := strings.Index(l, "trail: interrupted"); i >= 0 {
			msg = l[i:]
			if strings.TrimSpace(regexp.MustCompile(`\x1b\[[0-9;]*[A-Za-z]|\r`).ReplaceAllString(l[:i], "")) != "" {
				t.Errorf("the message shares its line: %q", l)
			}
		}
	}
	if code != 130 || !regexp.MustCompile(`^trail: interrupted with no answer yet; session \S+ is saved$`).MatchString(msg) {
		t.Errorf("Ctrl-C before the first byte: exit %d, %q\n%s", code, msg, shown)
	}

	e2 := newEnv(t)
	s = e2.script(calls(call("Bash", map[string]any{"command": "touch x"})), answer("done"))
	tr = e2.startOnTerminal("run", "--provider", "script", "--script", s, "go")
	tr.expect("[y/a/N] ")
	tr.send("\x03")
	code, shown = tr.wait()
	if code != 130 || !regexp.MustCompile(`\[y/a/N\] (\^C)?\r\n✗ Bash\(touch x\) denied: interrupted at the question\r\n`).MatchString(shown) ||
		!strings.Contains(shown, "\r\ntrail: interrupted with no answer yet;") || e2.exists("x") {
		t.Errorf("Ctrl-C at the approval prompt: exit %d:\n%q", code, shown)
	}
}
