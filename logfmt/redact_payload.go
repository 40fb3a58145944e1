package logfmt

import (
	"bytes"
	"encoding/json"
	"strings"
)

// A provider's stream events carry the pieces of streamed text one by one.
// Once a TextStream has released a piece, the event that carried it is
// logged with the piece replaced by what redaction made of it, so the
// events, joined, hold no key either.

// ReplacePieceText rewrites a provider payload that carried old, a piece of
// streamed text, so that it carries repl, what a TextStream made of the
// piece: the last string value equal to old is replaced. A payload where old
// cannot be found is replaced by "[REDACTED]" whole rather than kept.
func ReplacePieceText(payload any, old, repl string) any {
	switch p := payload.(type) {
	case json.RawMessage:
		if out, ok := replaceStringValue(p, old, repl); ok {
			return json.RawMessage(out)
		}
	case string:
		if i := strings.LastIndex(p, old); i >= 0 {
			return p[:i] + repl + p[i+len(old):]
		}
	}
	return redactedText
}

// replaceStringValue replaces the last string value (not key) of raw JSON
// that decodes to old.
func replaceStringValue(raw []byte, old, repl string) ([]byte, bool) {
	at, end := -1, -1
	for i := 0; i < len(raw); {
		j := bytes.IndexByte(raw[i:], '"')
		if j < 0 {
			break
		}
		s := i + j
		e := stringEnd(raw, s)
		if e > len(raw) {
			return nil, false
		}
		if k := skipSpace(raw, e); (k >= len(raw) || raw[k] != ':') && unquote(raw[s+1:e-1]) == old {
			at, end = s, e
		}
		i = e
	}
	if at < 0 {
		return nil, false
	}
	out := make([]byte, 0, len(raw)+len(repl))
	out = append(out, raw[:at]...)
	out = appendString(out, repl)
	return append(out, raw[end:]...), true
}
