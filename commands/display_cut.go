package commands

import (
	"strings"
	"unicode/utf8"
)

// Cutting text to a number of columns (display_width.go counts them).
// Rules:
//   - a cut falls between clusters, never inside one: a character keeps
//     its combining marks and variation selectors, an emoji its skin tone
//     and whatever a ZWJ joins to it, a flag both its regional
//     indicators. A cut mark would otherwise land on the wrong character,
//     or a half sequence show as something else;
//   - what a cut returns, ellipsis included, takes at most the columns
//     asked for: a wide character that would straddle the limit is left
//     out, and the text comes up a column short.

// cluster is one user-perceived character: its bytes and its columns.
type cluster struct {
	s string
	w int
}

// clusters splits s into the pieces a cut may fall between.
func clusters(s string) []cluster {
	var out []cluster
	for i := 0; i < len(s); {
		first, n := utf8.DecodeRuneInString(s[i:])
		start, w, prev := i, runeWidth(first), first
		for i += n; i < len(s); i += n {
			var r rune
			r, n = utf8.DecodeRuneInString(s[i:])
			flag := prev == first && i-start == n && regionalIndicator(first) && regionalIndicator(r)
			if prev != zwj && runeWidth(r) != 0 && !skinTone(r) && !flag {
				break
			}
			w += runeWidth(r)
			prev = r
		}
		out = append(out, cluster{s[start:i], w})
	}
	return out
}

const zwj = 0x200D

func skinTone(r rune) bool          { return r >= 0x1F3FB && r <= 0x1F3FF }
func regionalIndicator(r rune) bool { return r >= 0x1F1E6 && r <= 0x1F1FF }

// cutTo is the longest start of s that takes at most w columns.
func cutTo(s string, w int) string {
	if displayWidth(s) <= w {
		return s
	}
	var b strings.Builder
	for _, c := range clusters(s) {
		if c.w > w {
			break
		}
		b.WriteString(c.s)
		w -= c.w
	}
	return b.String()
}

// cutEnd fits s in w columns, its end replaced by an ellipsis.
func cutEnd(s string, w int) string {
	if displayWidth(s) <= w {
		return s
	}
	if w <= 1 {
		return "…"
	}
	return cutTo(s, w-1) + "…"
}

// cutMiddle fits s in w columns keeping both its ends, an ellipsis
// between: the start of a path says where, its end says what.
func cutMiddle(s string, w int) string {
	if displayWidth(s) <= w {
		return s
	}
	if w <= 1 {
		return "…"
	}
	cs := clusters(s)
	// The start gets half, the end what the start left (a wide character
	// that did not fit at the start is a column for the end).
	head, used := 0, 0 // clusters kept at the start, their columns
	for ; head < len(cs) && used+cs[head].w <= (w-1)/2; head++ {
		used += cs[head].w
	}
	tail := 0
	for right := w - 1 - used; tail < len(cs)-head && cs[len(cs)-1-tail].w <= right; tail++ {
		right -= cs[len(cs)-1-tail].w
	}
	var b strings.Builder
	for _, c := range cs[:head] {
		b.WriteString(c.s)
	}
	b.WriteString("…")
	for _, c := range cs[len(cs)-tail:] {
		b.WriteString(c.s)
	}
	return b.String()
}
