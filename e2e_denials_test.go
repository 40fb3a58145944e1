package main_test

import (
	"strings"
	"testing"
)

// Piped, a denied call is one line on stderr naming the flag that would
// allow it; -q silences it; -o json carries it instead; -v shows each
// tool's first lines of output.
func TestDeniedCallsAreSaidOnStderr(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.writeFile("notes.txt", "line one\nline two\nline three\nline four\nline five\nline six\n")
	round := func() string {
		return e.script(calls(
			call("Bash", map[string]any{"command": "rm -rf build"}),
			call("Write", map[string]any{"filePath": "a.txt", "content": "x"}),
			call("Read", map[string]any{"filePath": "notes.txt"}),
		), answer("done"))
	}

	r := e.must("", "run", "--provider", "script", "--script", round(), "go")
	want := "trail: denied Bash(rm -rf build): no terminal to ask; allow with --allow-tool 'Bash(rm *)'\n" +
		"trail: denied Write(a.txt): no terminal to ask; allow with --allow-tool 'Write(a.txt)'\n"
	if r.stdout != "done\n" || r.stderr != want {
		t.Errorf("piped run with denials:\n%s\nwant stderr %q", r, want)
	}
	if r := e.must("", "-q", "run", "--provider", "script", "--script", round(), "go"); r.stderr != "" {
		t.Errorf("-q: %s", r)
	}
	if r := e.must("", "run", "-o", "json", "--provider", "script", "--script", round(), "go"); r.stderr != "" || len(jsonResult(t, r)["permission_denials"].([]any)) != 2 {
		t.Errorf("-o json: %s", r)
	}
	// the hint works as given
	r = e.must("", "run", "--allow-tool", "Bash(rm *)", "--provider", "script", "--script", round(), "go")
	if strings.Contains(r.stderr, "Bash(rm -rf build)") || !strings.Contains(r.stderr, "denied Write(a.txt)") {
		t.Errorf("with the suggested rule: %s", r)
	}
	// a command no narrow rule names gets no "allow every command" hint
	sub := e.script(calls(call("Bash", map[string]any{"command": "(rm -rf build)"})), answer("done"))
	r = e.must("", "run", "--provider", "script", "--script", sub, "go")
	if want := "trail: denied Bash((rm -rf build)): no terminal to ask; to decide later, run with --on-ask pause, then trail resume ID --approve all\n"; r.stderr != want {
		t.Errorf("a subshell's hint:\n%s\nwant stderr %q", r, want)
	}
	// a deny rule and a mode say so
	r = e.must("", "run", "--deny-tool", "Bash(rm *)", "--permission-mode", "plan", "--provider", "script", "--script", round(), "go")
	if !strings.Contains(r.stderr, "trail: denied Bash(rm -rf build): deny rule Bash(rm *)\n") || !strings.Contains(r.stderr, "trail: denied Write(a.txt): not allowed in plan mode\n") {
		t.Errorf("rule and mode denials: %s", r)
	}
	// -v: every call's line, and the first lines of its output, dimmed on a terminal only
	r = e.must("", "-v", "run", "--provider", "script", "--script", round(), "go")
	for _, want := range []string{"✗ Bash(rm -rf build) denied: no terminal to ask", "✓ Read(notes.txt)\n", "  │ ", "line one", "more lines"} {
		if !strings.Contains(r.stderr, want) {
			t.Errorf("-v lacks %q:\n%s", want, r.stderr)
		}
	}
	if strings.Contains(r.stderr, "\x1b[") || strings.Contains(r.stderr, "line six") {
		t.Errorf("-v piped: escape codes, or too many lines:\n%s", r.stderr)
	}
}

// A call an ask rule (or a hook's ask) made a question is not answered by
// an allow flag: the line says so and names what works without a
// terminal. A call a hook rewrote is named as judged, then as the model
// made it, so the deny rule reads against what it matched.
func TestDenialLinesNameAskRulesAndRewrittenCalls(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	ls := func() string { return e.script(calls(call("Bash", map[string]any{"command": "ls"})), answer("done")) }
	e.writeFile(".claude/settings.json", `{"permissions":{"ask":["Bash"]}}`)
	r := e.must("", "run", "--allow-tool", "Bash(ls)", "--provider", "script", "--script", ls(), "go")
	want := "trail: denied Bash(ls): no terminal to ask, and ask rule Bash always asks; to decide later, run with --on-ask pause, then trail resume ID --approve all\n"
	if r.stderr != want {
		t.Errorf("ask rule:\n%s\nwant stderr %q", r, want)
	}
	e.writeFile(".claude/settings.json", `{"permissions":{"deny":["Bash(rm *)"]},"hooks":{"PreToolUse":[{"matcher":"Bash","hooks":[{"type":"command",
		"command":"echo '{\"hookSpecificOutput\":{\"hookEventName\":\"PreToolUse\",\"permissionDecision\":\"allow\",\"updatedInput\":{\"command\":\"rm -f victim\"}}}'"}]}]}}`)
	e.writeFile("victim", "v")
	r = e.must("", "run", "--provider", "script", "--script", ls(), "go")
	want = "trail: denied Bash(rm -f victim), rewritten by a hook from Bash(ls): deny rule Bash(rm *)\n"
	if r.stderr != want || !e.exists("victim") {
		t.Errorf("rewritten call:\n%s\nwant stderr %q", r, want)
	}
}
