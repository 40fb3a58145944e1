package commands

import (
	"strings"
	"unicode/utf8"
)

// Help on a terminal is wrapped to its width: a flag's description goes on
// under itself, so an 80-column window does not fold it back to column
// one. Help into a pipe or a file is left as urfave/cli wrote it, one line
// per flag, for grep. Examples are never wrapped: they are copied.

// minDescription is the narrowest a description column may be before its
// continuation lines start further left instead.
const minDescription = 28

// wrapHelp wraps the help's lines wider than width. Prose (a run of
// lines at one indentation, none of them a row of a two-column list) is
// reflowed as one paragraph, so a sentence broken for a wider window does
// not leave a stub of a line behind each break.
func wrapHelp(help string, width int) string {
	if width <= 0 {
		return help
	}
	var b strings.Builder
	var para []string // the prose lines waiting, without their newlines
	flush := func() {
		wide := false
		for _, l := range para {
			wide = wide || utf8.RuneCountInString(l) > width
		}
		switch {
		case len(para) == 0:
		case !wide:
			b.WriteString(strings.Join(para, "\n") + "\n")
		default:
			lead := indentOf(para[0])
			words := make([]string, len(para))
			for i, l := range para {
				words[i] = strings.TrimSpace(l)
			}
			wrapLine(&b, strings.Repeat(" ", lead)+strings.Join(words, " "), width)
			b.WriteByte('\n')
		}
		para = para[:0]
	}
	examples := false
	lines := strings.Split(help, "\n")
	for i, line := range lines {
		last := i == len(lines)-1
		t := strings.TrimSpace(line)
		if t != "" && strings.HasSuffix(t, ":") && strings.ToUpper(t) == t {
			examples = t == "EXAMPLES:"
		}
		lead := indentOf(line)
		prose := t != "" && !examples && !strings.HasSuffix(t, ":") && !strings.Contains(line[lead:], "  ")
		if prose && (len(para) == 0 || indentOf(para[0]) == lead) {
			para = append(para, line)
			continue
		}
		flush()
		if prose {
			para = append(para, line)
			continue
		}
		if examples || utf8.RuneCountInString(line) <= width {
			b.WriteString(line)
		} else {
			wrapLine(&b, line, width)
		}
		if !last {
			b.WriteByte('\n')
		}
	}
	flush()
	return b.String()
}

func indentOf(line string) int { return len(line) - len(strings.TrimLeft(line, " ")) }

// wrapLine writes one long line as several: a hanging indent at its
// description column (the text after the first run of two or more spaces
// past the indentation), else at its own indentation.
func wrapLine(b *strings.Builder, line string, width int) {
	lead := indentOf(line)
	indent := lead
	if i := strings.Index(line[lead:], "  "); i > 0 {
		rest := line[lead+i:]
		indent = lead + i + len(rest) - len(strings.TrimLeft(rest, " "))
		if width-indent < minDescription {
			// no room beside the flag: the description goes under it
			indent = min(lead+8, width/2)
			b.WriteString(line[:lead+i] + "\n" + strings.Repeat(" ", indent))
			line = strings.TrimLeft(rest, " ")
			wrapWords(b, line, indent, indent, width)
			return
		}
	}
	if width-indent < minDescription {
		indent = min(lead+8, width/2)
	}
	wrapWords(b, line, 0, indent, width)
}

// wrapWords writes line's words from column col on, a new line at indent
// before a word that would pass width.
func wrapWords(b *strings.Builder, line string, col, indent, width int) {
	first := true
	for len(line) > 0 {
		// the next word, with the spaces before it
		start := 0
		for start < len(line) && line[start] == ' ' {
			start++
		}
		end := start
		for end < len(line) && line[end] != ' ' {
			end++
		}
		word := line[start:end]
		gap := line[:start]
		if !first && col > indent && col+utf8.RuneCountInString(gap+word) > width {
			b.WriteString("\n" + strings.Repeat(" ", indent))
			col, gap = indent, ""
		}
		b.WriteString(gap + word)
		col += utf8.RuneCountInString(gap + word)
		first = false
		line = line[end:]
	}
}
