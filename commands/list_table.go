package commands

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"trail/store"
)

// The table list shows on a terminal. Rules:
//   - it fits the terminal: a row never wraps, and leaves the last column
//     free (a row that fills it makes some terminals, Windows' console
//     among them, wrap before the newline). The short id, the time, the
//     status and the message count keep their width; the name (or first
//     prompt) and the cwd share what is left, the name cut at its end and
//     the cwd (with ~ for the home) in its middle, where a path says least;
//   - a terminal too narrow for both drops the cwd; one too narrow for
//     minName columns of name drops MSGS, then UPDATED, then STATUS: the id
//     (what every command takes) and the name stay longest, the name
//     while it has room for 4 columns;
//   - newest first, tableRows rows unless --limit says otherwise, and a
//     closing line on stderr saying how many more there are;
//   - widths are display columns (display_width.go): a CJK character or
//     an emoji takes two, a combining mark none;
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
	l := tableLayout(o.IO.TerminalWidth(o.Deps.Env)-1, w)
	var b strings.Builder
	line := func(r tableRow) {
		b.Reset()
		for i, cell := range []string{r.id, r.updated, r.status, r.msgs} {
			switch {
			case !l.show[i]:
			case i == 3: // numbers right-aligned
				b.WriteString(strings.Repeat(" ", w[3]-displayWidth(cell)) + cell + strings.Repeat(" ", colGap))
			default:
				pad(&b, cell, w[i])
			}
		}
		switch {
		case l.name <= 0:
		case l.cwd == 0:
			b.WriteString(cutEnd(r.name, l.name))
		default:
			pad(&b, cutEnd(r.name, l.name), l.name)
			b.WriteString(cutMiddle(r.cwd, l.cwd))
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
			w[i] = max(w[i], displayWidth(c))
		}
	}
	return w
}

// tableLayout decides, for rows of at most cols columns, which of ID,
// UPDATED, STATUS and MSGS show and how wide the name and the cwd are
// (0: not shown).
func tableLayout(cols int, w [6]int) (l layout) {
	l.show = [4]bool{true, true, true, true}
	for _, drop := range []int{-1, 3, 1, 2} {
		if drop >= 0 {
			l.show[drop] = false
		}
		flex := cols
		for i, on := range l.show {
			if on {
				flex -= w[i] + colGap
			}
		}
		if flex >= min(w[4], minName) || drop == 2 {
			l.name, l.cwd = splitFlex(flex, w[4], w[5])
			if l.name < len("NAME") { // a name of a column or two says nothing
				l.name = 0
			}
			return l
		}
	}
	return l
}

type layout struct {
	show      [4]bool // ID, UPDATED, STATUS, MSGS
	name, cwd int
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
		return flex, 0
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
	b.WriteString(strings.Repeat(" ", max(0, w-displayWidth(s))+colGap))
}

// tildePath writes the home folder as ~.
func tildePath(p, home string) string {
	if home != "" && home != "/" && (p == home || strings.HasPrefix(p, home+"/")) {
		return "~" + p[len(home):]
	}
	return p
}
