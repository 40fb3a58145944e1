package commands

import (
	"errors"
	"fmt"
	"io"
	"strings"
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
	// Columns padded by display width (display_width.go): a name in CJK
	// or with emoji takes two columns a character, which tabwriter's rune
	// count misaligned.
	var rows [][4]string
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
		// session text, escaped (safe_text.go), cut by columns
		rows = append(rows, [4]string{id, age, cutEnd(safeLine(oneLineCut(c.Name, 24)), 24), cutEnd(safeLine(oneLineCut(c.Label, 50)), 50)})
	}
	var widths [3]int
	for _, r := range rows {
		for j := range widths {
			widths[j] = max(widths[j], displayWidth(r[j]))
		}
	}
	for _, r := range rows {
		line := "  "
		for j := range widths {
			line += r[j] + strings.Repeat(" ", widths[j]-displayWidth(r[j])+2)
		}
		fmt.Fprintln(w, strings.TrimRight(line+r[3], " "))
	}
	if more := len(amb.Candidates) - errs.MaxCandidates; more > 0 {
		fmt.Fprintf(w, "  … and %d more (see trail list)\n", more)
	}
}
