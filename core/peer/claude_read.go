package peer

import (
	"slices"
	"strings"

	"github.com/tidwall/gjson"

	"trail/core/chat"
	"trail/logfmt"
)

// Claude Code's transcript (~/.claude/projects/<cwd>/<sessionId>.jsonl):
// one entry a line, chained into a tree by uuid and parentUuid. The
// conversation is the chain from the last user, assistant or system entry
// back to the root; a compact_boundary starts a new root, whose
// logicalParentUuid leads on to what came before, so the transcript keeps
// it and the compaction is marked where it happened. Entries off the chain
// (rewound branches, subagents' sidechains) and entries with no uuid
// (queue-operation, last-prompt, mode, summary, …) are skipped.
//
// An answer may span several assistant lines (one content block each, the
// same message.id): they make one message. Tool results come back as user
// lines of tool_result blocks, one tool message each.

const (
	reasonNoEquivalent = "no equivalent in a trail session"
	reasonTextOnly     = "trail messages hold text, tool calls and tool results only"
)

func readClaude(lines []srcLine) (*Conversation, error) {
	b := newBuilder(Claude)
	c := b.c
	chain := claudeChain(lines)
	on := make(map[int]bool, len(chain))
	for _, i := range chain {
		on[i] = true
	}
	for i, l := range lines {
		if c.SourceID == "" {
			c.SourceID = l.get("sessionId").Str
		}
		if c.StartedAt == "" {
			c.StartedAt = isoTime(l.get("timestamp").Str)
		}
		switch t := l.get("type").Str; {
		case t == "custom-title" && l.get("customTitle").Type == gjson.String:
			c.Name = l.get("customTitle").Str
		case t == "summary" && l.get("summary").Type == gjson.String && c.Name == "":
			c.Name = l.get("summary").Str
		}
		if on[i] {
			continue
		}
		switch {
		case l.get("isSidechain").Bool():
			b.skip(l.num, claudeType(l), "a subagent's conversation (sidechain)", l.raw)
		case l.get("uuid").Str != "" && claudeChainType(l.get("type").Str):
			b.skip(l.num, claudeType(l), "not on the conversation's active branch (rewound or edited away)", l.raw)
		default:
			b.skip(l.num, claudeType(l), reasonNoEquivalent, l.raw)
		}
	}
	r := claudeReader{b: b}
	for k := 0; k < len(chain); k++ {
		l := lines[chain[k]]
		if c.Cwd == "" {
			c.Cwd = l.get("cwd").Str
		}
		switch l.get("type").Str {
		case "user":
			r.user(l)
		case "assistant":
			r.assistant(l)
		case "system":
			if l.get("subtype").Str != "compact_boundary" {
				b.skip(l.num, claudeType(l), reasonNoEquivalent, l.raw)
				continue
			}
			comp := Compaction{Source: "compact_boundary"}
			if k+1 < len(chain) {
				if next := lines[chain[k+1]]; next.get("type").Str == "user" && next.get("isCompactSummary").Bool() {
					text, other := claudeUserText(next.get("message.content"))
					b.skipParts(next.num, "user", other)
					md := logfmt.Object{logfmt.F("importedId", next.get("uuid").Str), logfmt.F("synthetic", true), logfmt.F("sourceType", "isCompactSummary")}
					comp.Summary = append(comp.Summary, newMessage(chat.RoleUser, text, isoTime(next.get("timestamp").Str), md))
					k++
				}
			}
			b.compaction(l.num, comp)
			r.msgID = ""
		default:
			b.skip(l.num, claudeType(l), reasonNoEquivalent, l.raw)
		}
	}
	if r.model != "" {
		c.Provider, c.Model = "anthropic", r.model
	}
	return b.finish(), nil
}

// claudeChainType reports whether entries of type typ make up a
// conversation's chain; others (progress) hang off it without being part
// of it.
func claudeChainType(typ string) bool {
	switch typ {
	case "user", "assistant", "system", "attachment":
		return true
	}
	return false
}

// claudeType names an entry for import_skipped: its type, with the
// subtype or attachment type that says what it was.
func claudeType(l srcLine) string {
	t := l.get("type").Str
	if t == "" {
		t = "(no type)"
	}
	if st := l.get("subtype").Str; st != "" {
		return t + "/" + st
	}
	if at := l.get("attachment.type").Str; at != "" {
		return t + "/" + at
	}
	return t
}

// claudeChain returns the indices of the active chain, root first.
func claudeChain(lines []srcLine) []int {
	byUUID := map[string]int{}
	leaf := -1
	for i, l := range lines {
		u := l.get("uuid").Str
		if u == "" {
			continue
		}
		byUUID[u] = i
		switch l.get("type").Str {
		case "user", "assistant", "system":
			if !l.get("isSidechain").Bool() {
				leaf = i
			}
		}
	}
	var chain []int
	seen := map[int]bool{}
	for i := leaf; i >= 0 && !seen[i]; {
		seen[i] = true
		chain = append(chain, i)
		parent := lines[i].get("parentUuid").Str
		if parent == "" {
			parent = lines[i].get("logicalParentUuid").Str
		}
		next, ok := byUUID[parent]
		if !ok {
			break
		}
		i = next
	}
	slices.Reverse(chain)
	return chain
}

