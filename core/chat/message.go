package chat

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/tidwall/gjson"

	"trail/logfmt"
)

// Roles and states of Robota's TUniversalMessage.
const (
	RoleSystem    = "system"
	RoleUser      = "user"
	RoleAssistant = "assistant"
	RoleTool      = "tool"

	StateComplete    = "complete"
	StateInterrupted = "interrupted"
)

// InterruptedNote is appended to an interrupted assistant message when it is
// sent to a provider again, so the model knows its answer was cut.
const InterruptedNote = logfmt.InterruptedNote

// ToolCall is one function call of an assistant message (OpenAI shape, as
// Robota stores it). Arguments is a JSON string.
type ToolCall struct {
	ID        string `json:"id"`
	Type      string `json:"type"`
	Name      string `json:"-"`
	Arguments string `json:"-"`
}

// Args parses the call's JSON arguments; anything else is kept as a string
// so the log and the tool see exactly what the model sent. An object the
// model encoded once more as a JSON string is unwrapped here, as the tools
// unwrap it: rules, hooks and the question must judge the object that runs.
func (tc ToolCall) Args() json.RawMessage {
	arguments := tc.Arguments
	if arguments == "" {
		return json.RawMessage("{}")
	}
	if !json.Valid([]byte(arguments)) {
		b, _ := json.Marshal(arguments)
		return b
	}
	var inner string
	if json.Unmarshal([]byte(arguments), &inner) == nil {
		if t := strings.TrimSpace(inner); strings.HasPrefix(t, "{") && json.Valid([]byte(t)) {
			return json.RawMessage(t)
		}
	}
	return json.RawMessage(arguments)
}

// Message is Robota's TUniversalMessage. Fields trail does not know are kept
// in Extra, and a message loaded from disk keeps its exact bytes in raw until
// it is changed, so records written by other programs survive a round trip.
type Message struct {
	ID          string
	Role        string
	Content     string
	ContentNull bool // content was JSON null (assistant messages that only call tools)
	State       string
	Timestamp   string
	ToolCalls   []ToolCall
	ToolCallID  string
	Name        string
	Metadata    json.RawMessage // object or nil
	// ProviderData is what the provider that wrote the message needs back
	// on later requests and trail cannot express otherwise (thinking blocks
	// and their signatures, reasoning_content, thought signatures): an
	// object naming its provider, opaque to everything but that provider
	// (provider_data.go).
	ProviderData json.RawMessage
	Extra        logfmt.Object // unknown keys, values as json.RawMessage

	raw     json.RawMessage // the bytes it was loaded from, as the record had them
	compact json.RawMessage // cached compact encoding of a built message, for the log and the estimator
	// compactLen is a loaded message's compact length, once worked out
	// (0: not yet): the estimator's figure, without the bytes.
	compactLen int
	scrubbed   json.RawMessage // cached record bytes, redacted (record_scrub.go)
}

// Loaded reports whether the message still holds the bytes it was decoded
// from: it was neither built nor changed since.
func (m *Message) Loaded() bool { return m.raw != nil }

// Touch forgets the loaded bytes after a change so the message is re-encoded.
func (m *Message) Touch() { m.raw, m.compact, m.scrubbed, m.compactLen = nil, nil, nil, 0 }

// CompactLen is the length of the message's compact JSON (what
// JSON.stringify would give), used by the context estimator.
func (m *Message) CompactLen() int {
	switch {
	case m.compact != nil:
		return len(m.compact)
	case m.compactLen > 0:
		return m.compactLen
	case m.raw != nil:
		m.compactLen = len(logfmt.CompactJSON(m.raw))
		return m.compactLen
	}
	c, err := m.CompactJSON()
	if err != nil {
		return 0
	}
	m.compact = c
	return len(m.compact)
}

// CompactJSON encodes the message without insignificant whitespace (the
// cached encoding, once CompactLen has made it).
//
// A loaded message's compact bytes are made anew each time, not kept: a
// resume hashes every message of the conversation once, and keeping all
// of them would hold a second copy of a long session in memory.
func (m *Message) CompactJSON() (json.RawMessage, error) {
	if m.compact != nil {
		return m.compact, nil
	}
	if m.raw != nil {
		c := logfmt.CompactJSON(m.raw)
		m.compactLen = len(c)
		return c, nil
	}
	return logfmt.Marshal(m.object())
}

