package chat

// FirstLine is s's first line, cut to n runes (the last one an ellipsis
// when cut): how a title, a command or a hook's output shows on one line.
func FirstLine(s string, n int) string {
	r := []rune(s)
	for i, c := range r {
		if c == '\n' || c == '\r' {
			r = r[:i]
			break
		}
	}
	if len(r) > n {
		return string(r[:n-1]) + "…"
	}
	return string(r)
}
