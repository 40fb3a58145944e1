package commands

import (
	"fmt"
	"io"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Text from sessions (names, titles, prompts, cwds, message content, tool
// calls, hook messages) is written by models, tools and other programs,
// and trail prints it on people's terminals. Rules for printing it in a
// human format (the list table and TSV, replay's text, stderr lines):
//   - no control character reaches the terminal raw: C0 (ESC, BEL, CR…),
//     DEL and C1 (U+0080–U+009F; U+009B is a CSI on some terminals) are
//     written as Go escapes, \x1b, \a, \r, \u009b, as strconv.Quote writes
//     them, so an escape sequence shows as text and cannot retitle the
//     window, clear the screen or move the cursor;
//   - nor do the characters that reorder or break a line without being
//     controls (bidi embeddings, overrides and isolates, U+2028, U+2029):
//     a name must not display as something it is not;
//   - a byte that is not UTF-8 is written \xff: passed on, a terminal
//     would decode it, with the next bytes, into something else;
//   - a backslash stays one backslash: these are views for people (a
//     Windows cwd reads as it is); --json and --format jsonl are the exact
//     form;
//   - everything else, "café ☕ 日本" included, is left as it is, and text
//     with nothing to escape is returned without a copy (list writes
//     thousands of rows).
// safeLine is for one-line fields, where \t, \n and \r are escaped too (a
// TSV row stays one line with its columns); safeText is for multi-line
// content, where \n and \t stay, and so does a \r just before a \n.

// safeLine is s for a one-line field: every control character escaped.
func safeLine(s string) string { return safeEscape(s, false) }

// safeText is s for multi-line content: newlines and tabs kept, every
// other control character escaped.
func safeText(s string) string { return safeEscape(s, true) }

func safeEscape(s string, multiline bool) string {
	i := firstUnsafe(s, multiline)
	if i == len(s) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 16)
	b.WriteString(s[:i])
	for i < len(s) {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			q := strconv.Quote(s[i : i+1]) // "\xff"
			b.WriteString(q[1 : len(q)-1])
		case !unsafeRune(r, s[i+size:], multiline):
			b.WriteString(s[i : i+size])
		default:
			// The quoted rune without its quotes: \a, \t, \x1b, \u009b, \u202e.
			q := strconv.QuoteRune(r)
			b.WriteString(q[1 : len(q)-1])
		}
		i += size
	}
	return b.String()
}

// firstUnsafe is the offset of the first byte to escape, len(s) if none.
func firstUnsafe(s string, multiline bool) int {
	for i := 0; i < len(s); {
		c := s[i]
		if c >= 0x20 && c < 0x7f { // ASCII text: the common case
			i++
			continue
		}
		if c < utf8.RuneSelf {
			if unsafeRune(rune(c), s[i+1:], multiline) {
				return i
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if (r == utf8.RuneError && size == 1) || unsafeRune(r, "", multiline) {
			return i
		}
		i += size
	}
	return len(s)
}

// unsafeRune reports whether r must be escaped; rest is what follows it
// (a \r is kept in text only as half of a \r\n).
func unsafeRune(r rune, rest string, multiline bool) bool {
	switch {
	case multiline && (r == '\n' || r == '\t'):
		return false
	case multiline && r == '\r':
		return !strings.HasPrefix(rest, "\n")
	case r < 0x20 || (r >= 0x7f && r <= 0x9f):
		return true
	case r >= 0x202a && r <= 0x202e, r >= 0x2066 && r <= 0x2069, r == 0x2028, r == 0x2029:
		return true
	}
	return false
}

// linef writes one of trail's own lines (a warning, a note) with each
// value it quotes escaped as one line: paths, ids, names and messages
// come from file names, records and other agents' files, and a newline or
// an escape sequence in one must neither break the line nor act on the
// terminal. Errors are flattened to one line first.
func linef(w io.Writer, format string, args ...any) {
	for i, a := range args {
		switch v := a.(type) {
		case string:
			args[i] = safeLine(v)
		case error:
			args[i] = safeLine(oneLine(v.Error()))
		}
	}
	fmt.Fprintf(w, format, args...)
}
