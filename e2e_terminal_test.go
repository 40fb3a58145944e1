//go:build linux || darwin

package main_test

import (
	"os"
	"regexp"
	"strings"
	"testing"
)

func TestListOnATerminalIsAnAlignedTable(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.must("", "run", "--provider", "echo", "--name", "first-session", "one")
	e.must("", "run", "--provider", "echo", "a prompt that is much longer than fifty characters, so the table cuts it")
	code, out := e.startOnTerminal("list").wait()
	if code != 0 {
		t.Fatalf("exit %d:\n%s", code, out)
	}
	lines := strings.Split(strings.TrimRight(strings.ReplaceAll(out, "\r\n", "\n"), "\n"), "\n")
	if len(lines) != 3 || !regexp.MustCompile(`^ID\s+UPDATED\s+STATUS\s+MSGS\s+NAME\s+CWD$`).MatchString(lines[0]) {
		t.Fatalf("table:\n%s", out)
	}
	col := strings.Index(lines[0], "STATUS")
	for _, l := range lines[1:] {
		if !strings.Contains(l, "just now") || l[col:col+4] != "idle" {
			t.Errorf("row not aligned under the header, or no relative time: %q", l)
		}
	}
	if !strings.Contains(out, "first-session") || !strings.Contains(out, "…") {
		t.Errorf("names and cut prompts missing:\n%s", out)
	}
}

func TestDeleteOnATerminalAsks(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.must("", "run", "--provider", "echo", "--session-id", "del-a", "--name", "alpha job", "a")
	e.must("", "run", "--provider", "echo", "--session-id", "del-b", "the b prompt")

	// the question names what would go: by name, else first prompt
	tr := e.startOnTerminal("delete", "del-a", "del-b")
	tr.expect("Delete 2 sessions? [y/N]")
	tr.send("n\r")
	if code, out := tr.wait(); code != 0 || !strings.Contains(out, "nothing deleted") ||
		!regexp.MustCompile(`  del-a\S*  alpha job\r?\n  del-b\S*  the b prompt\r?\nDelete 2 sessions\?`).MatchString(out) {
		t.Fatalf("answered n: exit %d\n%s", code, out)
	}
	if len(e.sessionIDs()) != 2 {
		t.Fatal("answering n deleted something")
	}

	tr = e.startOnTerminal("delete", "del-a")
	tr.expect("Delete 1 session? [y/N]")
	tr.send("y\r")
	if code, out := tr.wait(); code != 0 || !strings.Contains(out, "del-a") {
		t.Fatalf("answered y: exit %d\n%s", code, out)
	}
	if ids := e.sessionIDs(); len(ids) != 1 || ids[0] != "del-b" {
		t.Fatalf("sessions left: %v", ids)
	}
	if _, err := os.Stat(e.logPath("del-a")); !os.IsNotExist(err) {
		t.Fatal("the log of a deleted session is still there")
	}

	// Ctrl-C at the question ends it at once: exit 130, nothing deleted.
	tr = e.startOnTerminal("delete", "del-b")
	tr.expect("Delete 1 session? [y/N]")
	tr.send("\x03")
	if code, out := tr.wait(); code != 130 || !strings.Contains(out, "trail: interrupted while asking for confirmation; nothing was deleted") {
		t.Fatalf("Ctrl-C: exit %d\n%s", code, out)
	}
	if ids := e.sessionIDs(); len(ids) != 1 {
		t.Fatalf("sessions left: %v", ids)
	}
}

func TestRunOnATerminalStreamsAndNamesTheSession(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	s := e.script(map[string]any{"text": "one two three four", "delayMs": 600})
	tr := e.startOnTerminal("run", "--provider", "script", "--script", s, "hello")
	tr.expect("one ")
	if strings.Contains(tr.seen.String(), "four") {
		t.Fatalf("the answer arrived whole, not streamed:\n%s", tr.seen.String())
	}
	code, out := tr.wait()
	if code != 0 || !strings.Contains(out, "one two three four") {
		t.Fatalf("exit %d:\n%s", code, out)
	}
	id := e.onlySession()
	if !strings.Contains(out, "session "+id) {
		t.Errorf("the session id is not shown at the end:\n%s", out)
	}
}
