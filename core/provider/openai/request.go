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
// What a server needs back goes back exactly, from the message's
// providerData (stream.go keeps it): reasoning_content on the assistant
// message (DeepSeek's and Kimi's thinking mode refuse a tool-call turn
// without it), Gemini's extra_content on each tool call (its thought
// signature) and on the message, and OpenAI's refusal text. In a request
// where any assistant message carries reasoning_content, an assistant
// message with tool calls and none gets "" (thinking mode wants the field
// on every such turn); a request with none never gets the field, as older
// reasoners (deepseek-reasoner R1) refused it.
//
// The output cap is sent only when the user set one (--max-tokens or the
// settings): servers know their models' limits, and OpenAI's newer models
// refuse max_tokens, which older compatible servers need. OpenAI itself
// (the default base URL) gets max_completion_tokens, others max_tokens.

type request struct {
	Model               string         `json:"model"`
	Messages            []message      `json:"messages"`
	Tools               []tool         `json:"tools,omitempty"`
	MaxTokens           int            `json:"max_tokens,omitempty"`
	MaxCompletionTokens int            `json:"max_completion_tokens,omitempty"`
	Stream              bool           `json:"stream"`
	StreamOptions       *streamOptions `json:"stream_options,omitempty"`
}

type streamOptions struct {
	IncludeUsage bool `json:"include_usage"`
}

type message struct {
	Role             string          `json:"role"`
	Content          any             `json:"content"` // *string, nil (null), or []contentPart
	ReasoningContent *string         `json:"reasoning_content,omitempty"`
	Refusal          *string         `json:"refusal,omitempty"`
	ToolCalls        []toolCall      `json:"tool_calls,omitempty"`
	ToolCallID       string          `json:"tool_call_id,omitempty"`
	ExtraContent     json.RawMessage `json:"extra_content,omitempty"`
}

type toolCall struct {
	ID           string          `json:"id"`
	Type         string          `json:"type"`
	Function     function        `json:"function"`
	ExtraContent json.RawMessage `json:"extra_content,omitempty"`
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

// options are the request's choices that do not come from req.
type options struct {
	streamOptions bool // send stream_options.include_usage
	officialAPI   bool // the base URL is OpenAI's own
}

// encodeRequest builds the request body for req. Interrupted assistant
// messages already carry their note: core adds it to what it sends.
func encodeRequest(req *provider.Request, o options) ([]byte, error) {
	r := request{Model: req.Model, Stream: true, Messages: make([]message, 0, len(req.Messages))}
	if o.streamOptions {
		r.StreamOptions = &streamOptions{IncludeUsage: true}
	}
	if req.MaxTokensSet && req.MaxTokens > 0 {
		if o.officialAPI {
			r.MaxCompletionTokens = req.MaxTokens
		} else {
			r.MaxTokens = req.MaxTokens
		}
	}
	thinkingMode := false
	for i := range req.Messages {
		m := &req.Messages[i]
		if m.Role == chat.RoleAssistant && m.DataFor(provider.OpenAI).Get("reasoning_content").Exists() {
			thinkingMode = true
			break
		}
	}
	for i := range req.Messages {
		m := &req.Messages[i]
		content := m.Content
		out := message{Role: m.Role, Content: &content}
		switch m.Role {
		case chat.RoleAssistant:
			data := m.DataFor(provider.OpenAI)
			for _, tc := range m.ToolCalls {
				args := tc.Arguments
				if args == "" {
					args = "{}"
				}
				call := toolCall{ID: tc.ID, Type: "function", Function: function{Name: tc.Name, Arguments: args}}
				if ec := data.Get("toolCalls").Get(gjson.Escape(tc.ID)).Get("extra_content"); ec.Exists() {
					call.ExtraContent = compact(ec)
				}
				out.ToolCalls = append(out.ToolCalls, call)
			}
			if content == "" && len(out.ToolCalls) > 0 {
				out.Content = nil
			}
			if rc := data.Get("reasoning_content"); rc.Exists() {
				s := rc.String()
				out.ReasoningContent = &s
			} else if thinkingMode && len(out.ToolCalls) > 0 {
				empty := ""
				out.ReasoningContent = &empty
			}
			if rf := data.Get("refusal"); rf.Type == gjson.String {
				s := rf.String()
				out.Refusal = &s
			}
			if ec := data.Get("extra_content"); ec.Exists() {
				out.ExtraContent = compact(ec)
			}
		case chat.RoleTool:
			out.ToolCallID = m.ToolCallID
		case chat.RoleUser:
			if parts := m.ImageParts(); parts != nil {
				out.Content = contentParts(parts, content)
			}
		case chat.RoleSystem:
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

// contentPart is one entry of a user message's content array: text, or an
// image by URL (a data: URL for inline bytes), as Chat Completions takes
// images and Robota's converter sends a message's parts.
type contentPart struct {
	Type     string    `json:"type"`
	Text     string    `json:"text,omitempty"`
	ImageURL *imageURL `json:"image_url,omitempty"`
}

type imageURL struct {
	URL string `json:"url"`
}

// contentParts is a user message's parts (Robota's) as the content array
// (chat.Sent says which and in what order). A tool message stays text:
// the API takes no images there.
func contentParts(parts []chat.Part, content string) []contentPart {
	var out []contentPart
	for _, p := range chat.Sent(parts, content) {
		switch p.Type {
		case chat.PartText:
			out = append(out, contentPart{Type: "text", Text: p.Text})
		case chat.PartImageInline:
			out = append(out, contentPart{Type: "image_url", ImageURL: &imageURL{URL: "data:" + p.MimeType + ";base64," + p.Data}})
		case chat.PartImageURI:
			out = append(out, contentPart{Type: "image_url", ImageURL: &imageURL{URL: p.URI}})
		}
	}
	return out
}

// compact is a stored value as it is sent: compact (a record keeps it indented).
func compact(v gjson.Result) json.RawMessage {
	return chat.CompactBytes([]byte(v.Raw))
}
