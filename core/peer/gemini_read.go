package peer

import (
	"cmp"
	"strconv"
	"strings"

	"github.com/tidwall/gjson"

	"trail/core/chat"
	"trail/logfmt"
)

// Gemini CLI's chat (~/.gemini/tmp/<project>/chats/session-*.jsonl) is
// applied in order, as Gemini CLI itself loads it: a metadata line
// ({sessionId, projectHash, startTime, …}); message records upserted by id
// (a record appended again replaces the earlier one where it stood);
// {"$set": {…}} updates, whose messages, when present, replace the whole
// list (a checkpoint, written at each resume); {"$rewindTo": id}, which
// drops that message and every later one. The final list is the
// conversation. A checkpoint rewrites records with their timestamps,
// token counts and model gone, so those come from the first record of the
// same id. Messages a checkpoint or a rewind took away are skipped.

type geminiRec struct {
	line int
	obj  gjson.Result
}

type geminiState struct {
	b     *builder
	order []string
	recs  map[string]geminiRec
	first map[string]geminiRec
	seen  []string        // every id ever recorded, in order
	gone  map[string]bool // ids a rewind took away (already noted as skipped)
}

func readGemini(lines []srcLine) (*Conversation, error) {
	st := &geminiState{b: newBuilder(Gemini), recs: map[string]geminiRec{}, first: map[string]geminiRec{}, gone: map[string]bool{}}
	for _, l := range lines {
		st.apply(l)
	}
	return st.convert(), nil
}

// readGeminiLegacy reads the older whole-file form: one object holding
// the metadata and the messages.
func readGeminiLegacy(data []byte) (*Conversation, error) {
	st := &geminiState{b: newBuilder(Gemini), recs: map[string]geminiRec{}, first: map[string]geminiRec{}, gone: map[string]bool{}}
	obj := gjson.ParseBytes(data)
	st.meta(obj)
	obj.Get("messages").ForEach(func(_, m gjson.Result) bool {
		st.upsert(geminiRec{line: 1, obj: m})
		return true
	})
	c := st.convert()
	c.Entries = len(st.order)
	if !c.hasMessage() {
		return nil, &LineError{Msg: "no conversation found: the chat holds no message"}
	}
	return c, nil
}

func (st *geminiState) meta(obj gjson.Result) {
	c := st.b.c
	if c.SourceID == "" {
		c.SourceID = obj.Get("sessionId").Str
	}
	if c.StartedAt == "" {
		c.StartedAt = isoTime(obj.Get("startTime").Str)
	}
	if s := obj.Get("summary"); s.Type == gjson.String {
		c.Name = s.Str
	}
}

func (st *geminiState) apply(l srcLine) {
	o := l.obj
	switch {
	case o.Get(`\$set`).IsObject():
		set := o.Get(`\$set`)
		used := false
		if msgs := set.Get("messages"); msgs.IsArray() {
			st.order, st.recs = nil, map[string]geminiRec{}
			msgs.ForEach(func(_, m gjson.Result) bool {
				st.upsert(geminiRec{line: l.num, obj: m})
				return true
			})
			used = true
		}
		if set.Get("summary").Type == gjson.String || set.Get("sessionId").Exists() {
			st.meta(set)
			used = true
		}
		if !used {
			st.b.skip(l.num, "$set", "a metadata update trail keeps no field for", l.raw)
		}
	case o.Get(`\$rewindTo`).Exists():
		id := o.Get(`\$rewindTo`).Str
		for i, have := range st.order {
			if have != id {
				continue
			}
			for _, gone := range st.order[i:] {
				st.gone[gone] = true
				r := st.recs[gone]
				st.b.skip(r.line, "rewound "+r.obj.Get("type").Str, "rewound at line "+strconv.Itoa(l.num), []byte(r.obj.Raw))
				delete(st.recs, gone)
			}
			st.order = st.order[:i]
			break
		}
	case o.Get("id").Exists() && o.Get("type").Type == gjson.String:
		st.upsert(geminiRec{line: l.num, obj: o})
	case o.Get("sessionId").Type == gjson.String && o.Get("projectHash").Exists():
		st.meta(o)
	default:
		st.b.skip(l.num, "(unknown)", reasonNoEquivalent, l.raw)
	}
}

