package core

// The transcript hooks read (transcript_path): the session's conversation
// as Claude Code writes its transcript, one JSON object a line, compact
// (scripts grep for `"role":"assistant"`):
//
//	user        a prompt: message {role: "user", content: "<text>"}
//	assistant   one line per content block (text, then each tool_use with
//	            its input in Claude Code's parameter names), sharing
//	            message.id; message {model, id, type, role, content: [block],
//	            stop_reason, stop_sequence, usage}
//	user        one line per tool result: content [{tool_use_id, type:
//	            "tool_result", content, is_error}], toolUseResult (the
//	            Claude-shaped output, when this step ran the call)
//
// Each line has parentUuid (the line before), isSidechain, userType, cwd,
// sessionId, type, uuid and timestamp. System messages are not written.
//
// It is written only when a hook is about to run, and then holds the
// conversation up to that moment: the prompt being answered and, at Stop,
// the final answer (stricter than Claude Code, whose file may lag). It
// mirrors the messages the record keeps (after a compaction, the summary
// onwards): the first write of a step replaces the file, later ones
// append. Everything in it is redacted as the record is.

import (
	"encoding/json"
	"strconv"
	"strings"

	"github.com/google/uuid"
	"github.com/tidwall/gjson"

	"trail/core/chat"
	"trail/core/tools"
	"trail/logfmt"
)

// transcriptState is how far the transcript file follows s.messages.
type transcriptState struct {
	written bool   // this step wrote the file at least once
	done    int    // messages already in the file
	last    string // uuid of the last line (the next line's parentUuid)
	failed  bool   // a write failed; warned once, not tried again
}

// resetTranscript makes the next write replace the file (the messages
// were replaced: a compaction).
func (s *session) resetTranscript() { s.transcript.written = false }

// syncTranscript brings the transcript up to the messages in memory.
func (s *session) syncTranscript() {
	t := &s.transcript
	if t.failed || s.rec == nil {
		return
	}
	replace := !t.written || t.done > len(s.messages)
	if replace {
		t.done, t.last = 0, ""
	}
	var b []byte
	for i := t.done; i < len(s.messages); i++ {
		b = s.appendTranscriptEntries(b, &s.messages[i])
	}
	var err error
	switch {
	case replace:
		err = s.e.Store.WriteTranscript(s.rec.ID, b)
	case len(b) > 0:
		err = s.e.Store.AppendTranscript(s.rec.ID, b)
	}
	if err != nil {
		t.failed = true
		s.obs.Event(StepEvent{Kind: EvWarning, Text: "transcript for hooks not written: " + err.Error()})
		return
	}
	t.written, t.done = true, len(s.messages)
}

// noteResponse keeps a call's Claude-shaped output for its transcript line.
func (s *session) noteResponse(callID string, resp any) {
	if s.responses == nil {
		s.responses = map[string]any{}
	}
	s.responses[callID] = resp
}

// appendTranscriptEntries adds the lines of one message to b.
func (s *session) appendTranscriptEntries(b []byte, m *chat.Message) []byte {
	switch m.Role {
	case chat.RoleUser:
		return s.appendTranscriptLine(b, m.ID, m.Timestamp, "user",
			logfmt.F("message", logfmt.Object{logfmt.F("role", "user"), logfmt.F("content", m.ContentText())}))
	case chat.RoleTool:
		result := logfmt.Object{
			logfmt.F("tool_use_id", m.ToolCallID),
			logfmt.F("type", "tool_result"),
			logfmt.F("content", toolResultText(m.ContentText())),
			logfmt.F("is_error", toolResultFailed(m.ContentText())),
		}
		extra := []logfmt.Field{logfmt.F("message", logfmt.Object{logfmt.F("role", "user"), logfmt.F("content", []any{result})})}
		if resp, ok := s.responses[m.ToolCallID]; ok {
			extra = append(extra, logfmt.F("toolUseResult", resp))
		}
		return s.appendTranscriptLine(b, m.ID, m.Timestamp, "user", extra...)
	case chat.RoleAssistant:
		var blocks []logfmt.Object
		if text := m.ContentText(); text != "" || len(m.ToolCalls) == 0 {
			blocks = append(blocks, logfmt.Object{logfmt.F("type", "text"), logfmt.F("text", text)})
		}
		for _, tc := range m.ToolCalls {
			blocks = append(blocks, logfmt.Object{
				logfmt.F("type", "tool_use"),
				logfmt.F("id", tc.ID),
				logfmt.F("name", tc.Name),
				logfmt.F("input", tools.ClaudeInput(tc.Name, tools.Normalize(tc.Name, tc.Args()), s.rec.Cwd)),
			})
		}
		usage := messageUsage(m)
		for i, block := range blocks {
			var stop any // null on all but the last block, as Claude Code writes them
			if i == len(blocks)-1 {
				stop = "end_turn"
				if len(m.ToolCalls) > 0 {
					stop = "tool_use"
				}
			}
			id := m.ID
			if i > 0 {
				// A UUID of its own, the same on every write: scripts that
				// parse uuid as one (and the parentUuid chain) keep working.
				id = uuid.NewSHA1(uuid.NameSpaceOID, []byte(m.ID+"/"+strconv.Itoa(i))).String()
			}
			b = s.appendTranscriptLine(b, id, m.Timestamp, "assistant", logfmt.F("message", logfmt.Object{
				logfmt.F("model", s.pcfg.Model),
				logfmt.F("id", "msg_"+m.ID),
				logfmt.F("type", "message"),
				logfmt.F("role", "assistant"),
				logfmt.F("content", []any{block}),
				logfmt.F("stop_reason", stop),
				logfmt.F("stop_sequence", nil),
				logfmt.F("usage", usage),
			}))
		}
	}
	return b
}

