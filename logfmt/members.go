package logfmt

import (
	"bytes"
	"math"
	"strconv"
	"time"

	"trail/lazy"
)

// entry is what readers need from one log line, as raw JSON tokens that
// point into the line: the envelope and the few data keys that replay and
// validation match on. Big values (messages, payloads, results) are only
// skipped over, never decoded.
type entry struct {
	timestamp, sessionID, event, seq []byte

	executionID, round, toolCallID, toolExecutionID []byte
	payloadKind, mutation, index                    []byte
	message, messages                               []byte
	cwd, systemPrompt                               []byte
}

// Data keys, grouped by the events that use them.
const (
	wantProvider = 1 << iota
	wantTool
	wantNative
	wantMutation
	wantInit
)

// wantsOf says which keys an event needs; scanning stops once they are all
// seen, so a line's big trailing values are only skipped when a key might
// still follow them.
func wantsOf(event string) int {
	switch event {
	case "provider_request", "provider_response_raw", "provider_response_normalized":
		return wantProvider
	case "provider_native_raw_payload":
		return wantProvider | wantNative
	case "tool_execution_request", "tool_execution_result":
		return wantTool
	case "history_mutation":
		return wantMutation
	case "session_init":
		return wantInit
	}
	return 0
}

// parseEntry reads the members of a line that isJSONObject accepted. The
// first occurrence of a key wins. keys limits the data keys read: the
// envelope is always read, and an event's own keys when keys < 0.
func parseEntry(line []byte, e *entry, keys int) {
	*e = entry{}
	i := skipSpace(line, 0) + 1 // past '{'
	wanted := -1
	for {
		i = skipSpace(line, i)
		if i >= len(line) || line[i] != '"' {
			return
		}
		kEnd := stringEnd(line, i)
		if kEnd > len(line) {
			return
		}
		key := line[i+1 : kEnd-1]
		i = skipSpace(line, kEnd)
		i = skipSpace(line, i+1) // past ':'
		if i >= len(line) {
			return
		}
		vEnd, err := skipValue(line, i)
		if err != nil {
			return
		}
		if bytes.IndexByte(key, '\\') >= 0 {
			key = []byte(unquote(key))
		}
		if slot := e.slot(key, wanted); slot != nil && *slot == nil {
			*slot = line[i:vEnd]
		}
		if wanted < 0 && e.event != nil {
			wanted = keys
			if keys < 0 {
				wanted = wantsOf(eventName(e.event))
			}
		}
		if wanted >= 0 && e.complete(wanted) {
			return
		}
		i = skipSpace(line, vEnd)
		if i >= len(line) || line[i] != ',' {
			return
		}
		i++
	}
}

// complete reports whether every key the scan wants has been seen, so the
// rest of the line (its big values) need not be skipped over.
func (e *entry) complete(w int) bool {
	if e.timestamp == nil || e.sessionID == nil || e.seq == nil {
		return false // seq may still come; Robota's lines have none and are read to the end
	}
	switch {
	case w&wantProvider != 0 && (e.executionID == nil || e.round == nil),
		w&wantTool != 0 && (e.executionID == nil || e.toolCallID == nil),
		w&wantNative != 0 && e.payloadKind == nil,
		w&wantMutation != 0 && (e.mutation == nil || (e.messages == nil && (e.message == nil || e.index == nil))),
		w&wantInit != 0 && (e.cwd == nil || e.systemPrompt == nil):
		return false
	}
	return true
}

// slot returns where a key's value goes, or nil when it is not wanted.
// Before the event is known (wanted < 0) every known key is kept.
func (e *entry) slot(key []byte, wanted int) *[]byte {
	has := func(w int) bool { return wanted < 0 || wanted&w != 0 }
	switch string(key) {
	case KeyTimestamp:
		return &e.timestamp
	case KeySessionID:
		return &e.sessionID
	case KeyEvent:
		return &e.event
	case KeySeq:
		return &e.seq
	case "executionId":
		if has(wantProvider | wantTool) {
			return &e.executionID
		}
	case "round":
		if has(wantProvider) {
			return &e.round
		}
	case "toolCallId":
		if has(wantTool) {
			return &e.toolCallID
		}
	case "toolExecutionId":
		if has(wantTool) {
			return &e.toolExecutionID
		}
	case "payloadKind":
		if has(wantNative) {
			return &e.payloadKind
		}
	case "mutation":
		if has(wantMutation) {
			return &e.mutation
		}
	case "index":
		if has(wantMutation) {
			return &e.index
		}
	case "message":
		if has(wantMutation) {
			return &e.message
		}
	case "messages":
		if has(wantMutation) {
			return &e.messages
		}
	case "cwd":
		if has(wantInit) {
			return &e.cwd
		}
	case "systemPrompt":
		if has(wantInit) {
			return &e.systemPrompt
		}
	}
	return nil
}

