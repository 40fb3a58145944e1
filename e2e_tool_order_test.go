package main_test

import (
	"fmt"
	"strings"
	"testing"
)

// Several Edits of one file in one turn all land, in call order: run side
// by side, each read the file before the others wrote it, and edits
// reported done were lost.
func TestEditsOfOneFileInOneTurnAllLandInOrder(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	var want, lines strings.Builder
	var edits []map[string]any
	for i := range 10 {
		fmt.Fprintf(&lines, "line%02d = 0\n", i)
		fmt.Fprintf(&want, "line%02d = 1\n", i)
		edits = append(edits, call("Edit", map[string]any{"filePath": "p.txt", "oldString": fmt.Sprintf("line%02d = 0", i), "newString": fmt.Sprintf("line%02d = 1", i)}))
	}
	e.writeFile("p.txt", lines.String())
	e.writeFile("chain.txt", "a\n")
	chain := []map[string]any{
		call("Edit", map[string]any{"filePath": "chain.txt", "oldString": "a", "newString": "b"}),
		call("Edit", map[string]any{"filePath": "chain.txt", "oldString": "b", "newString": "c"}),
		call("Write", map[string]any{"filePath": "new.txt", "content": "written\n"}),
		call("Read", map[string]any{"filePath": "new.txt"}),
	}
	s := e.script(calls(call("Read", map[string]any{"filePath": "p.txt"})), calls(append(edits, chain...)...), answer("done"))
	e.must("", "run", "--provider", "script", "--script", s, "--permission-mode", "acceptEdits", "go")
	if got := e.read("p.txt"); got != want.String() {
		t.Errorf("p.txt after ten edits:\n%s", got)
	}
	if got := e.read("chain.txt"); got != "c\n" {
		t.Errorf("chain.txt = %q, want the second edit applied after the first", got)
	}
	res := e.toolResults(e.onlySession())
	for i := range 10 {
		if r := res[fmt.Sprintf("call_1_%d", i)]; r["success"] != true {
			t.Errorf("edit %d: %v", i, r)
		}
	}
	if r := res["call_1_13"]; !strings.Contains(fmt.Sprint(r["output"]), "written") {
		t.Errorf("the Read after a Write in the same turn did not see it: %v", r)
	}
	// the log says how each batch ran
	var modes []any
	for _, l := range e.logLines(e.onlySession()) {
		if l["event"] == "tool_batch_started" {
			modes = append(modes, l["mode"])
		}
	}
	if fmt.Sprint(modes) != "[parallel sequential]" {
		t.Errorf("tool_batch_started modes %v, want [parallel sequential]", modes)
	}
}
