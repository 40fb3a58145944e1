package peer

import (
	"bufio"
	"encoding/json"
	"io"
	"strconv"
	"strings"

	"github.com/google/uuid"
	"github.com/tidwall/gjson"

	"trail/core/chat"
	"trail/logfmt"
)

// Writing Claude Code's transcript, so that `claude --resume <id>` picks a
// trail session up. Which fields Claude Code requires on resume is not
// documented; every user and assistant line carries the set a real
// transcript has (testdata/peers/claude-2-turns-continued.jsonl): the chain
// (parentUuid, uuid), sessionId (the file's name), cwd, timestamp, version
// and the rest. An answer is one line per content block, sharing its
// message.id, as Claude Code writes them; each tool result is a user line of
// one tool_result block pointing back at the line of its call; the file
// ends with last-prompt naming the leaf.
//
// Claude Code does not store the system prompt: trail's is left out (it
// applies its own). A session compacted by trail starts with the summary,
// written as Claude Code writes its own compaction (a compact_boundary,
// then the summary as a user line marked isCompactSummary). Messages an
// import marked synthetic go back as isMeta lines. Ids are made from the
// session's and the messages' ids, so an export is the same bytes each time.
// A session imported from another agent that opens with that agent's
// compaction summary goes the same way.

// claudeVersion is the Claude Code version whose transcript lines the
// export copies.
const claudeVersion = "2.1.197"

// ContextSummaryPrefix opens the message trail's compaction leaves.
const ContextSummaryPrefix = chat.SummaryPrefix

// claudeSummaryIntro is how Claude Code's own compaction summary opens.
const claudeSummaryIntro = "This session is being continued from a previous conversation that ran out of context. The summary below covers the earlier portion of the conversation.\n\n"

// ClaudeSession is what WriteClaude needs of a session.
type ClaudeSession struct {
	ID       string // trail's id; the export's sessionId is made from it
	Cwd      string
	Model    string // for answers that do not name theirs
	Messages []chat.Message
}

// ClaudeSessionID is the session id (and file name) a trail session gets
// in Claude Code: its own id when that is a UUID (trail's are), else one
// derived from it.
func ClaudeSessionID(id string) string {
	if u, err := uuid.Parse(id); err == nil && len(id) == 36 {
		return u.String()
	}
	return uuid.NewSHA1(uuid.NameSpaceURL, []byte("trail:"+id)).String()
}

// ClaudeProjectDir is the folder name Claude Code keeps a directory's
// sessions under: every character but ASCII letters and digits becomes
// "-". ok is false for a name over 200 characters, which Claude Code
// shortens with a hash trail does not know.
func ClaudeProjectDir(cwd string) (string, bool) {
	var b strings.Builder
	for _, r := range cwd {
		if r < 128 && (r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9') {
			b.WriteRune(r)
		} else {
			b.WriteByte('-')
		}
	}
	return b.String(), b.Len() <= 200
}

type claudeWriter struct {
	w       *bufio.Writer
	s       ClaudeSession
	sid     string
	ns      uuid.UUID
	parent  string
	used    map[string]bool
	callAt  map[string]string // tool call id -> uuid of the line holding it
	prompt  string            // the last prompt, for last-prompt
	err     error
	written int
}

// WriteClaude writes the session as a Claude Code transcript and returns
// how many messages it wrote (system messages are not).
func WriteClaude(w io.Writer, s ClaudeSession) (int, error) {
	cw := &claudeWriter{w: bufio.NewWriter(w), s: s, sid: ClaudeSessionID(s.ID), used: map[string]bool{}, callAt: map[string]string{}}
	cw.ns = uuid.MustParse(cw.sid)
	msgs := s.Messages
	for len(msgs) > 0 && msgs[0].Role == chat.RoleSystem {
		msgs = msgs[1:]
	}
	for i := range msgs {
		m := withText(msgs[i])
		switch m.Role {
		case chat.RoleSystem:
			continue
		case chat.RoleUser:
			if md := gjson.ParseBytes(m.Metadata); cw.parent == "" && md.Get("synthetic").Bool() && summaryType(md.Get("sourceType").Str) {
				cw.compacted(m, m.Content) // an imported session that opens with its agent's summary
			} else {
				cw.user(m)
			}
		case chat.RoleAssistant:
			if cw.parent == "" && strings.HasPrefix(m.Content, ContextSummaryPrefix) {
				cw.compacted(m, claudeSummaryIntro+strings.TrimPrefix(m.Content, ContextSummaryPrefix))
			} else {
				cw.assistant(m)
			}
		case chat.RoleTool:
			cw.toolResult(m)
		default:
			continue
		}
		cw.written++
	}
	if cw.parent != "" {
		cw.line(logfmt.Object{
			logfmt.F("type", "last-prompt"),
			logfmt.F("lastPrompt", cw.prompt),
			logfmt.F("leafUuid", cw.parent),
			logfmt.F("sessionId", cw.sid),
		})
	}
	if cw.err == nil {
		cw.err = cw.w.Flush()
	}
	return cw.written, cw.err
}

