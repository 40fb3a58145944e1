package commands

import (
	"errors"
	"fmt"
	"io"
	"text/tabwriter"
	"time"

	"trail/core/errs"
)

// writeCandidates lists an ambiguous reference's sessions under its error
// line: at most errs.MaxCandidates, one per line, with what tells them
// apart (short id, age, name, first prompt), and how many more there are.
// A thousand ids on one line helped nobody pick one.
func writeCandidates(w io.Writer, err error, now time.Time) {
	var amb *errs.AmbiguousError
	if !errors.As(err, &amb) || len(amb.Candidates) == 0 {
		return
	}
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	for i, c := range amb.Candidates {
		if i == errs.MaxCandidates {
			break
		}
		age := ""
		if t, err := time.Parse(time.RFC3339Nano, c.UpdatedAt); err == nil && !now.IsZero() {
			age = relativeTime(now, t)
		}
		id := c.ShortID
		if id == "" {
			id = c.ID
		}
		fmt.Fprintf(tw, "  %s\t%s\t%s\t%s\n", id, age, safeLine(oneLineCut(c.Name, 24)), safeLine(oneLineCut(c.Label, 50))) // session text, escaped (safe_text.go)
	}
	tw.Flush()
	if more := len(amb.Candidates) - errs.MaxCandidates; more > 0 {
		fmt.Fprintf(w, "  … and %d more (see trail list)\n", more)
	}
}
