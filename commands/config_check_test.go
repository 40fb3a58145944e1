package commands

import (
	"encoding/json"
	"strings"
	"testing"

	"trail/core/settings"
)

func TestEntryProblemsFindWhatNeverTakesEffect(t *testing.T) {
	tests := []struct {
		name, key, value string
		want             []string // the messages, in order
		warning          bool
	}{
		{name: "a deny rule in lower case fails open", key: "permissions.deny", value: `"bash(rm:*)"`,
			want: []string{`deny rule "bash(rm:*)" denies nothing: tool names are case-sensitive (did you mean "Bash(rm:*)"?)`}},
		{name: "so does an ask rule", key: "permissions.ask", value: `"read(.env)"`,
			want: []string{`ask rule "read(.env)" asks about nothing: tool names are case-sensitive (did you mean "Read(.env)"?)`}},
		{name: "an allow rule in lower case is a warning", key: "permissions.allow", value: `"webfetch"`, warning: true,
			want: []string{`allow rule "webfetch" allows nothing: tool names are case-sensitive (did you mean "WebFetch"?)`}},
		{name: "a rule spelt right is fine", key: "permissions.deny", value: `"Bash(rm:*)"`},
		{name: "an MCP rule is no built-in tool's", key: "permissions.deny", value: `"mcp__github"`},
		{name: "a rule that does not parse says only that", key: "permissions.deny", value: `"bash(rm"`,
			want: []string{`permissions.deny rule "bash(rm": the pattern must end with )`}},
		{name: "every hook of an entry that never runs is named", key: "hooks.PreToolUse",
			value: `{"matcher": "Bash", "hooks": [{"type": "command", "command": ""}, {"type": "command"}, {"type": "Command", "command": "x"}, {"command": "ok"}]}`,
			want: []string{
				`hooks.PreToolUse hook's "command" is empty: it never runs`,
				`hooks.PreToolUse hook has no "command": it never runs`,
				`hooks.PreToolUse hook of type "Command" never runs: trail runs type "command" (did you mean "command"?)`,
			}},
		{name: "a condition for a matcher, and an if in lower case", key: "hooks.PreToolUse",
			value: `{"matcher": "tool == \"Bash\" && tool_input.command matches \"rm\"", "hooks": [{"type": "command", "command": "x", "if": "bash(rm *)"}]}`,
			want: []string{
				`hooks.PreToolUse matcher "tool == \"Bash\" && tool_input.command matches \"rm\"" is a condition, but a matcher is compared with the tool's name, so it never matches: match the name ("Bash", or a regex of names such as "Edit|Write") and put the condition in the hook's "if" (a permission rule: "Bash(npm run dev *)", "Write(*.py)") or in the command`,
				`hooks.PreToolUse hook if "bash(rm *)" matches no call, so the hook never runs: tool names are case-sensitive (did you mean "Bash(rm *)"?)`,
			}},
		{name: "Claude Code's prompt hooks are not reported", key: "hooks.Stop", value: `{"hooks": [{"type": "prompt", "prompt": "check"}]}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := entryProblems(settings.Entry{Key: tt.key, Value: json.RawMessage(tt.value), File: "/p/s.json"})
			var msgs []string
			for _, p := range got {
				msgs = append(msgs, p.Msg)
				if p.Warning != tt.warning || p.Key != tt.key {
					t.Errorf("%q: warning %v key %q, want %v %q", p.Msg, p.Warning, p.Key, tt.warning, tt.key)
				}
			}
			if strings.Join(msgs, "\n") != strings.Join(tt.want, "\n") {
				t.Errorf("problems:\n%s\nwant:\n%s", strings.Join(msgs, "\n"), strings.Join(tt.want, "\n"))
			}
		})
	}
}
