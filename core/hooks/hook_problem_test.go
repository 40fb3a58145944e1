package hooks

import (
	"strings"
	"testing"
)

func TestEntryProblemFindsHooksThatNeverRun(t *testing.T) {
	cmd := func(s string) *string { return &s }
	tests := []struct {
		name, typ string
		command   *string
		want      string // a part of the problem; "" for none
	}{
		{"a command hook", "command", cmd("echo hi"), ""},
		{"a hook without a type is a command hook", "", cmd("echo hi"), ""},
		{"Claude Code's other types are not trail's problem", "prompt", nil, ""},
		{"an empty command", "command", cmd(""), `hook's "command" is empty: it never runs`},
		{"a blank command", "", cmd("  "), `hook's "command" is empty`},
		{"no command at all", "command", nil, `hook has no "command": it never runs`},
		{"a type in another case", "Command", cmd("echo hi"), `hook of type "Command" never runs: trail runs type "command" (did you mean "command"?)`},
		{"an unknown type", "shell", cmd("echo hi"), `hook of type "shell" never runs: trail runs type "command" (Claude Code's types: command, http, prompt, agent, mcp_tool)`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := EntryProblem(tt.typ, tt.command)
			if (tt.want == "") != (got == "") || !strings.Contains(got, tt.want) {
				t.Errorf("EntryProblem(%q) = %q, want %q", tt.typ, got, tt.want)
			}
		})
	}
}
