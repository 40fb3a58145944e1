package hooks

import (
	"fmt"
	"strings"

	"trail/lazy"
)

// Hook packs written for other tools put conditions in the matcher:
// `tool == "Bash" && tool_input.command matches "npm run dev"`. Such a
// matcher is a valid regular expression, but one that no tool name
// matches (a name has no spaces, quotes or "=="), so its hook never runs,
// in Claude Code as in trail. Only config --check can say so.

// expressionWords are what marks a matcher as a condition: comparison and
// logic operators, the hook input's fields, quotes.
var expressionWords = []string{"==", "!=", "&&", "||", "tool_input", "tool_name", `"`}

// toolCompared finds the tool a condition compares with: tool == "Bash".
var toolCompared = lazy.Regexp{Expr: `\btool(?:_name)?\s*==\s*["']?([A-Za-z0-9_]+)`}

// expressionProblem says why matcher, written as a condition, never
// matches ("" when it is not one).
func expressionProblem(matcher string) string {
	found := false
	for _, w := range expressionWords {
		found = found || strings.Contains(matcher, w)
	}
	if !found {
		return ""
	}
	tool := "Bash"
	if m := toolCompared.Get().FindStringSubmatch(matcher); m != nil {
		tool = m[1]
	}
	return fmt.Sprintf("matcher %q is a condition, but a matcher is compared with the tool's name, so it never matches: match the name (%q, or a regex of names such as \"Edit|Write\") and put the condition in the hook's \"if\" (a permission rule: \"Bash(npm run dev *)\", \"Write(*.py)\") or in the command",
		matcher, tool)
}
