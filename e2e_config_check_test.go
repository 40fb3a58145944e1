package main_test

import (
	"encoding/json"
	"strings"
	"testing"
)

// config --check finds what is written so that it never takes effect: a
// deny or ask rule whose tool name is in the wrong case, a hook without a
// command or of an unknown type, a matcher written as a condition. Each
// fails open at run time, silently, so each fails --check; an allow rule
// in the wrong case only asks more, so it is a warning.
func TestConfigCheckFindsWhatFailsOpen(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.writeFile(".claude/settings.json", `{
	  "permissions": {"deny": ["bash(rm:*)", "read(.env)"], "allow": ["bash(ls *)"]},
	  "hooks": {"PreToolUse": [
	    {"matcher": "tool == \"Bash\" && tool_input.command matches \"(npm run dev|yarn dev)\"", "hooks": [{"type": "command", "command": "exit 2"}]},
	    {"matcher": "Bash", "hooks": [{"type": "command", "command": ""}, {"type": "command"}, {"type": "Command", "command": "echo Cap >> t.log"}]}
	  ]}}`)
	r := e.run("", "config", "--check")
	problems, warnings, _ := strings.Cut(r.stdout, "\nWARNINGS:\n")
	for _, want := range []string{
		`./.claude/settings.json: deny rule "bash(rm:*)" denies nothing: tool names are case-sensitive (did you mean "Bash(rm:*)"?)`,
		`./.claude/settings.json: deny rule "read(.env)" denies nothing: tool names are case-sensitive (did you mean "Read(.env)"?)`,
		`./.claude/settings.json: hooks.PreToolUse matcher "tool == \"Bash\" && tool_input.command matches \"(npm run dev|yarn dev)\"" is a condition, but a matcher is compared with the tool's name, so it never matches: match the name ("Bash", or a regex of names such as "Edit|Write") and put the condition in the hook's "if"`,
		`./.claude/settings.json: hooks.PreToolUse hook's "command" is empty: it never runs`,
		`./.claude/settings.json: hooks.PreToolUse hook has no "command": it never runs`,
		`./.claude/settings.json: hooks.PreToolUse hook of type "Command" never runs: trail runs type "command" (did you mean "command"?)`,
	} {
		if !strings.Contains(problems, "\n  "+want) {
			t.Errorf("config --check lacks the problem %q:\n%s", want, r.stdout)
		}
	}
	if want := `./.claude/settings.json: allow rule "bash(ls *)" allows nothing: tool names are case-sensitive (did you mean "Bash(ls *)"?)`; !strings.Contains(warnings, "  "+want) {
		t.Errorf("config --check lacks the warning %q:\n%s", want, r.stdout)
	}
	if r.code != 7 || r.stderr != "trail: config --check found 6 problems\n" {
		t.Errorf("config --check: %s", r)
	}

	r = e.run("", "config", "--check", "--json")
	var doc struct {
		Problems, Warnings []struct{ Key, Message string }
	}
	if err := json.Unmarshal([]byte(r.stdout), &doc); err != nil || len(doc.Problems) != 6 || len(doc.Warnings) != 1 || doc.Warnings[0].Key != "permissions.allow" {
		t.Errorf("config --check --json: %v\n%s", err, r.stdout)
	}

	// the allow rule alone: listed, but --check passes
	e.writeFile(".claude/settings.json", `{"permissions": {"allow": ["bash(ls *)"]}}`)
	r = e.run("", "config", "--check")
	if r.code != 0 || !strings.Contains(r.stdout, "\nWARNINGS:\n  ./.claude/settings.json: allow rule \"bash(ls *)\" allows nothing") || !strings.HasSuffix(r.stdout, "\nno problems found\n") || r.stderr != "" {
		t.Errorf("config --check with a warning only: %s", r)
	}
}

// A provider that plays a file, chosen by settings with no file named,
// fails every step that gives none: config --check lists it (a warning: a
// step may pass --script), and not once the environment names the file.
func TestConfigCheckWarnsOfAFileProviderWithNoFile(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.writeFile(".trail/settings.json", `{"provider":"script"}`)
	r := e.must("", "config", "--check")
	if !strings.Contains(r.stdout, "WARNINGS:") || !strings.Contains(r.stdout, "provider script plays a file no setting names: every step needs --script FILE or TRAIL_SCRIPT") {
		t.Errorf("config --check: %s", r)
	}
	e.setenv("TRAIL_SCRIPT=" + e.script(answer("x")))
	if r := e.must("", "config", "--check"); strings.Contains(r.stdout, "plays a file") {
		t.Errorf("with TRAIL_SCRIPT set: %s", r)
	}
}
