package commands

import (
	"encoding/json"
	"errors"
	"io"
	"time"

	"github.com/tidwall/gjson"

	"trail/core"
	"trail/core/chat"
	"trail/core/errs"
	"trail/logfmt"
)

// streamJSON writes -o stream-json (SPEC 6): Claude Code's system init
// line, a session line, then seed 004's block events with Claude Code's
// assistant and user lines among them (stream_claude.go), then the result
// object -o json prints. Every line is
// one Write on stdout, so a reader sees each line whole, at once.
//
// Blocks: user_message, assistant_text, thinking, tool_use, tool_result and
// system. Each block has a block_start and a block_complete; text and
// thinking blocks get text_delta events in between; a tool_use block gets
// block_update events as its input becomes known (status pending) and as
// it runs (running), and completes with success or error. A block that
// arrives whole (a user message, a tool result, a system note) starts and
// completes at once. Every event names the conversation ("main").
type streamJSON struct {
	w     io.Writer
	newID func() (string, error)
	now   func() time.Time
	model string
	err   error // the first write error; nothing more is written after it

	// Claude Code's lines (stream_claude.go)
	sessionID, cwd string
	results        []claudeResult // tool results waiting for their batch's user line

	text      *textBlock
	thinking  *textBlock
	roundText bool                  // a text block was opened in this provider round
	tools     map[string]*toolBlock // by tool call id, open until complete
	order     []string
	seq       int
}

type textBlock struct {
	id, kind, ts string
	content      []byte
}

type toolBlock struct {
	id, ts, name, callID, status string
	input                        any
}

const mainConversation = "main"

func newStreamJSON(w io.Writer, newID func() (string, error), now func() time.Time) *streamJSON {
	return &streamJSON{w: w, newID: newID, now: now, tools: map[string]*toolBlock{}}
}

// Event implements the stream for one step event.
func (s *streamJSON) Event(e core.StepEvent) {
	switch e.Kind {
	case core.EvSession:
		s.model = e.Model
		s.claudeInit(e)
		s.line(logfmt.Object{
			logfmt.F("type", "session"),
			logfmt.F("schema_version", 1),
			logfmt.F("session_id", e.SessionID),
			logfmt.F("resumed", e.Resumed),
			logfmt.F("provider", e.Provider),
			logfmt.F("model", e.Model),
			logfmt.F("conversationId", mainConversation),
		})
	case core.EvProviderWaiting:
		s.flushToolResults()
		s.roundText = false
	case core.EvUserMessage:
		if e.Message != nil {
			id := e.Message.ID
			if id == "" {
				id = s.blockID()
			}
			s.whole(id, logfmt.Object{
				logfmt.F("id", id),
				logfmt.F("timestamp", e.Message.Timestamp),
				logfmt.F("type", "user_message"),
				logfmt.F("content", e.Message.Content),
			})
		}
	case core.EvThinkingDelta:
		s.closeText()
		if s.thinking == nil {
			s.thinking = s.open("thinking")
		}
		s.delta(s.thinking, e.Text)
	case core.EvTextDelta:
		s.closeThinking()
		if s.text == nil {
			s.text = s.open("assistant_text")
		}
		s.delta(s.text, e.Text)
	case core.EvToolCallStreaming:
		s.closeThinking()
		s.closeText()
		if e.ToolCall != nil {
			s.toolStart(e.ToolCall.ID, e.ToolCall.Name, map[string]any{})
		}
	case core.EvAssistantMessage:
		s.flushToolResults()
		s.assistant(e)
		s.claudeAssistant(e)
	case core.EvToolStarted:
		if b := s.toolFor(e.ToolCall); b != nil {
			b.status = "running"
			s.update(b.id, logfmt.Object{logfmt.F("status", b.status)})
		}
	case core.EvToolFinished:
		if e.ToolCall != nil {
			s.claudeToolOutcome(e.ToolCall.ID, e.Tool)
		}
		if b := s.toolFor(e.ToolCall); b != nil {
			b.status = "success"
			if e.Tool != nil && (!e.Tool.Success || e.Tool.Denied) {
				b.status = "error"
			}
			s.completeTool(b)
		}
	case core.EvToolResult:
		if e.Message != nil {
			s.toolResult(e.Message)
			s.claudeToolResult(e.Message.ToolCallID, e.Message.Content)
		}
	case core.EvRetry:
		s.system("status", "retrying in "+e.Wait.Round(time.Millisecond).String()+": "+e.Text,
			logfmt.Object{logfmt.F("attempt", e.Attempt), logfmt.F("waitMs", e.Wait.Milliseconds())})
	case core.EvWarning:
		s.system("status", e.Text, logfmt.Object{logfmt.F("level", "warning")})
	case core.EvCompacted:
		s.flushToolResults()
		s.system("status", "the conversation was compacted", nil)
	}
}

