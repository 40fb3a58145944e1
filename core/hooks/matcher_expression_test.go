package hooks

import (
	"strings"
	"testing"
)

func TestMatcherProblemFindsConditions(t *testing.T) {
	tests := []struct {
		event, matcher string
		want           string // a part of the problem; "" for none
	}{
		{PreToolUse, `tool == "Bash" && tool_input.command matches "(npm run dev|yarn dev)"`,
			`is a condition, but a matcher is compared with the tool's name, so it never matches: match the name ("Bash", or a regex of names such as "Edit|Write") and put the condition in the hook's "if"`},
		{PreToolUse, `tool_name == 'Write'`, `match the name ("Write",`},
		{PreToolUse, `"Bash"`, `is a condition`},
		{PreToolUse, `Edit||Write`, ""}, // a list of exact names: it works
		{PreToolUse, `Bash && tool_input.command`, `is a condition`},
		{PreToolUse, `tool_input.file_path`, `is a condition`},
		{PreToolUse, `Edit|Write`, ""},
		{PreToolUse, `mcp__.*__write.*`, ""},
		{PreToolUse, `^Bash$`, ""},
		{PreToolUse, `Write(*.py)`, `is permission-rule syntax`},
	}
	for _, tt := range tests {
		got := MatcherProblem(tt.event, tt.matcher)
		if (tt.want == "") != (got == "") || !strings.Contains(got, tt.want) {
			t.Errorf("MatcherProblem(%q) = %q, want %q", tt.matcher, got, tt.want)
		}
	}
}