// claudeReader keeps the answer being read, whose later lines join it.
type claudeReader struct {
	b         *builder
	msgID     string // message.id of the last assistant message
	firstUUID string // the uuid of its first line
	cur       *chat.Message
	model     string
}

func (r *claudeReader) user(l srcLine) {
	b := r.b
	content := l.get("message.content")
	ts := isoTime(l.get("timestamp").Str)
	md := logfmt.Object{logfmt.F("importedId", l.get("uuid").Str)}
	switch {
	case l.get("isMeta").Bool():
		md = append(md, logfmt.F("synthetic", true), logfmt.F("sourceType", "isMeta"))
	case l.get("isCompactSummary").Bool():
		md = append(md, logfmt.F("synthetic", true), logfmt.F("sourceType", "isCompactSummary"))
	}
	if content.Type == gjson.String {
		b.message(l.num, newMessage(chat.RoleUser, content.Str, ts, md))
		r.msgID = ""
		return
	}
	if !content.IsArray() {
		b.skip(l.num, "user", "a user entry without message.content", l.raw)
		return
	}
	var texts []string
	content.ForEach(func(_, blk gjson.Result) bool {
		switch blk.Get("type").Str {
		case "tool_result":
			text, other := claudeUserText(blk.Get("content"))
			b.skipParts(l.num, "user/tool_result", other)
			tmd := logfmt.Object{logfmt.F("importedId", l.get("uuid").Str), logfmt.F("success", !blk.Get("is_error").Bool())}
			m := newMessage(chat.RoleTool, text, ts, tmd)
			m.ToolCallID = blk.Get("tool_use_id").Str
			if !b.result(l.num, m) {
				b.skip(l.num, "user/tool_result", "answers no call of the answer before it", []byte(blk.Raw))
			}
		case "text":
			texts = append(texts, blk.Get("text").Str)
		default:
			b.skipParts(l.num, "user", []gjson.Result{blk})
		}
		return true
	})
	if len(texts) > 0 {
		b.message(l.num, newMessage(chat.RoleUser, strings.Join(texts, "\n\n"), ts, md))
		r.msgID = ""
	}
}

func (r *claudeReader) assistant(l srcLine) {
	b := r.b
	msg := l.get("message")
	if l.get("isApiErrorMessage").Bool() || msg.Get("model").Str == "<synthetic>" {
		b.skip(l.num, "assistant", "an error Claude Code showed in place of an answer, not the model's", l.raw)
		return
	}
	var texts []string
	var calls []chat.ToolCall
	msg.Get("content").ForEach(func(_, blk gjson.Result) bool {
		switch blk.Get("type").Str {
		case "text":
			texts = append(texts, blk.Get("text").Str)
		case "tool_use":
			calls = append(calls, chat.ToolCall{ID: blk.Get("id").Str, Type: "function", Name: blk.Get("name").Str, Arguments: rawArgs(blk.Get("input"))})
		default:
			b.skipParts(l.num, "assistant", []gjson.Result{blk})
		}
		return true
	})
	if msg.Get("content").Type == gjson.String { // not what Claude Code writes, but what the API allows
		texts = append(texts, msg.Get("content").Str)
	}
	if model := msg.Get("model").Str; model != "" {
		r.model = model
	}
	id := msg.Get("id").Str
	if id != "" && id == r.msgID && r.cur != nil && r.cur == b.lastAssistant(true) {
		b.addCalls(l.num, true, strings.Join(texts, "\n\n"), "", calls, nil)
		r.cur.Metadata, _ = logfmt.Marshal(claudeAnswerMeta(r.firstUUID, msg))
		return
	}
	r.firstUUID = l.get("uuid").Str
	m := newMessage(chat.RoleAssistant, strings.Join(texts, "\n\n"), isoTime(l.get("timestamp").Str), claudeAnswerMeta(r.firstUUID, msg))
	m.ToolCalls = calls
	b.assistant(l.num, m)
	r.msgID, r.cur = id, b.c.Items[len(b.c.Items)-1].Message
}

// claudeAnswerMeta is an answer's metadata: the uuid of its first line,
// the model, why it stopped, and its usage (the API's input tokens, cache
// reads and writes included, as the context they took), as its last line
// has them.
func claudeAnswerMeta(firstUUID string, msg gjson.Result) logfmt.Object {
	md := logfmt.Object{logfmt.F("importedId", firstUUID)}
	if id := msg.Get("id").Str; id != "" {
		md = append(md, logfmt.F("messageId", id))
	}
	if m := msg.Get("model").Str; m != "" {
		md = append(md, logfmt.F("model", m))
	}
	if sr := msg.Get("stop_reason").Str; sr != "" {
		md = append(md, logfmt.F("stopReason", sr))
	}
	if u := msg.Get("usage"); u.IsObject() {
		in := u.Get("input_tokens").Int() + u.Get("cache_creation_input_tokens").Int() + u.Get("cache_read_input_tokens").Int()
		md = usage(md, in, u.Get("output_tokens").Int())
	}
	return md
}

// claudeUserText is a tool result's or a prompt's text: a string, or its
// text blocks joined, and the blocks of other kinds it left out.
func claudeUserText(v gjson.Result) (string, []gjson.Result) {
	if v.Type == gjson.String || !v.IsArray() {
		return textOf(v), nil
	}
	return joinTexts(v, "text", "\n\n")
}