// assistant completes the round's blocks with the committed message: the
// text block gets the final content (the partial one when interrupted),
// and each tool call its parsed input.
func (s *streamJSON) assistant(e core.StepEvent) {
	m := e.Message
	if m == nil {
		return
	}
	s.closeThinking()
	if s.text == nil && !s.roundText && m.Content != "" {
		s.text = s.open("assistant_text")
		s.text.content = []byte(m.Content)
	}
	if s.text != nil {
		s.text.content = []byte(m.Content)
		s.closeText()
	}
	for i := range m.ToolCalls {
		tc := &m.ToolCalls[i]
		input := toolInput(tc.Arguments)
		if b := s.tools[tc.ID]; b != nil {
			b.input = input
			s.update(b.id, logfmt.Object{logfmt.F("input", input)})
			continue
		}
		s.toolStart(tc.ID, tc.Name, input)
	}
	if u := e.Usage; u.InputTokens != 0 || u.OutputTokens != 0 {
		s.line(logfmt.Object{
			logfmt.F("type", "metadata_update"),
			logfmt.F("metadata", logfmt.Object{
				logfmt.F("usage", logfmt.Object{
					logfmt.F("inputTokens", u.InputTokens),
					logfmt.F("outputTokens", u.OutputTokens),
					logfmt.F("totalTokens", u.InputTokens+u.OutputTokens),
				}),
				logfmt.F("model", s.model),
			}),
			logfmt.F("conversationId", mainConversation),
		})
	}
}

// finish closes what is still open, notes a failure, and writes the result.
func (s *streamJSON) finish(res *core.Result, err error) {
	s.closeThinking()
	s.closeText()
	for _, id := range append([]string(nil), s.order...) {
		if b := s.tools[id]; b != nil {
			s.completeTool(b)
		}
	}
	s.flushToolResults()
	if err != nil && !errors.Is(err, errs.ErrInterrupted) {
		s.system("error", oneLine(err.Error()), nil)
	}
	if res != nil {
		s.line(resultObject(res, err, newUUID(s.newID)))
	}
}

func (s *streamJSON) open(kind string) *textBlock {
	if kind == "assistant_text" {
		s.roundText = true
	}
	b := &textBlock{id: s.blockID(), kind: kind, ts: s.timestamp()}
	block := logfmt.Object{logfmt.F("id", b.id), logfmt.F("timestamp", b.ts), logfmt.F("type", kind), logfmt.F("content", "")}
	if kind == "assistant_text" && s.model != "" {
		block = append(block, logfmt.F("model", s.model))
	}
	s.start(b.id, block)
	return b
}

func (s *streamJSON) delta(b *textBlock, text string) {
	b.content = append(b.content, text...)
	s.line(logfmt.Object{
		logfmt.F("type", "text_delta"),
		logfmt.F("blockId", b.id),
		logfmt.F("delta", text),
		logfmt.F("conversationId", mainConversation),
	})
}

func (s *streamJSON) closeText() {
	if b := s.text; b != nil {
		s.text = nil
		s.completeText(b)
	}
}

func (s *streamJSON) closeThinking() {
	if b := s.thinking; b != nil {
		s.thinking = nil
		s.completeText(b)
	}
}

func (s *streamJSON) completeText(b *textBlock) {
	block := logfmt.Object{logfmt.F("id", b.id), logfmt.F("timestamp", b.ts), logfmt.F("type", b.kind), logfmt.F("content", string(b.content))}
	if b.kind == "assistant_text" && s.model != "" {
		block = append(block, logfmt.F("model", s.model))
	}
	s.complete(b.id, block)
}

