package commands

// Claude Code's stream-json lines, written beside seed 004's block events
// so that scripts written for `claude -p --output-format stream-json` work
// (its Agent SDK reference gives the shapes):
//
//	{"type":"system","subtype":"init",...}   first: session_id, cwd, model,
//	                                         permissionMode, tools...
//	{"type":"assistant","message":{...}}     one per content block of each
//	                                         model turn (text, then each
//	                                         tool_use), as Claude Code writes
//	                                         them, sharing message.id
//	{"type":"user","message":{...}}          one per batch of tool results,
//	                                         tool_result blocks
//
// The result line stays last. Tool inputs are in Claude Code's parameter
// names (file_path...), as its tools take them.

import (
	"trail/core"
	"trail/core/tools"
	"trail/logfmt"
)

// claudeResult is one tool result waiting for its batch's user line.
type claudeResult struct {
	callID, content string
	isError         bool
	response        any
}

// claudeInit is the system init line.
func (s *streamJSON) claudeInit(e core.StepEvent) {
	s.sessionID, s.cwd = e.SessionID, e.Cwd
	toolList := e.Tools
	if toolList == nil {
		toolList = []string{}
	}
	s.line(logfmt.Object{
		logfmt.F("type", "system"),
		logfmt.F("subtype", "init"),
		logfmt.F("cwd", e.Cwd),
		logfmt.F("session_id", e.SessionID),
		logfmt.F("tools", toolList),
		logfmt.F("mcp_servers", []any{}),
		logfmt.F("model", e.Model),
		logfmt.F("permissionMode", e.PermissionMode),
		logfmt.F("slash_commands", []any{}),
		logfmt.F("output_style", "default"),
		logfmt.F("agents", []any{}),
		logfmt.F("skills", []any{}),
		logfmt.F("plugins", []any{}),
		logfmt.F("uuid", newUUID(s.newID)),
	})
}

// claudeAssistant writes a committed model turn, one line per block.
func (s *streamJSON) claudeAssistant(e core.StepEvent) {
	m := e.Message
	if m == nil {
		return
	}
	var blocks []any
	if m.Content != "" || len(m.ToolCalls) == 0 {
		blocks = append(blocks, logfmt.Object{logfmt.F("type", "text"), logfmt.F("text", m.Content)})
	}
	for _, tc := range m.ToolCalls {
		blocks = append(blocks, logfmt.Object{
			logfmt.F("type", "tool_use"),
			logfmt.F("id", tc.ID),
			logfmt.F("name", tc.Name),
			logfmt.F("input", tools.ClaudeInput(tc.Name, tools.Normalize(tc.Name, tc.Args()), s.cwd)),
		})
	}
	for i, block := range blocks {
		var stop any
		if i == len(blocks)-1 {
			stop = "end_turn"
			if len(m.ToolCalls) > 0 {
				stop = "tool_use"
			}
		}
		s.line(logfmt.Object{
			logfmt.F("type", "assistant"),
			logfmt.F("message", logfmt.Object{
				logfmt.F("model", s.model),
				logfmt.F("id", "msg_"+m.ID),
				logfmt.F("type", "message"),
				logfmt.F("role", "assistant"),
				logfmt.F("content", []any{block}),
				logfmt.F("stop_reason", stop),
				logfmt.F("stop_sequence", nil),
				logfmt.F("usage", logfmt.Object{
					logfmt.F("input_tokens", e.Usage.InputTokens),
					logfmt.F("output_tokens", e.Usage.OutputTokens),
				}),
			}),
			logfmt.F("parent_tool_use_id", nil),
			logfmt.F("session_id", s.sessionID),
			logfmt.F("uuid", newUUID(s.newID)),
		})
	}
}

// claudeToolResult notes a tool result for the batch's user line.
func (s *streamJSON) claudeToolResult(callID, content string) {
	s.results = append(s.results, claudeResult{callID: callID, content: content})
}

// claudeToolOutcome adds how a call ended to its noted result.
func (s *streamJSON) claudeToolOutcome(callID string, out *core.ToolOutcome) {
	for i := range s.results {
		if s.results[i].callID == callID && out != nil {
			s.results[i].isError, s.results[i].response = out.IsError, out.Response
		}
	}
}

// flushToolResults writes the user line of the results noted so far.
func (s *streamJSON) flushToolResults() {
	if len(s.results) == 0 {
		return
	}
	blocks := make([]any, len(s.results))
	for i, r := range s.results {
		blocks[i] = logfmt.Object{
			logfmt.F("tool_use_id", r.callID),
			logfmt.F("type", "tool_result"),
			logfmt.F("content", r.content),
			logfmt.F("is_error", r.isError),
		}
	}
	o := logfmt.Object{
		logfmt.F("type", "user"),
		logfmt.F("message", logfmt.Object{logfmt.F("role", "user"), logfmt.F("content", blocks)}),
		logfmt.F("parent_tool_use_id", nil),
		logfmt.F("session_id", s.sessionID),
		logfmt.F("uuid", newUUID(s.newID)),
	}
	// The structured output of the call, when the batch holds one (the
	// SDK's tool_use_result names one tool's).
	if len(s.results) == 1 && s.results[0].response != nil {
		o = append(o, logfmt.F("tool_use_result", s.results[0].response))
	}
	s.results = nil
	s.line(o)
}
