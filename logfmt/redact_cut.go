package logfmt

import (
	"strings"
	"unicode"
)

// A cut (a tool's output middle-truncated, a long line or a hook's text
// capped) can fall inside a key: the part kept is no key shape any more,
// nor a whole secret in use, and went to the log in clear, up to 35 of an
// AWS secret's 40 characters, and the other side of the cut kept the
// rest. The run of key characters that touches the cut, its last (or
// first) cutKeyChars at most, is replaced when it could be part of a key:
// 8 characters or more, letters and digits both (a run of one letter, a
// word, a path without digits is left). The text around a cut is lost
// anyway.

// cutKeyChars is the most of a run at a cut that is replaced: longer than
// the part of any key that matters (an Anthropic key is about 110).
const cutKeyChars = 128

// RedactCutEnd redacts the run that ends s, where s was cut.
func RedactCutEnd(s string) string {
	i := max(trailing(s, isTokenChar), len(s)-cutKeyChars)
	if keyLike(s[i:]) {
		return s[:i] + redactedText
	}
	return s
}

// RedactCutStart redacts the run that starts s, where s was cut.
func RedactCutStart(s string) string {
	j := 0
	for j < len(s) && j < cutKeyChars && isTokenChar(s[j]) {
		j++
	}
	if keyLike(s[:j]) {
		return redactedText + s[j:]
	}
	return s
}

func keyLike(run string) bool {
	return len(run) >= 8 && strings.ContainsAny(run, "0123456789") && strings.IndexFunc(run, unicode.IsLetter) >= 0
}
