package commands

import (
	"fmt"
	"strings"

	"trail/core"
	"trail/core/provider"
)

// An answer with no text and no tool calls is a success (exit 0) but
// prints nothing, which a person or a script cannot tell from trail
// having lost it: text mode says so on stderr (-q silences it). An empty
// answer whose stop reason no API trail knows uses for a normal end is a
// warning in every format, -q or not: the server may have failed in a
// way trail cannot read.

// noteEmptyAnswer says so when a successful step's answer is empty.
func (r *renderer) noteEmptyAnswer(res *core.Result) {
	if res.Subtype != core.SubtypeSuccess || strings.TrimSpace(res.Text) != "" {
		return
	}
	stop := res.ModelStopReason
	switch {
	case stop != "" && !provider.NormalStop(stop):
		fmt.Fprintf(r.o.IO.ErrOut, "trail: warning: the model returned an empty answer with a stop reason trail does not know (%s)\n", safeLine(stop))
	case r.o.Output != outText || r.o.Globals.Quiet:
	case stop == "":
		fmt.Fprintln(r.o.IO.ErrOut, "trail: the model returned an empty answer")
	default:
		fmt.Fprintf(r.o.IO.ErrOut, "trail: the model returned an empty answer (stop reason %s)\n", safeLine(stop))
	}
}
