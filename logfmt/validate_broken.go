package logfmt

import "bytes"

// A line that is not JSON is reported once (LOG_LINE_INVALID_JSON), and
// only once: the request or answer it was must not also come back as its
// partners' errors (a cut provider_request line made every response of
// its round an orphan: ten errors for one broken line). trail writes the
// envelope and the keys first ("event", "executionId", "round",
// "toolCallId", "payloadKind" come before any message or payload), so a
// line cut later still says what it was; that line then counts for its
// key as the event it was. A line too broken to say (cut within its first
// keys) counts for nothing, and its partners are reported as before.
// A torn last line is not read this way: it is the step a kill cut short,
// whose missing answers are real.

// brokenLine counts a broken line for the request or answer its start names.
func (v *validator) brokenLine(l Line) {
	b := l.Bytes
	var e entry
	e.event = firstString(b, "event")
	event := unquoteToken(e.event)
	switch event {
	case "provider_request", "provider_response_raw", "provider_response_normalized", "provider_native_raw_payload":
		e.executionID = firstString(b, "executionId")
		e.round = firstNumber(b, "round")
		e.payloadKind = firstString(b, "payloadKind")
		v.provider(l, &e, event)
	case "tool_execution_request", "tool_execution_result":
		e.executionID = firstString(b, "executionId")
		e.toolCallID = firstString(b, "toolCallId")
		e.toolExecutionID = firstString(b, "toolExecutionId")
		v.tool(l, &e, event)
	case "history_mutation":
		// The message it appended still took its place: the indexes
		// after it are not off by one.
		switch unquoteToken(firstString(b, "mutation")) {
		case "append_message":
			v.appended = true
			if v.position >= 0 {
				v.position++
			}
		case "replace_all":
			v.appended, v.position = true, -1
		}
	}
}

// firstString is the raw string token (quotes included) after the first
// "key": in b, or nil when there is none or it is cut.
func firstString(b []byte, key string) []byte {
	rest := afterKey(b, key)
	if len(rest) == 0 || rest[0] != '"' {
		return nil
	}
	for i := 1; i < len(rest); i++ {
		switch rest[i] {
		case '\\':
			i++
		case '"':
			return rest[:i+1]
		}
	}
	return nil
}

// firstNumber is the raw number token after the first "key": in b, or nil.
func firstNumber(b []byte, key string) []byte {
	rest := afterKey(b, key)
	n := 0
	for n < len(rest) && (rest[n] >= '0' && rest[n] <= '9' || rest[n] == '-' || rest[n] == '.' || rest[n] == 'e' || rest[n] == 'E' || rest[n] == '+') {
		n++
	}
	if n == 0 || n == len(rest) { // none, or cut: the number may go on
		return nil
	}
	return rest[:n]
}

// afterKey returns what follows `"key"` and its colon, spaces skipped.
func afterKey(b []byte, key string) []byte {
	pat := append(append([]byte{'"'}, key...), '"')
	i := bytes.Index(b, pat)
	if i < 0 {
		return nil
	}
	rest := bytes.TrimLeft(b[i+len(pat):], " \t")
	if len(rest) == 0 || rest[0] != ':' {
		return nil
	}
	return bytes.TrimLeft(rest[1:], " \t")
}
