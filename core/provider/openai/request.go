package openai

import (
	"bytes"
	"encoding/json"

	"github.com/tidwall/gjson"

	"trail/core/chat"
	"trail/core/provider"
	"trail/core/provider/wire"
)

// Chat Completions takes trail's (Robota's) message list almost as it is:
// system, user and assistant messages keep their role; an assistant's tool
// calls become tool_calls (arguments stay a JSON string); a tool result is
// a "tool" message naming its tool_call_id. An assistant message that only
// calls tools has content null.
//
// No output cap is sent: max_tokens is refused by OpenAI's newer models,
// max_completion_tokens is unknown to many compatible servers, and either
// can exceed an older model's limit; the server's default is the model's.

type request struct {
	Model         string        `json:"model"`
	Messages      []message     `json:"messages"`
	Tools         []tool        `json:"tools,omitempty"`
	Stream        bool          `json:"stream"`
	StreamOptions streamOptions `json:"stream_options"`
}

type streamOptions struct {
	IncludeUsage bool `json:"include_usage"`
}

type message struct {
	Role       string     `json:"role"`
	Content    *string    `json:"content"`
	ToolCalls  []toolCall `json:"tool_calls,omitempty"`
	ToolCallID string     `json:"tool_call_id,omitempty"`
}

type toolCall struct {
	ID       string   `json:"id"`
	Type     string   `json:"type"`
	Function function `json:"function"`
}

type function struct {
	Name      string `json:"name"`
	Arguments string `json:"arguments"`
}

type tool struct {
	Type     string       `json:"type"`
	Function toolFunction `json:"function"`
}

type toolFunction struct {
	Name        string          `json:"name"`
	Description string          `json:"description,omitempty"`
	Parameters  json.RawMessage `json:"parameters"`
}

// encodeRequest builds the request body for req. Interrupted assistant
// messages already carry their note: core adds it to what it sends.
func encodeRequest(req *provider.Request) ([]byte, error) {
	r := request{Model: req.Model, Stream: true, StreamOptions: streamOptions{IncludeUsage: true}, Messages: make([]message, 0, len(req.Messages))}
	for i := range req.Messages {
		m := &req.Messages[i]
		content := m.Content
		out := message{Role: m.Role, Content: &content}
		switch m.Role {
		case chat.RoleAssistant:
			for _, tc := range m.ToolCalls {
				args := tc.Arguments
				if args == "" {
					args = "{}"
				}
				out.ToolCalls = append(out.ToolCalls, toolCall{ID: tc.ID, Type: "function", Function: function{Name: tc.Name, Arguments: args}})
			}
			if content == "" && len(out.ToolCalls) > 0 {
				out.Content = nil
			}
		case chat.RoleTool:
			out.ToolCallID = m.ToolCallID
		case chat.RoleSystem, chat.RoleUser:
		default:
			out.Role = chat.RoleUser
		}
		r.Messages = append(r.Messages, out)
	}
	for _, t := range req.Tools {
		params := t.Parameters
		if len(bytes.TrimSpace(params)) == 0 || !gjson.ValidBytes(params) {
			params = json.RawMessage(`{"type":"object","properties":{}}`)
		}
		r.Tools = append(r.Tools, tool{Type: "function", Function: toolFunction{Name: t.Name, Description: t.Description, Parameters: params}})
	}
	return wire.Marshal(r)
}
