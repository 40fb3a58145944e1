package commands

import (
	"fmt"

	"trail/core"
	"trail/core/chat"
	"trail/core/permission"
)

// toolEvent shows tool activity: one line per finished call on a terminal
// (or with --verbose), and hook messages unless --quiet.
func (r *renderer) toolEvent(e core.StepEvent) {
	switch e.Kind {
	case core.EvNotice:
		if !r.o.Globals.Quiet {
			fmt.Fprintf(r.o.IO.ErrOut, "trail: %s\n", e.Text)
		}
	case core.EvToolFinished:
		if (r.progress || r.verbose) && e.ToolCall != nil && e.Tool != nil {
			fmt.Fprintln(r.o.IO.ErrOut, toolLine(*e.ToolCall, *e.Tool, r.color))
		}
	}
}

// toolLine is "✓ Bash(go test ./...)", "✗ Write(a.go) denied",
// "✗ Bash(make) exit 2" or "✗ Read(x): File not found: x".
func toolLine(call chat.ToolCall, out core.ToolOutcome, color bool) string {
	desc := permission.DescribeCall(call.Name, call.Args())
	mark, note := "✓", ""
	switch {
	case out.Denied:
		mark, note = "✗", " denied"
	case !out.Success:
		mark, note = "✗", ": "+oneLine(out.Summary)
	case out.ExitCode != nil && *out.ExitCode != 0:
		mark, note = "✗", fmt.Sprintf(" exit %d", *out.ExitCode)
	}
	if color {
		if mark == "✓" {
			mark = "\x1b[32m" + mark + "\x1b[0m"
		} else {
			mark = "\x1b[31m" + mark + "\x1b[0m"
		}
	}
	return mark + " " + desc + note
}