func (st *geminiState) upsert(r geminiRec) {
	id := r.obj.Get("id").Str
	if _, ok := st.recs[id]; !ok {
		st.order = append(st.order, id)
	}
	st.recs[id] = r
	if _, ok := st.first[id]; !ok {
		st.first[id] = r
		st.seen = append(st.seen, id)
	}
	delete(st.gone, id)
}

func (st *geminiState) convert() *Conversation {
	b := st.b
	for i, id := range st.order {
		r := st.recs[id]
		var next *geminiRec
		if i+1 < len(st.order) {
			n := st.recs[st.order[i+1]]
			next = &n
		}
		st.record(r, st.first[id], next)
	}
	for _, id := range st.seen {
		if _, kept := st.recs[id]; kept || st.gone[id] {
			continue
		}
		r := st.first[id]
		b.skip(r.line, "removed "+r.obj.Get("type").Str, "no longer in the chat after a later checkpoint", []byte(r.obj.Raw))
	}
	return b.finish()
}

// record converts one message record; first is the first record of its
// id (for what checkpoints drop), next the record after it.
func (st *geminiState) record(r, first geminiRec, next *geminiRec) {
	b := st.b
	o := r.obj
	r.line = first.line // where the message first appeared, not the checkpoint that repeated it
	id := o.Get("id").Str
	ts := isoTime(first.obj.Get("timestamp").Str)
	if ts == "" {
		ts = isoTime(o.Get("timestamp").Str)
	}
	md := logfmt.Object{logfmt.F("importedId", id)}
	switch typ := o.Get("type").Str; typ {
	case "user":
		text, responses, other := geminiParts(o.Get("content"))
		b.skipParts(r.line, "user", other)
		for _, fr := range responses {
			m := geminiResponse(fr, ts, md)
			if !b.result(r.line, m) {
				b.skip(r.line, "user/functionResponse", "answers no call of the answer before it", []byte(fr.Raw))
			}
		}
		if len(responses) > 0 && text == "" {
			return
		}
		trimmed := strings.TrimSpace(text)
		switch {
		case strings.HasPrefix(trimmed, "<session_context>"):
			md = append(md, logfmt.F("synthetic", true), logfmt.F("sourceType", "session_context"))
		case strings.HasPrefix(trimmed, "<hook_context>"):
			md = append(md, logfmt.F("synthetic", true), logfmt.F("sourceType", "hook_context"))
		case trimmed == "":
			b.skip(r.line, "user", "an empty prompt", []byte(o.Raw))
			return
		case strings.HasPrefix(trimmed, "/"), strings.HasPrefix(trimmed, "?"):
			b.skip(r.line, "user", "a command Gemini CLI does not send to the model", []byte(o.Raw))
			return
		}
		b.message(r.line, newMessage(chat.RoleUser, text, ts, md))
	case "gemini":
		text, calls, other := geminiAnswer(o.Get("content"))
		b.skipParts(r.line, "gemini", other)
		if th := first.obj.Get("thoughts"); th.IsArray() && len(th.Array()) > 0 {
			b.skip(r.line, "gemini/thoughts", reasonTextOnly, []byte(th.Raw))
		}
		records := o.Get("toolCalls")
		if !records.Exists() {
			records = first.obj.Get("toolCalls")
		}
		if len(calls) == 0 {
			records.ForEach(func(_, tc gjson.Result) bool {
				calls = append(calls, chat.ToolCall{ID: tc.Get("id").Str, Type: "function", Name: tc.Get("name").Str, Arguments: rawArgs(tc.Get("args"))})
				return true
			})
		}
		if model := cmp.Or(o.Get("model").Str, first.obj.Get("model").Str); model != "" {
			md = append(md, logfmt.F("model", model))
		}
		tokens := o.Get("tokens")
		if !tokens.Exists() {
			tokens = first.obj.Get("tokens")
		}
		if tokens.IsObject() {
			md = usage(md, tokens.Get("input").Int(), tokens.Get("output").Int())
		}
		m := newMessage(chat.RoleAssistant, text, ts, md)
		m.ToolCalls = calls
		b.assistant(r.line, m)
		st.recordedResults(r, records, next)
	case "info", "error", "warning":
		b.skip(r.line, typ, "a notice Gemini CLI showed, not part of the conversation", []byte(o.Raw))
	default:
		b.skip(r.line, typ, reasonNoEquivalent, []byte(o.Raw))
	}
}

