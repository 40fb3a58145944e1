package core

import (
	"fmt"
	"runtime"
	"strings"
	"time"

	"trail/core/chat"
)

// DefaultSystemPrompt tells the model where it runs and what trail is. The
// date is a day, not a time, so a session's prompt does not change by the minute.
func DefaultSystemPrompt(cwd string, now time.Time, tools []chat.ToolSchema) string {
	var b strings.Builder
	b.WriteString("You are trail, an AI agent run from the command line. Each prompt comes from a shell ")
	b.WriteString("command, often a script or CI job: your final answer is printed on standard output, ")
	b.WriteString("so give it directly, without preamble.\n\n")
	fmt.Fprintf(&b, "Working directory: %s\n", cwd)
	fmt.Fprintf(&b, "Date: %s\n", now.UTC().Format("2006-01-02"))
	fmt.Fprintf(&b, "Platform: %s/%s\n", runtime.GOOS, runtime.GOARCH)
	if len(tools) > 0 {
		names := make([]string, len(tools))
		for i, t := range tools {
			names[i] = t.Name
		}
		fmt.Fprintf(&b, "Tools: %s. File paths are relative to the working directory.\n", strings.Join(names, ", "))
	}
	return b.String()
}