func (s *streamJSON) toolStart(callID, name string, input any) {
	b := &toolBlock{id: s.blockID(), ts: s.timestamp(), name: name, callID: callID, status: "pending", input: input}
	s.tools[callID] = b
	s.order = append(s.order, callID)
	s.start(b.id, s.toolObject(b))
}

func (s *streamJSON) toolFor(tc *chat.ToolCall) *toolBlock {
	if tc == nil {
		return nil
	}
	return s.tools[tc.ID]
}

func (s *streamJSON) completeTool(b *toolBlock) {
	delete(s.tools, b.callID)
	s.complete(b.id, s.toolObject(b))
}

func (s *streamJSON) toolObject(b *toolBlock) logfmt.Object {
	return logfmt.Object{
		logfmt.F("id", b.id),
		logfmt.F("timestamp", b.ts),
		logfmt.F("type", "tool_use"),
		logfmt.F("toolName", b.name),
		logfmt.F("toolUseId", b.callID),
		logfmt.F("input", b.input),
		logfmt.F("status", b.status),
	}
}

// toolResult is a tool_result block: the output is the result JSON trail
// sends the model ({success, output, error?...}), isError when it failed.
func (s *streamJSON) toolResult(m *chat.Message) {
	var output any = m.Content
	isError := false
	if gjson.Valid(m.Content) {
		output = json.RawMessage(m.Content)
		if ok := gjson.Get(m.Content, "success"); ok.Exists() {
			isError = !ok.Bool()
		}
	}
	id := m.ID
	if id == "" {
		id = s.blockID()
	}
	s.whole(id, logfmt.Object{
		logfmt.F("id", id),
		logfmt.F("timestamp", m.Timestamp),
		logfmt.F("type", "tool_result"),
		logfmt.F("toolUseId", m.ToolCallID),
		logfmt.F("output", output),
		logfmt.F("isError", isError),
	})
}

func (s *streamJSON) system(subtype, message string, metadata logfmt.Object) {
	id := s.blockID()
	block := logfmt.Object{
		logfmt.F("id", id),
		logfmt.F("timestamp", s.timestamp()),
		logfmt.F("type", "system"),
		logfmt.F("subtype", subtype),
		logfmt.F("message", message),
	}
	if metadata != nil {
		block = append(block, logfmt.F("metadata", metadata))
	}
	s.whole(id, block)
}

// whole is a block that arrives complete.
func (s *streamJSON) whole(id string, block logfmt.Object) {
	s.start(id, block)
	s.complete(id, block)
}

func (s *streamJSON) start(id string, block logfmt.Object) {
	s.line(logfmt.Object{
		logfmt.F("type", "block_start"),
		logfmt.F("blockId", id),
		logfmt.F("block", block),
		logfmt.F("conversationId", mainConversation),
	})
}

func (s *streamJSON) update(id string, updates logfmt.Object) {
	s.line(logfmt.Object{
		logfmt.F("type", "block_update"),
		logfmt.F("blockId", id),
		logfmt.F("updates", updates),
		logfmt.F("conversationId", mainConversation),
	})
}

func (s *streamJSON) complete(id string, block logfmt.Object) {
	s.line(logfmt.Object{
		logfmt.F("type", "block_complete"),
		logfmt.F("blockId", id),
		logfmt.F("block", block),
		logfmt.F("conversationId", mainConversation),
	})
}

// line writes one JSON line with a single Write.
func (s *streamJSON) line(o logfmt.Object) {
	if s.err != nil {
		return
	}
	b, err := logfmt.Marshal(o)
	if err != nil {
		return
	}
	_, s.err = s.w.Write(append(b, '\n'))
}

func (s *streamJSON) blockID() string {
	if s.newID != nil {
		if id, err := s.newID(); err == nil {
			return id
		}
	}
	s.seq++
	return "block-" + itoa(s.seq)
}

func (s *streamJSON) timestamp() string { return logfmt.FormatTime(s.now()) }

// toolInput is a call's arguments as JSON when they are, else the text.
func toolInput(args string) any {
	if args == "" {
		return map[string]any{}
	}
	if gjson.Valid(args) {
		return json.RawMessage(args)
	}
	return args
}

func itoa(n int) string {
	b, _ := logfmt.Marshal(n)
	return string(b)
}
