package commands

import (
	"fmt"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"trail/store"
)

// The table list shows on a terminal. Rules:
//   - it fits the terminal: a row never wraps. The short id, the time, the
//     status and the message count keep their width; the name (or first
//     prompt) and the cwd share what is left, the name cut at its end and
//     the cwd (with ~ for the home) in its middle, where a path says least;
//     a terminal too narrow for both drops the cwd;
//   - newest first, tableRows rows unless --limit says otherwise, and a
//     closing line on stderr saying how many more there are;
//   - widths count runes: a wide character takes one column here;
//   - every cell read from a record is escaped (safe_text.go) before it is
//     measured: no escape sequence reaches the terminal, and \x1b counts
//     the four columns it takes.

// tableRows is how many sessions a terminal shows when --limit is not given.
const tableRows = 30

const (
	colGap     = 2 // spaces between columns
	minName    = 12
	minCwd     = 12
	cwdShare   = 2 // the cwd gets at most 2/5 of the flexible width
	shareParts = 5
)

type tableRow struct {
	id, updated, status, msgs, name, cwd string
}

func writeHeadsTable(o *ListOptions, heads []store.Head, total int, short map[string]string, now time.Time) error {
	if len(heads) == 0 {
		fmt.Fprintln(o.IO.ErrOut, "no sessions")
		return nil
	}
	home, _ := o.Deps.UserHome()
	head := tableRow{"ID", "UPDATED", "STATUS", "MSGS", "NAME", "CWD"}
	rows := make([]tableRow, len(heads))
	for i, h := range heads {
		// Escaped before the widths are measured: an escape takes the
		// columns it is shown in (headLabel escapes the name).
		r := tableRow{id: short[h.ID], status: safeLine(headStatus(h)), msgs: strconv.Itoa(h.MessageCount), name: headLabel(h), cwd: safeLine(tildePath(h.Cwd, home))}
		if r.id == "" {
			r.id = h.ID
		}
		if t, err := time.Parse(time.RFC3339Nano, h.UpdatedAt); err == nil {
			r.updated = relativeTime(now, t)
		}
		rows[i] = r
	}
	w := widths(append([]tableRow{head}, rows...))
	fixed := w[0] + w[1] + w[2] + w[3] + 4*colGap
	flex := o.IO.TerminalWidth(o.Deps.Env) - fixed - colGap // the name's gap
	nameW, cwdW := splitFlex(flex, w[4], w[5])
	var b strings.Builder
	line := func(r tableRow) {
		b.Reset()
		pad(&b, r.id, w[0])
		pad(&b, r.updated, w[1])
		pad(&b, r.status, w[2])
		b.WriteString(strings.Repeat(" ", w[3]-utf8.RuneCountInString(r.msgs)) + r.msgs) // numbers right-aligned
		b.WriteString(strings.Repeat(" ", colGap))
		if cwdW == 0 {
			b.WriteString(cutEnd(r.name, nameW))
		} else {
			pad(&b, cutEnd(r.name, nameW), nameW)
			b.WriteString(cutMiddle(r.cwd, cwdW))
		}
		fmt.Fprintln(o.IO.Out, strings.TrimRight(b.String(), " "))
	}
	line(head)
	for _, r := range rows {
		line(r)
	}
	if more := total - len(heads); more > 0 {
		fmt.Fprintf(o.IO.ErrOut, "… and %d more (--limit N shows N, --limit 0 all)\n", more)
	}
	return nil
}

// widths is the widest cell of each column.
func widths(rows []tableRow) [6]int {
	var w [6]int
	for _, r := range rows {
		for i, c := range []string{r.id, r.updated, r.status, r.msgs, r.name, r.cwd} {
			w[i] = max(w[i], utf8.RuneCountInString(c))
		}
	}
	return w
}

// splitFlex shares the width left over between the name and the cwd
// columns: each gets what it needs when both fit, else the cwd at most
// 2/5 of it and the name the rest. cwd is 0 when there is no room for it.
func splitFlex(flex, needName, needCwd int) (name, cwd int) {
	avail := flex - colGap // the gap before the cwd
	switch {
	case avail >= needName+needCwd:
		return needName, avail - needName
	case avail < minName+minCwd:
		return max(flex, 1), 0
	}
	cwd = min(needCwd, max(minCwd, avail*cwdShare/shareParts))
	name = avail - cwd
	if name > needName { // the name needs less: the cwd takes the rest
		cwd += name - needName
		name = needName
	}
	return name, cwd
}

func pad(b *strings.Builder, s string, w int) {
	b.WriteString(s)
	b.WriteString(strings.Repeat(" ", max(0, w-utf8.RuneCountInString(s))+colGap))
}

// tildePath writes the home folder as ~.
func tildePath(p, home string) string {
	if home != "" && home != "/" && (p == home || strings.HasPrefix(p, home+"/")) {
		return "~" + p[len(home):]
	}
	return p
}

// cutEnd keeps the first w runes, the last of them an ellipsis.
func cutEnd(s string, w int) string {
	r := []rune(s)
	if len(r) <= w {
		return s
	}
	if w <= 1 {
		return "…"
	}
	return string(r[:w-1]) + "…"
}

// cutMiddle keeps both ends of s in w runes, an ellipsis between: the
// start of a path says where, its end says what.
func cutMiddle(s string, w int) string {
	r := []rune(s)
	if len(r) <= w {
		return s
	}
	if w <= 1 {
		return "…"
	}
	left := (w - 1) / 2
	right := w - 1 - left
	return string(r[:left]) + "…" + string(r[len(r)-right:])
}
