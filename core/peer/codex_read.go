package peer

import (
	"strconv"
	"strings"

	"github.com/tidwall/gjson"

	"trail/core/chat"
	"trail/logfmt"
)

// Codex's rollout (~/.codex/sessions/YYYY/MM/DD/rollout-<ts>-<id>.jsonl):
// one {"timestamp", "type", "payload"} a line, in order. The conversation
// the model sees is the response_item stream; event_msg lines are the
// interface's copies of it (and telemetry), and are skipped, except
// thread_rolled_back, which takes turns back out. session_meta holds the
// system prompt (base_instructions); the first developer message becomes
// the system prompt only when there is none, and later ones are kept as
// user messages marked synthetic, where they were. Each turn opens with a
// turn_context naming its model: the answers of the turn keep it in their
// metadata, as the other agents' answers do.

// codexHarness are the openings of user messages Codex writes itself.
var codexHarness = []struct{ prefix, sourceType string }{
	{"<environment_context>", "environment_context"},
	{"<user_instructions>", "user_instructions"},
	{"# AGENTS.md instructions", "agents_md"},
	{"<turn_aborted>", "turn_aborted"},
}

func readCodex(lines []srcLine) (*Conversation, error) {
	b := newBuilder(Codex)
	c := b.c
	turnModel := ""
	for _, l := range lines {
		p := l.get("payload")
		ts := isoTime(l.get("timestamp").Str)
		typ := l.get("type").Str
		switch typ {
		case "session_meta":
			if c.SourceID == "" {
				c.SourceID = p.Get("id").Str
				if c.SourceID == "" {
					c.SourceID = p.Get("session_id").Str
				}
				c.Cwd = p.Get("cwd").Str
				c.StartedAt = isoTime(p.Get("timestamp").Str)
				if p.Get("model_provider").Str == "openai" {
					c.Provider = "openai"
				}
			}
			if bi := p.Get("base_instructions.text"); bi.Type == gjson.String && c.System == nil && len(c.Items) == 0 {
				text := bi.Str
				c.System = &text
			} else if bi.Exists() {
				b.skip(l.num, "session_meta", "a second system prompt; the session keeps the first", l.raw)
			}
		case "response_item":
			codexItem(b, l, p, ts, turnModel)
		case "compacted":
			codexCompacted(b, l, p, ts)
		case "turn_context":
			if m := p.Get("model").Str; m != "" {
				c.Model = m
			}
			turnModel = p.Get("model").Str
			b.skip(l.num, typ, "the turn's settings; its answers keep the model", l.raw)
		case "token_usage_record":
			if !codexUsage(b, p.Get("usage")) {
				b.skip(l.num, typ, "no answer to give the usage to", l.raw)
			}
		case "event_msg":
			if p.Get("type").Str == "thread_rolled_back" {
				codexRollback(b, l, int(p.Get("num_turns").Int()))
				continue
			}
			b.skip(l.num, "event_msg/"+p.Get("type").Str, "the interface's copy of the conversation, or its telemetry", l.raw)
		default:
			if typ == "" {
				typ = "(no type)"
			}
			b.skip(l.num, typ, reasonNoEquivalent, l.raw)
		}
	}
	if c.Provider == "" {
		c.Model = ""
	}
	return b.finish(), nil
}

// codexItem adds one response_item; model is its turn's (turn_context),
// for the answers.
func codexItem(b *builder, l srcLine, p gjson.Result, ts, model string) {
	c := b.c
	typ := p.Get("type").Str
	md := logfmt.Object{}
	if id := p.Get("id").Str; id != "" {
		md = append(md, logfmt.F("importedId", id))
	}
	answerMD := md
	if model != "" {
		answerMD = append(md[:len(md):len(md)], logfmt.F("model", model))
	}
	switch typ {
	case "message":
		text, other := codexTexts(p.Get("content"))
		b.skipParts(l.num, "response_item/message", other)
		switch role := p.Get("role").Str; role {
		case "developer", "system":
			if c.System == nil && len(c.Items) == 0 {
				c.System = &text
				return
			}
			md = append(md, logfmt.F("synthetic", true), logfmt.F("sourceType", role))
			b.message(l.num, newMessage(chat.RoleUser, text, ts, md))
		case "user":
			if st := codexHarnessType(p, text); st != "" {
				md = append(md, logfmt.F("synthetic", true), logfmt.F("sourceType", st))
			}
			b.message(l.num, newMessage(chat.RoleUser, text, ts, md))
		case "assistant":
			b.assistant(l.num, newMessage(chat.RoleAssistant, text, ts, answerMD))
		default:
			b.skip(l.num, "response_item/message/"+role, reasonNoEquivalent, l.raw)
		}
	case "function_call", "custom_tool_call", "local_shell_call":
		tc := chat.ToolCall{ID: p.Get("call_id").Str, Type: "function", Name: p.Get("name").Str}
		switch typ {
		case "function_call":
			tc.Arguments = rawArgs(p.Get("arguments"))
		case "custom_tool_call":
			// Free text (an apply_patch body) is not JSON: it goes in an object.
			args, _ := logfmt.Marshal(logfmt.Object{logfmt.F("input", p.Get("input").Str)})
			tc.Arguments = string(args)
		case "local_shell_call":
			if tc.ID == "" {
				tc.ID = p.Get("id").Str
			}
			tc.Name, tc.Arguments = "local_shell", rawArgs(p.Get("action"))
		}
		b.addCalls(l.num, false, "", ts, []chat.ToolCall{tc}, answerMD)
	case "function_call_output", "custom_tool_call_output":
		out := p.Get("output")
		success := true
		var text string
		switch {
		case out.IsArray():
			var other []gjson.Result
			text, other = codexTexts(out)
			b.skipParts(l.num, "response_item/"+typ, other)
		case out.IsObject():
			text = textOf(out.Get("content"))
			success = out.Get("success").Type != gjson.False
		default:
			text = textOf(out)
			// Older shell calls wrote {"output", "metadata": {"exit_code"}}.
			if ec := gjson.Get(text, "metadata.exit_code"); ec.Type == gjson.Number && gjson.Valid(text) {
				success = ec.Int() == 0
			}
		}
		m := newMessage(chat.RoleTool, text, ts, append(md, logfmt.F("success", success)))
		m.ToolCallID = p.Get("call_id").Str
		if !b.result(l.num, m) {
			b.skip(l.num, "response_item/"+typ, "answers no call of the answer before it", l.raw)
		}
	default:
		if typ == "" {
			typ = "(no type)"
		}
		b.skip(l.num, "response_item/"+typ, reasonNoEquivalent, l.raw)
	}
}