// isString reports whether a raw token is a JSON string.
func isString(tok []byte) bool { return len(tok) >= 2 && tok[0] == '"' }

// unquoteToken decodes a raw JSON string token; anything else is "".
func unquoteToken(tok []byte) string {
	if !isString(tok) {
		return ""
	}
	return unquote(tok[1 : len(tok)-1])
}

// eventName is unquoteToken for a line's event: a name trail writes is
// looked up, not copied, so reading a line allocates nothing for it (a log
// of short lines is a million of them).
func eventName(tok []byte) string {
	if isString(tok) {
		if name, ok := eventNames.Get()[string(tok[1:len(tok)-1])]; ok {
			return name
		}
	}
	return unquoteToken(tok)
}

// eventNames are the events trail writes, each its own key.
var eventNames = lazy.Value[map[string]string]{New: func() map[string]string {
	m := map[string]string{}
	for _, n := range []string{
		"user", "assistant", "text_delta", "thinking_delta", "session_init", "session_shutdown",
		"history_mutation", "provider_request", "provider_response_raw", "provider_response_normalized",
		"provider_native_raw_payload", "provider_stream_raw_delta", "provider_retry",
		"tool_execution_request", "tool_execution_result", "tool_batch_started", "tool_deferred",
		"tool_message_committed", "assistant_message_committed", "permission_decision",
		"requires_action", "context_compact", "hook_run", "hook_stopped",
	} {
		m[n] = n
	}
	return m
}}

// stringIs compares a raw token with a string without allocating when the
// token has no escapes.
func stringIs(tok []byte, s string) bool {
	if !isString(tok) {
		return false
	}
	body := tok[1 : len(tok)-1]
	if bytes.IndexByte(body, '\\') < 0 {
		return string(body) == s
	}
	return unquote(body) == s
}

// isNumber reports whether a raw token is a JSON number.
func isNumber(tok []byte) bool {
	return len(tok) > 0 && (tok[0] == '-' || tok[0] >= '0' && tok[0] <= '9')
}

// numberKey formats a JSON number token the way JavaScript's String(n)
// does for the values a round takes, so "1", "1.0" and "1e0" are one key,
// as they are in Robota's `${executionId}:${round}`.
func numberKey(tok []byte) (string, bool) {
	if !isNumber(tok) {
		return "", false
	}
	f, err := strconv.ParseFloat(string(tok), 64)
	if err != nil || math.IsInf(f, 0) || math.IsNaN(f) {
		return "", false
	}
	if f == 0 {
		return "0", true
	}
	if math.Abs(f) < 1e21 && math.Abs(f) >= 1e-6 {
		return strconv.FormatFloat(f, 'f', -1, 64), true
	}
	return strconv.FormatFloat(f, 'g', -1, 64), true
}

// tokenInt reads a JSON integer token (no fraction, no exponent).
func tokenInt(tok []byte) (int64, bool) {
	if !isNumber(tok) {
		return 0, false
	}
	n, err := strconv.ParseInt(string(tok), 10, 64)
	return n, err == nil
}

// parseTimestamp reads an envelope timestamp. The common shape, Robota's
// and trail's "2006-01-02T15:04:05.000Z", is parsed by hand: time.Parse
// would cost more than the rest of the line's checks.
func parseTimestamp(tok []byte) (time.Time, bool) {
	if !isString(tok) {
		return time.Time{}, false
	}
	s := tok[1 : len(tok)-1]
	if t, ok := parseISOMillis(s); ok {
		return t, true
	}
	t, err := time.Parse(time.RFC3339Nano, unquote(s))
	return t, err == nil
}

func parseISOMillis(s []byte) (time.Time, bool) {
	if len(s) != len(TimeLayout) || s[4] != '-' || s[7] != '-' || s[10] != 'T' || s[13] != ':' ||
		s[16] != ':' || s[19] != '.' || s[23] != 'Z' {
		return time.Time{}, false
	}
	num := func(b []byte) (int, bool) {
		n := 0
		for _, c := range b {
			if c < '0' || c > '9' {
				return 0, false
			}
			n = n*10 + int(c-'0')
		}
		return n, true
	}
	var v [7]int
	for k, r := range [7][2]int{{0, 4}, {5, 7}, {8, 10}, {11, 13}, {14, 16}, {17, 19}, {20, 23}} {
		n, ok := num(s[r[0]:r[1]])
		if !ok {
			return time.Time{}, false
		}
		v[k] = n
	}
	if v[1] < 1 || v[1] > 12 || v[2] < 1 || v[2] > daysIn(v[0], v[1]) || v[3] > 23 || v[4] > 59 || v[5] > 59 {
		return time.Time{}, false
	}
	return time.Date(v[0], time.Month(v[1]), v[2], v[3], v[4], v[5], v[6]*1e6, time.UTC), true
}

func daysIn(year, month int) int {
	return time.Date(year, time.Month(month)+1, 0, 0, 0, 0, 0, time.UTC).Day()
}
