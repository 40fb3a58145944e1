package logfmt

import "bytes"

// CompactJSON drops the whitespace outside strings of valid JSON.
func CompactJSON(data []byte) []byte {
	out := make([]byte, 0, len(data))
	start := 0
	for i := 0; i < len(data); {
		switch c := data[i]; c {
		case '"':
			// Jump over the string: find its closing quote, skipping escapes.
			j := i + 1
			for {
				k := bytes.IndexAny(data[j:], "\"\\")
				if k < 0 {
					return append(out, data[start:]...) // unterminated: keep as is
				}
				j += k
				if data[j] == '\\' {
					if j += 2; j >= len(data) {
						return append(out, data[start:]...)
					}
					continue
				}
				break
			}
			i = j + 1
		case ' ', '\n', '\t', '\r':
			out = append(out, data[start:i]...)
			i++
			start = i
		default:
			i++
		}
	}
	return append(out, data[start:]...)
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
