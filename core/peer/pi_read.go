package peer

import (
	"slices"
	"strings"

	"github.com/tidwall/gjson"

	"trail/core/chat"
	"trail/logfmt"
)

// pi's session (~/.pi/agent/sessions/--<cwd>--/<ts>_<id>.jsonl): a header
// ({"type": "session", "version", "id", "cwd"}), then entries chained into
// a tree by id and parentId. The conversation is the path from the last
// entry back to the root, as pi builds its context; entries off the path
// are skipped. pi's own message kinds that reach the model as user text
// (a ! command's output, an extension's message, a branch's or a
// compaction's summary) become user messages with pi's wording, marked
// synthetic.

// The wording pi wraps summaries in when it sends them (pi-mono
// packages/coding-agent/src/core/messages.ts).
const (
	piCompactionPrefix = "The conversation history before this point was compacted into the following summary:\n\n<summary>\n"
	piCompactionSuffix = "\n</summary>"
	piBranchPrefix     = "The following is a summary of a branch that this conversation came back from:\n\n<summary>\n"
	piBranchSuffix     = "</summary>"
)

func readPi(lines []srcLine) (*Conversation, error) {
	b := newBuilder(Pi)
	c := b.c
	head := lines[0]
	c.SourceID, c.Cwd, c.StartedAt = head.get("id").Str, head.get("cwd").Str, isoTime(head.get("timestamp").Str)
	entries := lines[1:]
	path := piPath(entries)
	on := map[int]bool{}
	for _, i := range path {
		on[i] = true
	}
	for i, l := range entries {
		if !on[i] {
			b.skip(l.num, piType(l), "not on the conversation's active branch", l.raw)
		}
	}
	r := piReader{b: b, start: map[string]int{}, lastCompaction: -1}
	for _, i := range path {
		r.entry(entries[i])
	}
	if r.provider == "anthropic" || r.provider == "openai" {
		c.Provider, c.Model = r.provider, r.model
	}
	return b.finish(), nil
}

func piType(l srcLine) string {
	t := l.get("type").Str
	if t == "message" {
		t += "/" + l.get("message.role").Str
	}
	if t == "" {
		t = "(no type)"
	}
	return t
}

// piPath returns the indices of the entries on the path to the last one,
// root first; entries without ids (version 1) are one path in file order.
func piPath(entries []srcLine) []int {
	byID := map[string]int{}
	leaf := -1
	for i, l := range entries {
		if id := l.get("id").Str; id != "" {
			byID[id] = i
			leaf = i
		}
	}
	if leaf < 0 {
		all := make([]int, len(entries))
		for i := range all {
			all[i] = i
		}
		return all
	}
	var path []int
	seen := map[int]bool{}
	for i := leaf; !seen[i]; {
		seen[i] = true
		path = append(path, i)
		next, ok := byID[entries[i].get("parentId").Str]
		if !ok {
			break
		}
		i = next
	}
	slices.Reverse(path)
	return path
}

type piReader struct {
	b               *builder
	start           map[string]int // entry id -> len(Items) when it was read
	lastCompaction  int            // index in Items of the last compaction, -1 before one
	provider, model string
}

func (r *piReader) entry(l srcLine) {
	b := r.b
	id := l.get("id").Str
	if id != "" {
		r.start[id] = len(b.c.Items)
	}
	ts := isoTime(l.get("timestamp").Str)
	md := logfmt.Object{}
	if id != "" {
		md = append(md, logfmt.F("importedId", id))
	}
	synthetic := func(sourceType string) logfmt.Object {
		return append(md, logfmt.F("synthetic", true), logfmt.F("sourceType", sourceType))
	}
	switch typ := l.get("type").Str; typ {
	case "message":
		r.message(l, l.get("message"), ts, md)
	case "compaction":
		keep := 0
		if from, ok := r.start[l.get("firstKeptEntryId").Str]; ok && from > r.lastCompaction {
			for _, it := range b.c.Items[from:] {
				if it.Message != nil {
					keep++
				}
			}
		}
		sum := newMessage(chat.RoleUser, piCompactionPrefix+l.get("summary").Str+piCompactionSuffix, ts, synthetic("compaction"))
		b.compaction(l.num, Compaction{Summary: []chat.Message{sum}, KeepLast: keep, Source: "compaction"})
		r.lastCompaction = len(b.c.Items) - 1
	case "branch_summary":
		b.message(l.num, newMessage(chat.RoleUser, piBranchPrefix+l.get("summary").Str+piBranchSuffix, ts, synthetic("branch_summary")))
	case "custom_message":
		text, other := piText(l.get("content"))
		b.skipParts(l.num, typ, other)
		b.message(l.num, newMessage(chat.RoleUser, text, ts, synthetic("custom_message:"+l.get("customType").Str)))
	case "model_change":
		r.provider, r.model = l.get("provider").Str, l.get("modelId").Str
	case "session_info":
		if n := l.get("name"); n.Type == gjson.String {
			b.c.Name = n.Str
		}
	default:
		b.skip(l.num, piType(l), reasonNoEquivalent, l.raw)
	}
}