// lineUUID is the uuid of a message's k-th line: the message's own id when
// that is a UUID not used yet, else one derived from it.
func (cw *claudeWriter) lineUUID(m *chat.Message, k int) string {
	if k == 0 {
		if u, err := uuid.Parse(m.ID); err == nil && len(m.ID) == 36 && !cw.used[u.String()] {
			cw.used[u.String()] = true
			return u.String()
		}
	}
	for n := 0; ; n++ {
		u := uuid.NewSHA1(cw.ns, []byte(m.ID+"#"+strconv.Itoa(k)+"#"+strconv.Itoa(n))).String()
		if !cw.used[u] {
			cw.used[u] = true
			return u
		}
	}
}

// envelope is the chain and context every user and assistant line carries.
func (cw *claudeWriter) envelope(typ, id, ts string, body ...logfmt.Field) logfmt.Object {
	var parent any
	if cw.parent != "" {
		parent = cw.parent
	}
	o := logfmt.Object{logfmt.F("parentUuid", parent), logfmt.F("isSidechain", false)}
	o = append(o, body...)
	o = append(o,
		logfmt.F("type", typ),
		logfmt.F("uuid", id),
		logfmt.F("timestamp", ts),
		logfmt.F("userType", "external"),
		logfmt.F("entrypoint", "cli"),
		logfmt.F("cwd", cw.s.Cwd),
		logfmt.F("sessionId", cw.sid),
		logfmt.F("version", claudeVersion),
		logfmt.F("gitBranch", ""))
	cw.parent = id
	return o
}

func (cw *claudeWriter) user(m *chat.Message) {
	id := cw.lineUUID(m, 0)
	body := []logfmt.Field{
		logfmt.F("promptId", uuid.NewSHA1(cw.ns, []byte("prompt:"+id)).String()),
		logfmt.F("message", logfmt.Object{logfmt.F("role", "user"), logfmt.F("content", m.Content)}),
	}
	if gjson.GetBytes(m.Metadata, "synthetic").Bool() {
		body = append(body, logfmt.F("isMeta", true))
	} else {
		cw.prompt = m.Content
	}
	cw.line(cw.envelope("user", id, m.Timestamp, body...))
}

func (cw *claudeWriter) assistant(m *chat.Message) {
	md := gjson.ParseBytes(m.Metadata)
	model := md.Get("model").Str
	if model == "" {
		model = cw.s.Model
	}
	msgID := "msg_" + strings.ReplaceAll(uuid.NewSHA1(cw.ns, []byte("message:"+m.ID)).String(), "-", "")[:24]
	type block struct {
		obj    logfmt.Object
		callID string
	}
	var blocks []block
	if m.Content != "" || len(m.ToolCalls) == 0 {
		blocks = append(blocks, block{obj: logfmt.Object{logfmt.F("type", "text"), logfmt.F("text", m.Content)}})
	}
	for _, tc := range m.ToolCalls {
		blocks = append(blocks, block{callID: tc.ID, obj: logfmt.Object{
			logfmt.F("type", "tool_use"),
			logfmt.F("id", tc.ID),
			logfmt.F("name", tc.Name),
			logfmt.F("input", claudeInput(tc.Arguments)),
		}})
	}
	stop := "end_turn"
	if len(m.ToolCalls) > 0 {
		stop = "tool_use"
	}
	for k, blk := range blocks {
		id := cw.lineUUID(m, k)
		var sr any
		if k == len(blocks)-1 {
			sr = stop
		}
		if blk.callID != "" {
			cw.callAt[blk.callID] = id
		}
		msg := logfmt.Object{
			logfmt.F("id", msgID),
			logfmt.F("type", "message"),
			logfmt.F("role", "assistant"),
			logfmt.F("model", model),
			logfmt.F("content", []any{blk.obj}),
			logfmt.F("stop_reason", sr),
			logfmt.F("stop_sequence", nil),
			logfmt.F("usage", logfmt.Object{
				logfmt.F("input_tokens", md.Get("inputTokens").Int()),
				logfmt.F("output_tokens", md.Get("outputTokens").Int()),
			}),
		}
		cw.line(cw.envelope("assistant", id, m.Timestamp, logfmt.F("message", msg)))
	}
}

