//go:build linux || darwin

package main_test

import (
	"strings"
	"testing"
)

// Help on an 80-column terminal fits it, each flag's description going
// on under itself; piped, each flag stays on one line for grep.
func TestHelpFitsTheTerminalAndStaysOneLinePerFlagPiped(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.cols = 80
	for _, args := range [][]string{{"--help"}, {"run", "--help"}, {"resume", "--help"}, {"validate-log", "--help"}, {"config", "--help"}, {"help", "import"}} {
		code, out := e.startOnTerminal(args...).wait()
		if code != 0 {
			t.Fatalf("trail %s: exit %d\n%s", strings.Join(args, " "), code, out)
		}
		for _, l := range terminalLines(out) {
			if columns(l) > 80 {
				t.Errorf("trail %s: a line of %d columns on an 80-column terminal: %q", strings.Join(args, " "), columns(l), l)
			}
		}
		if strings.Join(args, " ") == "run --help" && !strings.Contains(out, "--stream") || strings.Contains(out, "pipe (default: the final answer once, at the end; setting stream) (default: false)") {
			t.Errorf("the --stream flag's description was not wrapped:\n%s", out)
		}
	}
	r := e.run("", "run", "--help")
	var stream string
	for _, l := range strings.Split(r.stdout, "\n") {
		if strings.HasPrefix(strings.TrimSpace(l), "--stream ") {
			stream = l
		}
	}
	if !strings.Contains(stream, "even into a pipe") || !strings.HasSuffix(stream, "(default: false)") {
		t.Errorf("piped, the --stream flag is not one line: %q", stream)
	}
}
