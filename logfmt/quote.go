package logfmt

import "strconv"

// maxQuoted is how many characters of a value read from a log a finding
// quotes: a 10 KB session id must not bury the line that says what is
// wrong. It and quoteValue are store.QuoteInput's twin (MaxQuoted, the
// same output): logfmt and store are leaves and may not import each
// other, and commands' tests hold the two to the same text.
const maxQuoted = 200

// quoteValue quotes s as %q does, keeping its first maxQuoted characters;
// a cut string is followed by "…" and its length in bytes.
func quoteValue(s string) string {
	if len(s) <= maxQuoted {
		return strconv.Quote(s)
	}
	n := 0
	for i := range s {
		if n == maxQuoted {
			return strconv.Quote(s[:i]) + "… (" + strconv.Itoa(len(s)) + " bytes)"
		}
		n++
	}
	return strconv.Quote(s)
}
