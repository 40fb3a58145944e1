package peer

import (
	"encoding/json"
	"fmt"
	"strconv"
	"time"

	"github.com/tidwall/gjson"

	"trail/core/chat"
	"trail/logfmt"
)

// Formats Read knows.
const (
	Claude = "claude"
	Codex  = "codex"
	Gemini = "gemini"
	Pi     = "pi"
)

// Formats lists them in the order help and errors name them.
var Formats = []string{Claude, Codex, Gemini, Pi}

// AgentName is the name of the agent that writes a format ("Claude Code"),
// for messages people read.
func AgentName(format string) string {
	switch format {
	case Claude:
		return "Claude Code"
	case Codex:
		return "Codex"
	case Gemini:
		return "Gemini CLI"
	}
	return format
}

// Conversation is another agent's session as trail messages.
type Conversation struct {
	Format    string
	SourceID  string // the session id the source gave itself
	Cwd       string // the working directory it ran in; "" when it does not say
	StartedAt string // its first timestamp (ISO), "" when it has none
	Name      string // a title the source gave the session
	// System is the source's own system prompt, when it stored one (Codex);
	// nil otherwise, and trail's prompt applies.
	System *string
	// Provider and Model are the trail provider the source talked to, when
	// trail has one like it ("anthropic" for Claude Code), and its model.
	Provider, Model string
	Items           []Item
	Skipped         []Skip
	Added           int // tool results trail added for calls the source left unanswered
	Entries         int // entries (non-blank lines, or records) read
}

// Item is one step of the conversation: a message, or a compaction.
type Item struct {
	Line       int // the source line it came from; 0 for what trail added
	Message    *chat.Message
	Compaction *Compaction
}

// Compaction replaces the conversation so far, as the source's own
// compaction did: the new context is the system message, Summary, then
// the last KeepLast messages of the context before it.
type Compaction struct {
	Summary  []chat.Message
	KeepLast int
	Source   string // what the source called it ("compact_boundary")
}

// Skip is an entry, or part of one, that has no equivalent in a trail
// session. It is kept in the log (import_skipped), never dropped in silence.
type Skip struct {
	Line   int
	Type   string // the source's type ("queue-operation", "assistant/thinking")
	Reason string
	Entry  json.RawMessage // the entry or part as the source wrote it
}

// Messages is the messages of the conversation, compactions aside.
func (c *Conversation) Messages() []chat.Message {
	var out []chat.Message
	for _, it := range c.Items {
		if it.Message != nil {
			out = append(out, *it.Message)
		}
	}
	return out
}

func (c *Conversation) hasMessage() bool {
	for _, it := range c.Items {
		if it.Message != nil {
			return true
		}
	}
	return false
}

// SkippedByType counts the skipped entries by type, for summaries.
func (c *Conversation) SkippedByType() (types []string, counts map[string]int) {
	counts = map[string]int{}
	for _, s := range c.Skipped {
		if counts[s.Type] == 0 {
			types = append(types, s.Type)
		}
		counts[s.Type]++
	}
	return types, counts
}

// builder assembles a conversation in order and keeps trail's rule that
// every tool call of an assistant message is answered before the
// conversation goes on.
type builder struct {
	c       *Conversation
	pending []pendingCall   // calls of the last assistant message still unanswered
	callsAt string          // the timestamp of the message that made them
	usedIDs map[string]bool // tool call ids seen, so a repeated id is made unique
}

// pendingCall is a call awaiting its result, under the id the source gave
// it (orig) when callID had to make it another.
type pendingCall struct {
	chat.ToolCall
	orig string
}

func newBuilder(format string) *builder {
	return &builder{c: &Conversation{Format: format}, usedIDs: map[string]bool{}}
}

// message adds a user or system message; the open round is closed first.
func (b *builder) message(line int, m chat.Message) {
	b.closeRound()
	b.push(line, m)
}

// assistant adds an assistant message, whose calls open a round.
func (b *builder) assistant(line int, m chat.Message) {
	b.closeRound()
	for i := range m.ToolCalls {
		orig := m.ToolCalls[i].ID
		m.ToolCalls[i].ID = b.callID(orig, line, i)
		b.pending = append(b.pending, pendingCall{m.ToolCalls[i], orig})
	}
	b.push(line, m)
	b.callsAt = m.Timestamp
}

// lastAssistant is the conversation's last assistant message when nothing
// came after it, or (afterResults) nothing but its own results (a result
// is only ever added for a call of the open round): calls and text of the
// same answer that the source wrote on separate lines join it.
func (b *builder) lastAssistant(afterResults bool) *chat.Message {
	for i := len(b.c.Items) - 1; i >= 0; i-- {
		m := b.c.Items[i].Message
		switch {
		case m == nil:
			return nil
		case m.Role == chat.RoleTool && afterResults:
			continue
		case m.Role == chat.RoleAssistant:
			return m
		default:
			return nil
		}
	}
	return nil
}

// addCalls adds text and calls to the last assistant message (see
// lastAssistant), or to a new one with metadata md when there is none, and
// returns it.
func (b *builder) addCalls(line int, afterResults bool, text, timestamp string, calls []chat.ToolCall, md logfmt.Object) *chat.Message {
	m := b.lastAssistant(afterResults)
	if m == nil {
		b.assistant(line, newMessage(chat.RoleAssistant, text, timestamp, md))
		m = b.c.Items[len(b.c.Items)-1].Message
	} else if text != "" {
		if m.Content != "" {
			m.Content += "\n\n"
		}
		m.Content += text
	}
	for _, tc := range calls {
		orig := tc.ID
		tc.ID = b.callID(orig, line, len(m.ToolCalls))
		m.ToolCalls = append(m.ToolCalls, tc)
		b.pending = append(b.pending, pendingCall{tc, orig})
	}
	return m
}

