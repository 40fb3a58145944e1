package logfmt

import "bytes"

// CompactJSON drops the whitespace outside strings of valid JSON, into a
// new slice.
func CompactJSON(data []byte) []byte {
	return appendCompact(make([]byte, 0, len(data)), data)
}

// AppendCompactJSON is CompactJSON appending to dst.
func AppendCompactJSON(dst, data []byte) []byte {
	return appendCompact(dst, data)
}

// spaced reports, cheaply, whether a message (a JSON object) was written
// with whitespace between its tokens: JSON.stringify and trail write none,
// a pretty-printer or Python's json.dumps puts it after the first key's
// colon, if not already after the brace.
func spaced(msg []byte) bool {
	if len(msg) < 2 || msg[0] != '{' {
		return false
	}
	if isSpace(msg[1]) {
		return true
	}
	i := bytes.Index(msg, []byte(`":`))
	return i >= 0 && i+2 < len(msg) && isSpace(msg[i+2])
}