// AppendCompactJSON appends CompactJSON's bytes to dst, for a caller that
// uses them at once (a digest): a loaded message is compacted straight
// into dst.
func (m *Message) AppendCompactJSON(dst []byte) ([]byte, error) {
	if m.compact == nil && m.raw != nil {
		n := len(dst)
		dst = logfmt.AppendCompactJSON(dst, m.raw)
		m.compactLen = len(dst) - n
		return dst, nil
	}
	c, err := m.CompactJSON()
	return append(dst, c...), err
}

// WithInterruptedNote is the message as a request sends an interrupted
// answer again: InterruptedNote after its content. Its compact JSON is
// logfmt.RequestForm of the message's, every other byte kept, so the log
// proves the request from the message it logged.
func (m Message) WithInterruptedNote() Message {
	c, err := m.CompactJSON()
	m.Content += InterruptedNote
	m.Touch()
	if err == nil {
		m.compact = logfmt.RequestForm(c)
	}
	return m
}

// CompactBytes drops the whitespace outside strings of valid JSON
// (logfmt.CompactJSON, for the providers, which see chat and not the log).
func CompactBytes(data []byte) []byte { return logfmt.CompactJSON(data) }

// DecodeMessage reads a message from JSON, keeping unknown keys.
func DecodeMessage(raw json.RawMessage) (Message, error) {
	if !gjson.ValidBytes(raw) {
		return Message{}, fmt.Errorf("message is not valid JSON")
	}
	return decodeValidMessage(raw)
}

// decodeValidMessage is DecodeMessage for bytes already validated (a
// record's messages: the store validates the whole record once).
func decodeValidMessage(raw json.RawMessage) (Message, error) {
	res := gjson.ParseBytes(raw)
	if !res.IsObject() {
		return Message{}, fmt.Errorf("message is not a JSON object")
	}
	m := Message{raw: raw}
	res.ForEach(func(k, v gjson.Result) bool {
		switch k.String() {
		case "id":
			m.ID = v.String()
		case "role":
			m.Role = v.String()
		case "content":
			if v.Type == gjson.Null {
				m.ContentNull = true
			} else if v.Type == gjson.String {
				m.Content = v.String()
			} else {
				// content parts or other shapes: keep them untouched
				m.Extra = append(m.Extra, logfmt.F("content", json.RawMessage(v.Raw)))
			}
		case "state":
			m.State = v.String()
		case "timestamp":
			m.Timestamp = v.String()
		case "toolCalls":
			if v.IsArray() {
				v.ForEach(func(_, tc gjson.Result) bool {
					m.ToolCalls = append(m.ToolCalls, ToolCall{
						ID:        tc.Get("id").String(),
						Type:      tc.Get("type").String(),
						Name:      tc.Get("function.name").String(),
						Arguments: tc.Get("function.arguments").String(),
					})
					return true
				})
			} else {
				m.Extra = append(m.Extra, logfmt.F("toolCalls", json.RawMessage(v.Raw)))
			}
		case "toolCallId":
			m.ToolCallID = v.String()
		case "name":
			m.Name = v.String()
		case "metadata":
			if v.IsObject() {
				m.Metadata = json.RawMessage(v.Raw)
			} else {
				m.Extra = append(m.Extra, logfmt.F("metadata", json.RawMessage(v.Raw)))
			}
		case providerDataKey:
			if v.IsObject() {
				m.ProviderData = json.RawMessage(v.Raw)
			} else {
				m.Extra = append(m.Extra, logfmt.F(providerDataKey, json.RawMessage(v.Raw)))
			}
		default:
			m.Extra = append(m.Extra, logfmt.F(k.String(), json.RawMessage(v.Raw)))
		}
		return true
	})
	return m, nil
}

// MarshalJSON writes the message compact, with Robota's key order: id,
// role, content, state, timestamp, toolCalls, toolCallId, name, metadata,
// then trail's providerData, then unknown keys. A loaded, unchanged message keeps its exact values.
func (m Message) MarshalJSON() ([]byte, error) {
	return m.CompactJSON()
}

// RecordJSON is the message as the record stores it: the loaded bytes when
// unchanged (so a save rewrites nothing it did not change), else compact
// JSON for the store to indent.
func (m *Message) RecordJSON() (json.RawMessage, error) {
	if m.raw != nil {
		return m.raw, nil
	}
	return m.CompactJSON()
}

