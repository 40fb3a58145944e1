package commands

import (
	"sort"
	"unicode"
	"unicode/utf8"
)

// How many columns text takes on a terminal, as wcwidth(3) counts them
// code point by code point (xterm, VTE, tmux, the Linux console):
//   - East Asian Wide and Fullwidth characters take 2: CJK, kana, Hangul
//     syllables, fullwidth forms, and the emoji with an emoji
//     presentation (Unicode 9 made those Wide in EastAsianWidth.txt);
//   - combining marks (Mn, Me), format characters (Cf: ZWJ, ZWNJ, the
//     byte order mark), variation selectors (they are Mn) and Hangul
//     medial vowels and final consonants take 0: they draw on the
//     character before them;
//   - everything else takes 1, East Asian Ambiguous included (the
//     terminal of a non-CJK locale draws those narrow).
// An emoji sequence joined with ZWJ counts each of its emoji: a terminal
// that draws the sequence as one glyph shows it narrower than counted,
// so a row measured this way still never wraps.

// wide is every code point EastAsianWidth.txt (Unicode 14.0, as Python's
// unicodedata ships it) marks W or F, with the ranges merged across code
// points not assigned in between, plus what later versions made Wide in
// blocks already here (Symbols and Pictographs Extended-A whole, 1F6DC,
// the planes 2 and 3 that the file says default to W).
var wide = [][2]rune{
	{0x1100, 0x115F}, {0x231A, 0x231B}, {0x2329, 0x232A}, {0x23E9, 0x23EC},
	{0x23F0, 0x23F0}, {0x23F3, 0x23F3}, {0x25FD, 0x25FE}, {0x2614, 0x2615},
	{0x2648, 0x2653}, {0x267F, 0x267F}, {0x2693, 0x2693}, {0x26A1, 0x26A1},
	{0x26AA, 0x26AB}, {0x26BD, 0x26BE}, {0x26C4, 0x26C5}, {0x26CE, 0x26CE},
	{0x26D4, 0x26D4}, {0x26EA, 0x26EA}, {0x26F2, 0x26F3}, {0x26F5, 0x26F5},
	{0x26FA, 0x26FA}, {0x26FD, 0x26FD}, {0x2705, 0x2705}, {0x270A, 0x270B},
	{0x2728, 0x2728}, {0x274C, 0x274C}, {0x274E, 0x274E}, {0x2753, 0x2755},
	{0x2757, 0x2757}, {0x2795, 0x2797}, {0x27B0, 0x27B0}, {0x27BF, 0x27BF},
	{0x2B1B, 0x2B1C}, {0x2B50, 0x2B50}, {0x2B55, 0x2B55}, {0x2E80, 0x303E},
	{0x3041, 0x3247}, {0x3250, 0x4DBF}, {0x4E00, 0xA4C6}, {0xA960, 0xA97C},
	{0xAC00, 0xD7A3}, {0xF900, 0xFAD9}, {0xFE10, 0xFE19}, {0xFE30, 0xFE6B},
	{0xFF01, 0xFF60}, {0xFFE0, 0xFFE6}, {0x16FE0, 0x1B2FB}, {0x1F004, 0x1F004},
	{0x1F0CF, 0x1F0CF}, {0x1F18E, 0x1F18E}, {0x1F191, 0x1F19A}, {0x1F200, 0x1F320},
	{0x1F32D, 0x1F335}, {0x1F337, 0x1F37C}, {0x1F37E, 0x1F393}, {0x1F3A0, 0x1F3CA},
	{0x1F3CF, 0x1F3D3}, {0x1F3E0, 0x1F3F0}, {0x1F3F4, 0x1F3F4}, {0x1F3F8, 0x1F43E},
	{0x1F440, 0x1F440}, {0x1F442, 0x1F4FC}, {0x1F4FF, 0x1F53D}, {0x1F54B, 0x1F54E},
	{0x1F550, 0x1F567}, {0x1F57A, 0x1F57A}, {0x1F595, 0x1F596}, {0x1F5A4, 0x1F5A4},
	{0x1F5FB, 0x1F64F}, {0x1F680, 0x1F6C5}, {0x1F6CC, 0x1F6CC}, {0x1F6D0, 0x1F6D2},
	{0x1F6D5, 0x1F6DF}, {0x1F6EB, 0x1F6EC}, {0x1F6F4, 0x1F6FC}, {0x1F7E0, 0x1F7F0},
	{0x1F90C, 0x1F93A}, {0x1F93C, 0x1F945}, {0x1F947, 0x1F9FF}, {0x1FA70, 0x1FAFF},
	{0x20000, 0x3FFFD},
}

// runeWidth is the columns r takes on its own (see the rules above).
func runeWidth(r rune) int {
	switch {
	case r < 0x20 || r >= 0x7F && r < 0xA0:
		return 0 // controls: escaped (safe_text.go) before anything is measured
	case r < 0x300:
		return 1 // Latin, the common case, without a table lookup
	case zeroWidth(r):
		return 0
	case r < 0x1100:
		return 1
	}
	i := sort.Search(len(wide), func(i int) bool { return wide[i][1] >= r })
	if i < len(wide) && wide[i][0] <= r {
		return 2
	}
	return 1
}

func zeroWidth(r rune) bool {
	return r >= 0x1160 && r <= 0x11FF || // Hangul medial vowels and final consonants
		r != 0xAD && unicode.In(r, unicode.Mn, unicode.Me, unicode.Cf) // the soft hyphen shows as a hyphen
}

// displayWidth is the columns s takes on a terminal.
func displayWidth(s string) int {
	n := 0
	for i := 0; i < len(s); i++ { // ASCII without decoding: list measures every cell
		if s[i] >= utf8.RuneSelf {
			for _, r := range s[i:] {
				n += runeWidth(r)
			}
			return n
		}
		if s[i] >= 0x20 && s[i] != 0x7F {
			n++
		}
	}
	return n
}