// codexTexts joins the text of Codex content items (input_text,
// output_text, text) and returns the others (images).
func codexTexts(items gjson.Result) (string, []gjson.Result) {
	var texts []string
	var other []gjson.Result
	items.ForEach(func(_, it gjson.Result) bool {
		switch it.Get("type").Str {
		case "input_text", "output_text", "text":
			texts = append(texts, it.Get("text").Str)
		default:
			other = append(other, it)
		}
		return true
	})
	return strings.Join(texts, "\n\n"), other
}

// codexHarnessType says what a user message Codex wrote itself is: by the
// tag it opens with, or by the provenance Codex recorded for its content;
// "" for what the person typed.
func codexHarnessType(p gjson.Result, text string) string {
	for _, h := range codexHarness {
		if strings.HasPrefix(strings.TrimSpace(text), h.prefix) {
			return h.sourceType
		}
	}
	prov := ""
	p.Get("internal_chat_message_metadata_passthrough.content_item_metadata").ForEach(func(_, m gjson.Result) bool {
		t := m.Get("provenance.type").Str
		if t == "user" {
			prov = ""
			return false
		}
		if t != "" && prov == "" {
			prov = t
		}
		return true
	})
	return prov
}

// codexUsage gives a turn's usage to the last answer that has none.
func codexUsage(b *builder, u gjson.Result) bool {
	if !u.IsObject() {
		return false
	}
	for i := len(b.c.Items) - 1; i >= 0; i-- {
		m := b.c.Items[i].Message
		if m == nil || m.Role != chat.RoleAssistant {
			continue
		}
		if gjson.GetBytes(m.Metadata, "inputTokens").Exists() {
			return false
		}
		appendMeta(m, usage(nil, u.Get("input_tokens").Int(), u.Get("output_tokens").Int())...)
		return true
	}
	return false
}

// codexCompacted is Codex's compaction: the history is replaced by its
// replacement_history when it recorded one (its messages; calls and
// results in it are noted as skipped), else by the summary.
func codexCompacted(b *builder, l srcLine, p gjson.Result, ts string) {
	comp := Compaction{Source: "compacted"}
	if rh := p.Get("replacement_history"); rh.IsArray() {
		rh.ForEach(func(_, it gjson.Result) bool {
			if it.Get("type").Str != "message" {
				b.skip(l.num, "compacted/"+it.Get("type").Str, "trail keeps the messages of a replaced history only", []byte(it.Raw))
				return true
			}
			text, other := codexTexts(it.Get("content"))
			b.skipParts(l.num, "compacted/message", other)
			md := logfmt.Object{logfmt.F("synthetic", true), logfmt.F("sourceType", "compacted")}
			role := chat.RoleUser
			if it.Get("role").Str == "assistant" {
				role = chat.RoleAssistant
			}
			comp.Summary = append(comp.Summary, newMessage(role, text, ts, md))
			return true
		})
	} else {
		md := logfmt.Object{logfmt.F("synthetic", true), logfmt.F("sourceType", "compacted")}
		comp.Summary = append(comp.Summary, newMessage(chat.RoleUser, p.Get("message").Str, ts, md))
	}
	b.compaction(l.num, comp)
}

// codexRollback takes the last n turns back out, as Codex does when it
// replays thread_rolled_back: from the n-th last prompt the person typed
// on. What it takes out is noted as skipped.
func codexRollback(b *builder, l srcLine, n int) {
	b.closeRound()
	items := b.c.Items
	cut := len(items)
	for i := len(items) - 1; i >= 0 && n > 0; i-- {
		m := items[i].Message
		if m != nil && m.Role == chat.RoleUser && !gjson.GetBytes(m.Metadata, "synthetic").Bool() {
			cut = i
			n--
		}
	}
	for _, it := range items[cut:] {
		if it.Message == nil {
			continue
		}
		raw, _ := it.Message.CompactJSON()
		b.skip(it.Line, "rolled back "+it.Message.Role, "taken back by thread_rolled_back at line "+strconv.Itoa(l.num), raw)
	}
	b.c.Items = items[:cut]
}
