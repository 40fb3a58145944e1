package hooks

import (
	"fmt"
	"slices"
	"strings"

	"trail/store"
)

// claudeHookTypes are the hook types Claude Code's hooks reference names.
// trail runs "command" hooks; the others are skipped with a message when
// they match (and a PreToolUse call becomes a question), so a real
// Claude Code file holding them is not reported.
var claudeHookTypes = []string{"command", "http", "prompt", "agent", "mcp_tool"}

// EntryProblem says why one hook of a settings file can never run ("" when
// it can): a type no one runs, or a command hook without a command. A
// missing command is command == nil. config --check reports it: at run
// time such a hook is skipped, and a guard that never runs fails open.
func EntryProblem(typ string, command *string) string {
	if typ != "" && !slices.Contains(claudeHookTypes, typ) {
		msg := fmt.Sprintf("hook of type %s never runs: trail runs type \"command\"", store.QuoteInput(typ))
		for _, k := range claudeHookTypes {
			if strings.EqualFold(k, typ) {
				return msg + fmt.Sprintf(" (did you mean %q?)", k)
			}
		}
		return msg + " (Claude Code's types: " + strings.Join(claudeHookTypes, ", ") + ")"
	}
	if typ != "" && typ != "command" {
		return ""
	}
	switch {
	case command == nil:
		return "hook has no \"command\": it never runs"
	case strings.TrimSpace(*command) == "":
		return "hook's \"command\" is empty: it never runs"
	}
	return ""
}
