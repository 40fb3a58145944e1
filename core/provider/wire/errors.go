package wire

import (
	"bytes"
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

// BodyText is what a non-JSON error body says, for an error line: an HTML
// page (a proxy's or a load balancer's) by its title, not its markup,
// which would fill every retry line; anything else as Snippet quotes it.
func BodyText(body []byte) string {
	low := bytes.ToLower(body[:min(len(body), 512)])
	if !bytes.Contains(low, []byte("<html")) && !bytes.Contains(low, []byte("<!doctype html")) {
		return Snippet(body)
	}
	lower := bytes.ToLower(body)
	for _, tag := range []string{"title", "h1"} {
		start := bytes.Index(lower, []byte("<"+tag+">"))
		end := bytes.Index(lower, []byte("</"+tag+">"))
		if start >= 0 && end > start {
			if t := Snippet(body[start+len(tag)+2 : end]); t != "" {
				return "an HTML page: " + t
			}
		}
	}
	return "an HTML page"
}

// Error bodies come in many shapes, and the user should see the API's own
// message whichever it is (ErrorMessage, ErrorType):
//
//	{"type":"error","error":{"type","message"}}           Anthropic
//	{"error":{"message","type","code"}}                    OpenAI and most compatible servers
//	{"error":"text"}                                       Ollama, some proxies
//	[{"error":{"code":400,"message","status"}}]            Gemini's OpenAI endpoint (an array)
//	{"object":"error","message","type","code"}             vLLM (message may be an object)
//	{"detail":"text"} / {"detail":[{"type","loc","msg"}]}  Azure AI Foundry, FastAPI 422s
//	{"error":{"code":429,"message","metadata":{"raw"}}}    OpenRouter (the upstream's error in raw)
//
// The kind is the error's code when it is a string, else its type, else
// Gemini's status ("INVALID_ARGUMENT"); a numeric code, or one that is an
// HTTP status written as a string ("401"), only repeats the status and is
// left out.

// maxErrorDepth bounds how deep an error is looked for (arrays, nested
// messages, OpenRouter's raw upstream body).
const maxErrorDepth = 4

// ErrorMessage reads the error a body reports as "<kind>: <message>" (or
// the message alone), cut to one line; "" when body holds no error in a
// known shape.
func ErrorMessage(body []byte) string {
	if !gjson.ValidBytes(body) {
		return ""
	}
	kind, msg := errorIn(gjson.ParseBytes(body), 0)
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

// ErrorType reads the kind of the error ErrorMessage reads
// ("rate_limit_error", "insufficient_quota"); "" when body holds none, or
// one too long to be a kind.
func ErrorType(body []byte) string {
	if !gjson.ValidBytes(body) {
		return ""
	}
	kind, _ := errorIn(gjson.ParseBytes(body), 0)
	if len(kind) > 64 || strings.ContainsAny(kind, " \t\r\n") {
		return ""
	}
	return kind
}

// errorIn finds the error v reports: its kind and message.
func errorIn(v gjson.Result, depth int) (kind, msg string) {
	if depth > maxErrorDepth {
		return "", ""
	}
	if v.IsArray() {
		for _, el := range v.Array() {
			if k, m := errorIn(el, depth+1); k != "" || m != "" {
				return k, m
			}
		}
		return "", ""
	}
	if !v.IsObject() {
		return "", ""
	}
	switch e := v.Get("error"); {
	case e.Type == gjson.String:
		return "", e.String()
	case e.IsObject():
		return errorObject(e, depth)
	}
	if v.Get("object").String() == "error" || v.Get("message").Exists() {
		return errorObject(v, depth)
	}
	if d := v.Get("detail"); d.Exists() {
		return detail(d)
	}
	return "", ""
}

// errorObject reads {"message", "code"|"type"|"status", "metadata":{"raw"}}.
func errorObject(e gjson.Result, depth int) (kind, msg string) {
	for _, k := range []string{"code", "type", "status"} {
		if f := e.Get(k); f.Type == gjson.String && f.String() != "" && !(k == "code" && statusCode(f.String())) {
			kind = f.String()
			break
		}
	}
	switch m := e.Get("message"); {
	case m.Type == gjson.String:
		msg = m.String()
	case m.IsObject() || m.IsArray():
		// vLLM wraps FastAPI's validation error in its message
		k, inner := errorIn(m, depth+1)
		if inner == "" {
			inner = m.Raw
		}
		msg = inner
		if kind == "" {
			kind = k
		}
	}
	if d := e.Get("detail"); msg == "" && d.Exists() {
		k, m := detail(d)
		msg = m
		if kind == "" {
			kind = k
		}
	}
	// OpenRouter: "Provider returned error" says nothing; the upstream's
	// own error is in metadata.raw, as JSON or as text.
	if raw := e.Get("metadata.raw"); raw.Type == gjson.String && raw.String() != "" {
		up := raw.String()
		if gjson.Valid(up) {
			if _, m := errorIn(gjson.Parse(up), depth+1); m != "" {
				up = m
			}
		}
		if msg == "" {
			msg = up
		} else {
			msg += ": " + up
		}
	}
	return kind, msg
}

// statusCode reports whether a code is an HTTP status written as a string
// (LiteLLM's "401"): like a numeric code it only repeats the status.
func statusCode(code string) bool {
	if len(code) != 3 || code[0] < '1' || code[0] > '5' {
		return false
	}
	return strings.Trim(code, "0123456789") == ""
}

// detail reads FastAPI's "detail": a string, or a list of
// {"type", "loc", "msg"} (the first one, with where it points).
func detail(d gjson.Result) (kind, msg string) {
	if d.Type == gjson.String {
		return "", d.String()
	}
	first := d
	if d.IsArray() {
		first = d.Get("0")
	}
	if !first.IsObject() {
		return "", ""
	}
	msg = first.Get("msg").String()
	var loc []string
	for _, p := range first.Get("loc").Array() {
		loc = append(loc, p.String())
	}
	if len(loc) > 0 {
		msg += " (" + strings.Join(loc, ".") + ")"
	}
	return first.Get("type").String(), msg
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
