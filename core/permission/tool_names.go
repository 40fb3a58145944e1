package permission

import "strings"

// Tool names are case-sensitive, in rules as in Claude Code: "bash(rm *)"
// names no tool, so as a deny or ask rule it protects nothing, silently.
// knownTools are the names a rule is most likely meant to spell: trail's
// built-in tools and Claude Code's (its settings reference, "Tools
// available to Claude"), old names included, since a real settings file
// names them too.
var knownTools = []string{
	"Agent", "AskUserQuestion", "Bash", "BashOutput", "Edit", "EnterPlanMode",
	"ExitPlanMode", "Glob", "Grep", "KillShell", "LS", "LSP", "MultiEdit",
	"NotebookEdit", "NotebookRead", "Read", "Skill", "SlashCommand", "Task",
	"TaskOutput", "TodoRead", "TodoWrite", "ToolSearch", "WebFetch", "WebSearch",
	"Write",
}

// ToolCaseMiss is the known tool name tool spells in another case
// ("bash" → "Bash"), or "" when tool is a known name or near none.
func ToolCaseMiss(tool string) string {
	for _, k := range knownTools {
		if k == tool {
			return ""
		}
	}
	for _, k := range knownTools {
		if strings.EqualFold(k, tool) {
			return k
		}
	}
	return ""
}