// claudeInput is a call's arguments as Claude Code's tool_use input, which
// must be an object: an object is kept (as compact JSON, which is how
// Claude Code stores it), anything else is wrapped.
func claudeInput(args string) any {
	t := strings.TrimSpace(args)
	if strings.HasPrefix(t, "{") && gjson.Valid(t) {
		return json.RawMessage(t)
	}
	return logfmt.Object{logfmt.F("arguments", args)}
}

func (cw *claudeWriter) toolResult(m *chat.Message) {
	id := cw.lineUUID(m, 0)
	blk := logfmt.Object{
		logfmt.F("tool_use_id", m.ToolCallID),
		logfmt.F("type", "tool_result"),
		logfmt.F("content", m.Content),
	}
	if ToolFailed(*m) {
		blk = append(blk, logfmt.F("is_error", true))
	}
	body := []logfmt.Field{logfmt.F("message", logfmt.Object{logfmt.F("role", "user"), logfmt.F("content", []any{blk})})}
	if at := cw.callAt[m.ToolCallID]; at != "" {
		body = append(body, logfmt.F("sourceToolAssistantUUID", at))
	}
	cw.line(cw.envelope("user", id, m.Timestamp, body...))
}

// compacted writes the summary a compacted session opens with the way
// Claude Code records its own compaction.
func (cw *claudeWriter) compacted(m *chat.Message, text string) {
	boundary := cw.lineUUID(m, 1)
	cw.line(logfmt.Object{
		logfmt.F("parentUuid", nil),
		logfmt.F("logicalParentUuid", nil),
		logfmt.F("isSidechain", false),
		logfmt.F("userType", "external"),
		logfmt.F("cwd", cw.s.Cwd),
		logfmt.F("sessionId", cw.sid),
		logfmt.F("version", claudeVersion),
		logfmt.F("gitBranch", ""),
		logfmt.F("type", "system"),
		logfmt.F("subtype", "compact_boundary"),
		logfmt.F("content", "Conversation compacted"),
		logfmt.F("isMeta", false),
		logfmt.F("timestamp", m.Timestamp),
		logfmt.F("uuid", boundary),
		logfmt.F("level", "info"),
		logfmt.F("compactMetadata", logfmt.Object{logfmt.F("trigger", "manual"), logfmt.F("preTokens", 0)}),
	})
	cw.parent = boundary
	id := cw.lineUUID(m, 0)
	cw.line(cw.envelope("user", id, m.Timestamp,
		logfmt.F("message", logfmt.Object{logfmt.F("role", "user"), logfmt.F("content", text)}),
		logfmt.F("isVisibleInTranscriptOnly", true),
		logfmt.F("isCompactSummary", true)))
}

func (cw *claudeWriter) line(o logfmt.Object) {
	if cw.err != nil {
		return
	}
	b, err := logfmt.Marshal(o)
	if err != nil {
		cw.err = err
		return
	}
	b = append(b, '\n')
	_, cw.err = cw.w.Write(b)
}

// withText is m with its text in Content: a record of another program may
// hold content parts (an array), which go as their JSON.
func withText(m chat.Message) *chat.Message {
	if m.ContentNull {
		m.Content = ""
	} else if m.Content == "" {
		m.Content = m.ContentText()
	}
	return &m
}

// ToolFailed reports whether a tool message tells of a failure: its
// metadata says success false (an imported result), or its content is
// trail's result object with success false.
func ToolFailed(m chat.Message) bool {
	if s := gjson.GetBytes(m.Metadata, "success"); s.Exists() {
		return s.Type == gjson.False
	}
	t := strings.TrimSpace(m.Content)
	if !strings.HasPrefix(t, "{") || !gjson.Valid(t) {
		return false
	}
	return gjson.Get(t, "success").Type == gjson.False
}
