package store

import "strconv"

// MaxQuoted is how many characters of what the user typed an error message
// quotes. An id, a name or a prompt pasted by mistake can be 10 KB long;
// echoing it whole buries the one line that says what went wrong.
const MaxQuoted = 200

// QuoteInput quotes s for an error message, as %q does, keeping only its
// first MaxQuoted characters; a cut string is followed by "…" and its full
// length in bytes, so the reader knows it was cut. Every error in trail that
// quotes user input goes through here (store is the one package every layer
// may import).
func QuoteInput(s string) string {
	if len(s) <= MaxQuoted {
		return strconv.Quote(s) // at most MaxQuoted characters: nothing to cut
	}
	n := 0
	for i := range s {
		if n == MaxQuoted {
			return strconv.Quote(s[:i]) + "… (" + strconv.Itoa(len(s)) + " bytes)"
		}
		n++
	}
	return strconv.Quote(s) // multi-byte characters: no more than MaxQuoted
}
