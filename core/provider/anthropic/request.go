package anthropic

import (
	"bytes"
	"encoding/json"
	"strings"

	"github.com/tidwall/gjson"

	"trail/core/chat"
	"trail/core/provider"
	"trail/core/provider/wire"
)

// The Messages API differs from trail's (Robota's) message list in four
// ways this file bridges: the system prompt is a top-level field; tool calls
// are tool_use blocks of the assistant message; tool results are
// tool_result blocks of a user message; and roles must alternate, so
// consecutive messages of one role (tool results followed by the next
// prompt, or a prompt after a failed round) are merged into one.
// Text blocks that are empty or only whitespace are dropped: the API
// rejects them, and a model that opened a tool call with "\n\n" would
// otherwise make every later request of the session fail.

type request struct {
	Model     string    `json:"model"`
	MaxTokens int       `json:"max_tokens"`
	System    string    `json:"system,omitempty"`
	Messages  []message `json:"messages"`
	Tools     []tool    `json:"tools,omitempty"`
	Stream    bool      `json:"stream"`
}

type message struct {
	Role    string
	Content []block
}

// MarshalJSON sends a message of one text block as a plain string, the
// form most examples use; anything else as blocks.
func (m message) MarshalJSON() ([]byte, error) {
	if len(m.Content) == 1 && m.Content[0].Type == "text" {
		return wire.Marshal(struct {
			Role    string `json:"role"`
			Content string `json:"content"`
		}{m.Role, m.Content[0].Text})
	}
	return wire.Marshal(struct {
		Role    string  `json:"role"`
		Content []block `json:"content"`
	}{m.Role, m.Content})
}

type block struct {
	Type      string          `json:"type"`
	Text      string          `json:"text,omitempty"`
	ID        string          `json:"id,omitempty"`
	Name      string          `json:"name,omitempty"`
	Input     json.RawMessage `json:"input,omitempty"`
	ToolUseID string          `json:"tool_use_id,omitempty"`
	Content   *string         `json:"content,omitempty"`
	IsError   bool            `json:"is_error,omitempty"`
}

type tool struct {
	Name        string          `json:"name"`
	Description string          `json:"description,omitempty"`
	InputSchema json.RawMessage `json:"input_schema"`
}

// summaryLead opens a conversation whose first turn is the assistant's (a
// compaction summary), since the API requires a user turn first.
const summaryLead = "(The earlier conversation was summarised; the summary follows.)"

// encodeRequest builds the request body for req.
func encodeRequest(req *provider.Request) ([]byte, error) {
	r := request{Model: req.Model, MaxTokens: req.MaxTokens, Stream: true, Messages: []message{}}
	var system []string
	for i := range req.Messages {
		m := &req.Messages[i]
		if m.Role == chat.RoleSystem {
			if m.Content != "" {
				system = append(system, m.Content)
			}
			continue
		}
		role, blocks := convert(m)
		if len(blocks) == 0 {
			continue
		}
		if n := len(r.Messages); n > 0 && r.Messages[n-1].Role == role {
			r.Messages[n-1].Content = append(r.Messages[n-1].Content, blocks...)
			continue
		}
		r.Messages = append(r.Messages, message{Role: role, Content: blocks})
	}
	// The Messages API wants the conversation to open with a user turn; a
	// compacted session opens with the assistant's summary.
	if len(r.Messages) > 0 && r.Messages[0].Role == "assistant" {
		r.Messages = append([]message{{Role: "user", Content: []block{{Type: "text", Text: summaryLead}}}}, r.Messages...)
	}
	r.System = strings.Join(system, "\n\n")
	for _, t := range req.Tools {
		schema := t.Parameters
		if len(bytes.TrimSpace(schema)) == 0 || !gjson.ValidBytes(schema) {
			schema = json.RawMessage(`{"type":"object"}`)
		}
		r.Tools = append(r.Tools, tool{Name: t.Name, Description: t.Description, InputSchema: schema})
	}
	return wire.Marshal(r)
}

// convert maps one message to its role and content blocks. The content
// already carries the interrupted note when the message was interrupted:
// core adds it to what it sends.
func convert(m *chat.Message) (string, []block) {
	switch m.Role {
	case chat.RoleAssistant:
		var out []block
		if strings.TrimSpace(m.Content) != "" {
			out = append(out, block{Type: "text", Text: m.Content})
		}
		for _, tc := range m.ToolCalls {
			out = append(out, block{Type: "tool_use", ID: tc.ID, Name: tc.Name, Input: toolInput(tc.Arguments)})
		}
		return "assistant", out
	case chat.RoleTool:
		content := m.Content
		return "user", []block{{Type: "tool_result", ToolUseID: m.ToolCallID, Content: &content, IsError: failed(content)}}
	default:
		if strings.TrimSpace(m.Content) == "" {
			return "user", nil
		}
		return "user", []block{{Type: "text", Text: m.Content}}
	}
}

// failed reports whether a tool result (trail's {"success", "output",
// "error"?} JSON) is a failure, which the API is told with is_error.
func failed(result string) bool {
	return gjson.Valid(result) && gjson.Get(result, "success").Type == gjson.False
}

// toolInput is a call's arguments as the object the API wants; arguments
// that are not a JSON object (a model's malformed call) become {}.
func toolInput(args string) json.RawMessage {
	if gjson.Valid(args) && gjson.Parse(args).IsObject() {
		return json.RawMessage(args)
	}
	return json.RawMessage(`{}`)
}