// recordedResults answers the calls whose results Gemini CLI kept on the
// call record only (older chats), unless the next record answers them.
func (st *geminiState) recordedResults(r geminiRec, records gjson.Result, next *geminiRec) {
	answered := map[string]bool{}
	if next != nil && next.obj.Get("type").Str == "user" {
		_, responses, _ := geminiParts(next.obj.Get("content"))
		for _, fr := range responses {
			answered[fr.Get("functionResponse.id").Str] = true
		}
	}
	records.ForEach(func(_, tc gjson.Result) bool {
		id := tc.Get("id").Str
		res := tc.Get("result")
		if answered[id] || !res.Exists() || res.Type == gjson.Null {
			return true
		}
		md := logfmt.Object{logfmt.F("importedId", id)}
		ts := isoTime(tc.Get("timestamp").Str)
		var m chat.Message
		if _, responses, _ := geminiParts(res); len(responses) > 0 && tc.Get("status").Str != "error" {
			m = geminiResponse(responses[0], ts, md)
		} else {
			text := textOf(res)
			if len(responses) > 0 {
				text = geminiResponse(responses[0], ts, md).Content
			}
			m = newMessage(chat.RoleTool, text, ts, append(md, logfmt.F("success", tc.Get("status").Str != "error")))
		}
		m.ToolCallID, m.Name = id, tc.Get("name").Str
		st.b.result(r.line, m)
		return true
	})
}

// geminiParts splits a user record's content: its text, its function
// responses, and the parts trail has no place for.
func geminiParts(content gjson.Result) (text string, responses, other []gjson.Result) {
	if content.Type == gjson.String {
		return content.Str, nil, nil
	}
	var texts []string
	content.ForEach(func(_, p gjson.Result) bool {
		switch {
		case p.Get("functionResponse").IsObject():
			responses = append(responses, p)
		case p.Get("text").Type == gjson.String && !p.Get("thought").Bool():
			texts = append(texts, p.Get("text").Str)
		default:
			other = append(other, p)
		}
		return true
	})
	return strings.Join(texts, "\n"), responses, other
}

// geminiAnswer splits a gemini record's content: its text, its function
// calls, and the parts trail has no place for (thoughts, inline data).
func geminiAnswer(content gjson.Result) (text string, calls []chat.ToolCall, other []gjson.Result) {
	if content.Type == gjson.String {
		return content.Str, nil, nil
	}
	var texts []string
	content.ForEach(func(_, p gjson.Result) bool {
		switch {
		case p.Get("functionCall").IsObject():
			fc := p.Get("functionCall")
			calls = append(calls, chat.ToolCall{ID: fc.Get("id").Str, Type: "function", Name: fc.Get("name").Str, Arguments: rawArgs(fc.Get("args"))})
		case p.Get("text").Type == gjson.String && !p.Get("thought").Bool():
			texts = append(texts, p.Get("text").Str)
		default:
			other = append(other, p)
		}
		return true
	})
	return strings.Join(texts, ""), calls, other
}

// geminiResponse is a tool message from a functionResponse part: the
// output it returned, or the error, or else the whole response as JSON.
func geminiResponse(part gjson.Result, ts string, md logfmt.Object) chat.Message {
	fr := part.Get("functionResponse")
	resp := fr.Get("response")
	success := true
	var text string
	switch {
	case resp.Get("output").Exists():
		text = textOf(resp.Get("output"))
	case resp.Get("error").Exists():
		text, success = textOf(resp.Get("error")), false
	default:
		text = textOf(resp)
	}
	m := newMessage(chat.RoleTool, text, ts, append(append(logfmt.Object(nil), md...), logfmt.F("success", success)))
	m.ToolCallID, m.Name = fr.Get("id").Str, fr.Get("name").Str
	return m
}
