package wire

import (
	"encoding/json"
	"strings"
	"unicode/utf8"

	"github.com/tidwall/gjson"
)

// minSecret keeps a one-letter "key" (local servers accept anything) from
// blanking every occurrence of that letter in a message.
const minSecret = 4

// Scrub replaces every secret in s with [REDACTED].
func Scrub(s string, secrets []string) string {
	for _, k := range secrets {
		if len(k) >= minSecret && strings.Contains(s, k) {
			s = strings.ReplaceAll(s, k, "[REDACTED]")
		}
	}
	return s
}

// maxMessage caps a provider message quoted in an error line.
const maxMessage = 500

// Snippet is a body quoted in an error: one line, valid UTF-8, cut short.
func Snippet(body []byte) string {
	s := strings.Join(strings.Fields(strings.ToValidUTF8(string(body), "?")), " ")
	if utf8.RuneCountInString(s) > maxMessage {
		r := []rune(s)
		s = string(r[:maxMessage]) + "…"
	}
	return s
}

// ErrorMessage reads the error object both APIs use,
// {"error": {"type", "code", "message"}} (Anthropic wraps it in
// {"type": "error", ...}; some OpenAI-compatible servers send a plain
// string), as "<type or code>: <message>". It returns "" when body holds no
// such object.
func ErrorMessage(body []byte) string {
	if !gjson.ValidBytes(body) {
		return ""
	}
	e := gjson.GetBytes(body, "error")
	switch {
	case e.Type == gjson.String:
		return Snippet([]byte(e.String()))
	case !e.IsObject():
		return ""
	}
	msg := e.Get("message").String()
	kind := e.Get("code").String()
	if kind == "" {
		kind = e.Get("type").String()
	}
	switch {
	case kind != "" && msg != "":
		return Snippet([]byte(kind + ": " + msg))
	case msg != "":
		return Snippet([]byte(msg))
	case kind != "":
		return Snippet([]byte(kind))
	}
	return ""
}

// ErrorType reads the type of the error object ErrorMessage reads: its
// code, else its type ("rate_limit_exceeded", "rate_limit_error"); "" when
// body holds none, or one too long to be a type.
func ErrorType(body []byte) string {
	if !gjson.ValidBytes(body) {
		return ""
	}
	e := gjson.GetBytes(body, "error")
	if !e.IsObject() {
		return ""
	}
	kind := ""
	if c := e.Get("code"); c.Type == gjson.String {
		kind = c.String() // a number (429) would only repeat the status
	}
	if t := e.Get("type"); kind == "" && t.Type == gjson.String {
		kind = t.String()
	}
	if len(kind) > 64 || strings.ContainsAny(kind, " \t\r\n") {
		return ""
	}
	return kind
}

// maxPayloadDepth keeps a hostile, deeply nested event from being handed to
// the log as JSON (the log writer refuses deep values and would stop).
const maxPayloadDepth = 512

// Payload is a stream event's data as the log should keep it: the JSON
// itself when it is valid and sanely nested, else the text as a string.
func Payload(data []byte) any {
	if gjson.ValidBytes(data) && depth(data) <= maxPayloadDepth {
		return json.RawMessage(data)
	}
	return strings.ToValidUTF8(string(data), "\uFFFD")
}

// depth is the deepest nesting of valid JSON.
func depth(b []byte) int {
	d, most, inStr, esc := 0, 0, false, false
	for _, c := range b {
		switch {
		case inStr:
			if esc {
				esc = false
			} else if c == '\\' {
				esc = true
			} else if c == '"' {
				inStr = false
			}
		case c == '"':
			inStr = true
		case c == '{' || c == '[':
			d++
			most = max(most, d)
		case c == '}' || c == ']':
			d--
		}
	}
	return most
}
