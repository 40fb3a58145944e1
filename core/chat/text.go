package chat

import "strings"

// FirstLine is s's first line, cut to n runes (the last one an ellipsis
// when cut): how a title, a command or a hook's output shows on one line.
func FirstLine(s string, n int) string {
	// A line ends at \n (its \r too, for CRLF). A lone \r is no line
	// break: cutting there would drop what follows it ("done\rFAILED"
	// would read "done"); views escape it.
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = strings.TrimSuffix(s[:i], "\r")
	}
	r := []rune(s)
	if len(r) > n {
		return string(r[:n-1]) + "…"
	}
	return string(r)
}