// Scrubbed is RecordJSON passed through scrub, worked out once and kept
// until the message changes (Touch): a long conversation saved every round
// redacts each message once.
func (m *Message) Scrubbed(scrub func(json.RawMessage) (json.RawMessage, error)) (json.RawMessage, error) {
	if m.scrubbed != nil {
		return m.scrubbed, nil
	}
	raw, err := m.RecordJSON()
	if err != nil {
		return nil, err
	}
	clean, err := scrub(raw)
	if err != nil {
		return nil, err
	}
	m.scrubbed = clean
	return clean, nil
}

func (m Message) object() logfmt.Object {
	o := make(logfmt.Object, 0, 10+len(m.Extra))
	o = append(o, logfmt.F("id", m.ID), logfmt.F("role", m.Role))
	if m.ContentNull {
		o = append(o, logfmt.F("content", nil))
	} else if !m.hasExtra("content") {
		o = append(o, logfmt.F("content", m.Content))
	}
	o = append(o, logfmt.F("state", m.State), logfmt.F("timestamp", m.Timestamp))
	if len(m.ToolCalls) > 0 {
		o = append(o, logfmt.F("toolCalls", ToolCallObjects(m.ToolCalls)))
	}
	if m.ToolCallID != "" {
		o = append(o, logfmt.F("toolCallId", m.ToolCallID))
	}
	if m.Name != "" {
		o = append(o, logfmt.F("name", m.Name))
	}
	if len(m.Metadata) > 0 {
		o = append(o, logfmt.F("metadata", m.Metadata))
	}
	if len(m.ProviderData) > 0 {
		o = append(o, logfmt.F(providerDataKey, m.ProviderData))
	}
	return append(o, m.Extra...)
}

// ToolCallObjects are tool calls as Robota writes them: {id, type,
// function: {name, arguments}}, type "function" when none was given.
func ToolCallObjects(calls []ToolCall) []any {
	out := make([]any, len(calls))
	for i, tc := range calls {
		typ := tc.Type
		if typ == "" {
			typ = "function"
		}
		out[i] = logfmt.Object{
			logfmt.F("id", tc.ID),
			logfmt.F("type", typ),
			logfmt.F("function", logfmt.Object{logfmt.F("name", tc.Name), logfmt.F("arguments", tc.Arguments)}),
		}
	}
	return out
}

// ContentText is the content as Robota's JSON.stringify shows content that
// is not a string: "null", or the compact JSON of content parts.
func (m Message) ContentText() string {
	if m.ContentNull {
		return "null"
	}
	if raw, ok := m.extra("content"); ok {
		return string(logfmt.CompactJSON(raw))
	}
	return m.Content
}

func (m Message) hasExtra(key string) bool {
	_, ok := m.extra(key)
	return ok
}

// extra is the raw value of an unknown key (or of a known key whose value
// had a shape trail does not type, such as content parts).
func (m Message) extra(key string) (json.RawMessage, bool) {
	for _, f := range m.Extra {
		if f.Key == key {
			raw, ok := f.Value.(json.RawMessage)
			return raw, ok
		}
	}
	return nil, false
}

// MessageUsage is the provider usage stored in an assistant message's metadata.
type MessageUsage struct {
	InputTokens  int64
	OutputTokens int64
	TotalTokens  int64
}

// Usage reads the usage Robota stores in metadata (usage.totalTokens, or
// inputTokens + outputTokens). ok is false when the message carries none.
func (m Message) Usage() (u MessageUsage, ok bool) {
	if len(m.Metadata) == 0 {
		return u, false
	}
	md := gjson.ParseBytes(m.Metadata)
	in, out := md.Get("inputTokens"), md.Get("outputTokens")
	tot := md.Get("usage.totalTokens")
	if !in.Exists() && !out.Exists() && !tot.Exists() {
		in, out = md.Get("usage.inputTokens"), md.Get("usage.outputTokens")
		if !in.Exists() && !out.Exists() {
			return u, false
		}
	}
	u.InputTokens, u.OutputTokens = in.Int(), out.Int()
	u.TotalTokens = tot.Int()
	if u.TotalTokens == 0 {
		u.TotalTokens = u.InputTokens + u.OutputTokens
	}
	return u, true
}