func (r *piReader) message(l srcLine, msg gjson.Result, ts string, md logfmt.Object) {
	b := r.b
	if t := unixMillis(msg.Get("timestamp").Int()); ts == "" {
		ts = t
	}
	synthetic := func(sourceType string) logfmt.Object {
		return append(md, logfmt.F("synthetic", true), logfmt.F("sourceType", sourceType))
	}
	switch role := msg.Get("role").Str; role {
	case "user":
		text, other := piText(msg.Get("content"))
		b.skipParts(l.num, "message/user", other)
		b.message(l.num, newMessage(chat.RoleUser, text, ts, md))
	case "assistant":
		var texts []string
		var calls []chat.ToolCall
		var other []gjson.Result
		msg.Get("content").ForEach(func(_, blk gjson.Result) bool {
			switch blk.Get("type").Str {
			case "text":
				texts = append(texts, blk.Get("text").Str)
			case "toolCall":
				calls = append(calls, chat.ToolCall{ID: blk.Get("id").Str, Type: "function", Name: blk.Get("name").Str, Arguments: rawArgs(blk.Get("arguments"))})
			default:
				other = append(other, blk)
			}
			return true
		})
		b.skipParts(l.num, "message/assistant", other)
		if p := msg.Get("provider").Str; p != "" {
			r.provider, r.model = p, msg.Get("model").Str
		}
		if m := msg.Get("model").Str; m != "" {
			md = append(md, logfmt.F("model", m))
		}
		if sr := msg.Get("stopReason").Str; sr != "" {
			md = append(md, logfmt.F("stopReason", sr))
		}
		if e := msg.Get("errorMessage").Str; e != "" {
			md = append(md, logfmt.F("errorMessage", e))
		}
		if u := msg.Get("usage"); u.IsObject() {
			md = usage(md, u.Get("input").Int()+u.Get("cacheRead").Int()+u.Get("cacheWrite").Int(), u.Get("output").Int())
		}
		m := newMessage(chat.RoleAssistant, strings.Join(texts, "\n\n"), ts, md)
		m.ToolCalls = calls
		if msg.Get("stopReason").Str == "aborted" {
			m.State = chat.StateInterrupted
		}
		b.assistant(l.num, m)
	case "toolResult":
		text, other := piText(msg.Get("content"))
		b.skipParts(l.num, "message/toolResult", other)
		m := newMessage(chat.RoleTool, text, ts, append(md, logfmt.F("success", !msg.Get("isError").Bool())))
		m.ToolCallID, m.Name = msg.Get("toolCallId").Str, msg.Get("toolName").Str
		if !b.result(l.num, m) {
			b.skip(l.num, "message/toolResult", "answers no call of the answer before it", l.raw)
		}
	case "bashExecution":
		if msg.Get("excludeFromContext").Bool() {
			b.skip(l.num, "message/bashExecution", "a !! command pi kept out of the model's context", l.raw)
			return
		}
		b.message(l.num, newMessage(chat.RoleUser, piBashText(msg), ts, synthetic("bashExecution")))
	case "custom":
		text, other := piText(msg.Get("content"))
		b.skipParts(l.num, "message/custom", other)
		b.message(l.num, newMessage(chat.RoleUser, text, ts, synthetic("custom:"+msg.Get("customType").Str)))
	case "branchSummary":
		b.message(l.num, newMessage(chat.RoleUser, piBranchPrefix+msg.Get("summary").Str+piBranchSuffix, ts, synthetic("branchSummary")))
	case "compactionSummary":
		b.message(l.num, newMessage(chat.RoleUser, piCompactionPrefix+msg.Get("summary").Str+piCompactionSuffix, ts, synthetic("compactionSummary")))
	default:
		b.skip(l.num, piType(l), reasonNoEquivalent, l.raw)
	}
}

// piText is a string content as it is, or its text blocks joined, and the
// blocks trail has no place for (images).
func piText(content gjson.Result) (string, []gjson.Result) {
	if content.Type == gjson.String || !content.IsArray() {
		return textOf(content), nil
	}
	return joinTexts(content, "text", "\n\n")
}

// piBashText is what pi sends the model for a ! command
// (bashExecutionToText in pi's messages.ts).
func piBashText(m gjson.Result) string {
	var b strings.Builder
	b.WriteString("Ran `" + m.Get("command").Str + "`\n")
	if out := m.Get("output").Str; out != "" {
		b.WriteString("```\n" + out + "\n```")
	} else {
		b.WriteString("(no output)")
	}
	exit := m.Get("exitCode")
	switch {
	case m.Get("cancelled").Bool():
		b.WriteString("\n\n(command cancelled)")
	case exit.Type == gjson.Number && exit.Int() != 0:
		b.WriteString("\n\nCommand exited with code " + exit.Raw)
	}
	if m.Get("truncated").Bool() && m.Get("fullOutputPath").Str != "" {
		b.WriteString("\n\n[Output truncated. Full output: " + m.Get("fullOutputPath").Str + "]")
	}
	return b.String()
}