// appendTranscriptLine writes one line, redacted as the record is.
func (s *session) appendTranscriptLine(b []byte, uuid, ts, typ string, fields ...logfmt.Field) []byte {
	var parent any
	if s.transcript.last != "" {
		parent = s.transcript.last
	}
	o := logfmt.Object{
		logfmt.F("parentUuid", parent),
		logfmt.F("isSidechain", false),
		logfmt.F("userType", "external"),
		logfmt.F("cwd", s.rec.Cwd),
		logfmt.F("sessionId", s.rec.ID),
		logfmt.F("type", typ),
	}
	o = append(o, fields...)
	o = append(o, logfmt.F("uuid", uuid), logfmt.F("timestamp", ts))
	raw, err := logfmt.Marshal(o)
	if err == nil && s.red != nil {
		raw, err = s.red.JSON(raw)
	}
	if err != nil {
		return b
	}
	s.transcript.last = uuid
	b = append(b, raw...)
	return append(b, '\n')
}

// toolResultFailed reads a tool message's result JSON: success false, or a
// command that exited non-zero.
func toolResultFailed(content string) bool {
	if !gjson.Valid(content) {
		return false
	}
	r := gjson.Parse(content)
	if ok := r.Get("success"); ok.Exists() && !ok.Bool() {
		return true
	}
	code := r.Get("exitCode")
	return code.Exists() && code.Int() != 0
}

// messageUsage is an assistant message's token counts from its metadata,
// as Claude Code's transcript gives them: input_tokens without the cached
// part, which cache_read_input_tokens and cache_creation_input_tokens
// count (trail's inputTokens is the whole prompt), so a script that adds
// them counts the prompt once.
func messageUsage(m *chat.Message) logfmt.Object {
	var md gjson.Result
	if len(m.Metadata) > 0 && json.Valid(m.Metadata) {
		md = gjson.ParseBytes(m.Metadata)
	}
	read, created := md.Get("cacheReadInputTokens").Int(), md.Get("cacheCreationInputTokens").Int()
	return logfmt.Object{
		logfmt.F("input_tokens", max(md.Get("inputTokens").Int()-read-created, 0)),
		logfmt.F("cache_creation_input_tokens", created),
		logfmt.F("cache_read_input_tokens", read),
		logfmt.F("output_tokens", md.Get("outputTokens").Int()),
	}
}

// toolResultText is a tool result as Claude Code's transcript has it: the
// tool's output (with its error, when it failed), not trail's JSON
// envelope {"success", "output", "error"}. Anything else is kept as is.
func toolResultText(content string) string {
	if !gjson.Valid(content) {
		return content
	}
	r := gjson.Parse(content)
	out, okOut := r.Get("output"), r.Get("success").Exists()
	if !r.IsObject() || !okOut || (out.Exists() && out.Type != gjson.String) {
		return content
	}
	text := out.String()
	if e := r.Get("error").String(); e != "" {
		if text != "" && !strings.HasSuffix(text, "\n") {
			text += "\n"
		}
		text += e
	}
	return text
}