// result adds a tool result when it answers a pending call (its name is the
// call's when the source gave none; its call id the one the call got), and
// reports whether it did.
func (b *builder) result(line int, m chat.Message) bool {
	for i, tc := range b.pending {
		if tc.ID != m.ToolCallID && tc.orig != m.ToolCallID {
			continue
		}
		m.ToolCallID = tc.ID
		if m.Name == "" {
			m.Name = tc.Name
		}
		b.pending = append(b.pending[:i], b.pending[i+1:]...)
		b.push(line, m)
		return true
	}
	return false
}

// closeRound answers each call still pending with a result trail adds.
func (b *builder) closeRound() {
	for _, tc := range b.pending {
		content, _ := logfmt.Marshal(logfmt.Object{
			logfmt.F("success", false),
			logfmt.F("output", ""),
			logfmt.F("error", fmt.Sprintf("no result was recorded in the %s session for this call", AgentName(b.c.Format))),
		})
		md := logfmt.Object{logfmt.F("synthetic", true), logfmt.F("sourceType", "missing_result"), logfmt.F("success", false)}
		m := newMessage(chat.RoleTool, string(content), b.callsAt, md)
		m.ToolCallID, m.Name = tc.ID, tc.Name
		b.push(0, m)
		b.c.Added++
	}
	b.pending = nil
}

func (b *builder) compaction(line int, c Compaction) {
	b.closeRound()
	b.c.Items = append(b.c.Items, Item{Line: line, Compaction: &c})
}

func (b *builder) skip(line int, typ, reason string, entry []byte) {
	b.c.Skipped = append(b.c.Skipped, Skip{Line: line, Type: typ, Reason: reason, Entry: append(json.RawMessage(nil), entry...)})
}

func (b *builder) push(line int, m chat.Message) {
	b.c.Items = append(b.c.Items, Item{Line: line, Message: &m})
}

// callID keeps the source's call id, unless it is empty or already used
// (providers pair results with calls by id): then one is made from the line.
func (b *builder) callID(id string, line, i int) string {
	if id == "" || b.usedIDs[id] {
		base := "call_l" + strconv.Itoa(line) + "_" + strconv.Itoa(i)
		id = base
		for n := 2; b.usedIDs[id]; n++ {
			id = base + "_" + strconv.Itoa(n)
		}
	}
	b.usedIDs[id] = true
	return id
}

// finish closes the last round and returns the conversation.
func (b *builder) finish() *Conversation {
	b.closeRound()
	return b.c
}

// skipParts notes the blocks of an entry that trail has no place for.
func (b *builder) skipParts(line int, prefix string, parts []gjson.Result) {
	for _, p := range parts {
		t := p.Get("type").Str
		switch {
		case t != "":
		case p.Get("thought").Bool():
			t = "thought"
		default:
			t = firstKey(p)
		}
		b.skip(line, prefix+"/"+t, reasonTextOnly, []byte(p.Raw))
	}
}

// firstKey names a part that has no type by its first key (Gemini's
// {"inlineData": …}).
func firstKey(p gjson.Result) string {
	k := "(no type)"
	p.ForEach(func(key, _ gjson.Result) bool {
		k = key.Str
		return false
	})
	return k
}

// appendMeta adds fields to a message's metadata object, keeping what it
// holds and its order.
func appendMeta(m *chat.Message, fields ...logfmt.Field) {
	add, err := logfmt.Marshal(logfmt.Object(fields))
	if err != nil || len(fields) == 0 {
		return
	}
	if len(m.Metadata) < 2 || string(m.Metadata) == "{}" {
		m.Metadata = add
		return
	}
	md := append(json.RawMessage(nil), m.Metadata[:len(m.Metadata)-1]...)
	md = append(md, ',')
	m.Metadata = append(md, add[1:]...)
}

// newMessage builds a complete message; md becomes its metadata.
func newMessage(role, content, timestamp string, md logfmt.Object) chat.Message {
	m := chat.Message{Role: role, Content: content, State: chat.StateComplete, Timestamp: timestamp}
	if len(md) > 0 {
		m.Metadata, _ = logfmt.Marshal(md)
	}
	return m
}

// isoTime normalizes a source timestamp to trail's form (ISO, ms, Z);
// "" when it does not parse.
func isoTime(s string) string {
	for _, layout := range []string{time.RFC3339Nano, "2006-01-02T15:04:05.000Z07:00"} {
		if t, err := time.Parse(layout, s); err == nil {
			return logfmt.FormatTime(t)
		}
	}
	return ""
}

// unixMillis formats a JavaScript Date.now() value.
func unixMillis(ms int64) string {
	if ms <= 0 {
		return ""
	}
	return logfmt.FormatTime(time.UnixMilli(ms))
}

// usage is the metadata trail keeps of an answer's token usage (the keys
// commitAssistant writes), appended to md.
func usage(md logfmt.Object, in, out int64) logfmt.Object {
	return append(md,
		logfmt.F("inputTokens", in),
		logfmt.F("outputTokens", out),
		logfmt.F("usage", logfmt.Object{
			logfmt.F("totalTokens", in+out),
			logfmt.F("inputTokens", in),
			logfmt.F("outputTokens", out),
		}))
}
