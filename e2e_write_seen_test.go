package main_test

import (
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// Write replaces a whole file with what the model believes it holds. It
// refuses a file the model never read, and one changed since it last read
// or wrote it, as Claude Code does: the other writer's lines would be lost.
func TestWriteRefusesAFileTheModelHasNotSeenAsItIs(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.writeFile("conf.txt", "v1 line\nuser setting = keep\n")
	e.writeFile("never.txt", "mine\n")
	e.writeFile("later.txt", "old\n")
	e.writeFile("edit.txt", "a\n")
	s := e.script(
		calls(call("Read", map[string]any{"filePath": "conf.txt"}), call("Read", map[string]any{"filePath": "later.txt"})),
		calls(call("Bash", map[string]any{"command": `echo "added by a linter" >> conf.txt`})),
		calls(call("Write", map[string]any{"filePath": "conf.txt", "content": "v2 line\n"}),
			call("Write", map[string]any{"filePath": "never.txt", "content": "clobbered\n"}),
			call("Write", map[string]any{"filePath": "new.txt", "content": "one\n"}),
			call("Write", map[string]any{"filePath": "new.txt", "content": "two\n"}),
			call("Edit", map[string]any{"filePath": "edit.txt", "oldString": "a", "newString": "b"})),
		answer("first step done"),
		// the next step, another process: what the first one read still counts
		calls(call("Write", map[string]any{"filePath": "later.txt", "content": "new\n"})),
		answer("done"))
	e.must("", "run", "--provider", "script", "--script", s, "--permission-mode", "bypassPermissions", "go")
	id := e.onlySession()
	res := e.toolResults(id)
	for call, want := range map[string]string{
		"call_2_0": "File has been modified since read, either by the user or by a linter. Read it again before attempting to write it.",
		"call_2_1": "File has not been read yet. Read it first before writing to it.",
	} {
		if r := res[call]; r["success"] != false || r["error"] != want {
			t.Errorf("%s = %v, want the error %q", call, r, want)
		}
	}
	if got := e.read("conf.txt"); !strings.Contains(got, "added by a linter") || strings.Contains(got, "v2") {
		t.Errorf("conf.txt = %q: the linter's line must stay and the stale Write not land", got)
	}
	if got := e.read("never.txt"); got != "mine\n" {
		t.Errorf("never.txt = %q", got)
	}
	if got, r := e.read("new.txt"), res["call_2_3"]; got != "two\n" || r["success"] != true {
		t.Errorf("a file the model wrote itself: %q, %v", got, r)
	}
	if got := e.read("edit.txt"); got != "b\n" {
		t.Errorf("Edit quotes what it changes and needs no Read first: edit.txt = %q", got)
	}
	e.must("", "resume", "--provider", "script", "--script", s, "--permission-mode", "bypassPermissions", id, "go on")
	if got := e.read("later.txt"); got != "new\n" {
		t.Errorf("later.txt = %q: a file read in an earlier step may be written in the next", got)
	}
}

// What was seen is judged as Claude Code judges it: a file touched but
// holding the same bytes is the one seen; a Read that showed none of it
// (an offset past its end) saw nothing; a session imported from another
// agent, whose results keep no record, read what its calls read.
func TestWriteJudgesWhatWasSeenByContent(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.writeFile("touched.txt", "same\n")
	e.writeFile("changed.txt", "aaaa\n")
	e.writeFile("past.txt", "one\n")
	s := e.script(
		calls(call("Read", map[string]any{"filePath": "touched.txt"}), call("Read", map[string]any{"filePath": "changed.txt"}),
			call("Read", map[string]any{"filePath": "past.txt", "offset": 9})),
		calls(call("Bash", map[string]any{"command": "sleep 0.05; touch touched.txt; printf 'bbbb\\n' > changed.txt"})),
		calls(call("Write", map[string]any{"filePath": "touched.txt", "content": "new\n"}),
			call("Write", map[string]any{"filePath": "changed.txt", "content": "new\n"}),
			call("Write", map[string]any{"filePath": "past.txt", "content": "new\n"})),
		answer("done"))
	e.must("", "run", "--provider", "script", "--script", s, "--permission-mode", "bypassPermissions", "go")
	res := e.toolResults(e.onlySession())
	if r := res["call_2_0"]; r["success"] != true || e.read("touched.txt") != "new\n" {
		t.Errorf("a touched file with the same bytes: %v, %q", r, e.read("touched.txt"))
	}
	if r := res["call_2_1"]; r["success"] != false || e.read("changed.txt") != "bbbb\n" {
		t.Errorf("a file changed to other bytes of the same size: %v, %q", r, e.read("changed.txt"))
	}
	if r := res["call_2_2"]; r["success"] != false || r["error"] != "File has not been read yet. Read it first before writing to it." {
		t.Errorf("a Read past the end saw nothing: %v", r)
	}
}

func TestWriteAfterImportTakesTheImportedReadsAsSeen(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.writeFile("a.txt", "line\n")
	e.writeFile("b.txt", "line\n")
	s := e.script(calls(call("Read", map[string]any{"filePath": "a.txt"}), call("Read", map[string]any{"filePath": "b.txt"})), answer("read it"))
	e.must("", "run", "--provider", "script", "--script", s, "go")
	out := filepath.Join(e.cwd, "claude.jsonl")
	e.must("", "export", e.onlySession(), "--to", "claude", "--output", out)
	id := strings.TrimSpace(e.must("", "import", out).stdout)
	time.Sleep(20 * time.Millisecond)
	e.writeFile("b.txt", "changed after the read\n")
	w := e.script(calls(call("Write", map[string]any{"filePath": "a.txt", "content": "written\n"}),
		call("Write", map[string]any{"filePath": "b.txt", "content": "written\n"})), answer("done"))
	e.must("", "resume", id, "--provider", "script", "--script", w, "--permission-mode", "bypassPermissions", "write it")
	if got := e.read("a.txt"); got != "written\n" {
		t.Errorf("a.txt = %q: a file the imported session read was refused", got)
	}
	if got := e.read("b.txt"); got != "changed after the read\n" {
		t.Errorf("b.txt = %q: a file changed after the imported session read it was overwritten", got)
	}
}
