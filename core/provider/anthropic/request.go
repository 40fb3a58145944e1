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
//
// An assistant message that carries this provider's content blocks
// (providerData: thinking with its signature, redacted thinking, server
// tools, text with citations) is sent as those blocks, unchanged and in
// their order, as the API requires during tool use; its tool_use blocks
// take their input from the message's tool calls, and a tool_use the
// message no longer calls (one cut short by max_tokens) is left out.
// Thinking blocks go back only while thinking is on: with it off, the API
// refuses them. Thinking a server did though it was not asked to (DeepSeek's
// Anthropic endpoint, models that think by default) goes back always: the
// server that thinks unasked refuses a tool loop without it. An assistant
// message never ends with a thinking block.
//
// Prompt caching: the request's prefix is marked for the cache at three
// places (the API allows four): the system prompt, the last tool, and the
// last block of the last user turn. Round n+1 of a tool loop then reads
// everything up to round n's last user turn from the cache, since a
// breakpoint finds an earlier cache entry up to 20 blocks back.

type request struct {
	Model     string    `json:"model"`
	MaxTokens int       `json:"max_tokens"`
	Thinking  *thinking `json:"thinking,omitempty"`
	System    any       `json:"system,omitempty"` // a string, or text blocks with a cache breakpoint
	Messages  []message `json:"messages"`
	Tools     []tool    `json:"tools,omitempty"`
	Stream    bool      `json:"stream"`
}

type thinking struct {
	Type         string `json:"type"`
	BudgetTokens int    `json:"budget_tokens,omitempty"`
}

type cacheControl struct {
	Type string `json:"type"`
}

var ephemeral = &cacheControl{Type: "ephemeral"}

type message struct {
	Role    string
	Content []block
}

// MarshalJSON sends a message of one plain text block as a string, the
// form most examples use; anything else as blocks.
func (m message) MarshalJSON() ([]byte, error) {
	if len(m.Content) == 1 && m.Content[0].Type == "text" && m.Content[0].raw == nil && m.Content[0].CacheControl == nil {
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
	Type         string          `json:"type"`
	Text         string          `json:"text,omitempty"`
	ID           string          `json:"id,omitempty"`
	Name         string          `json:"name,omitempty"`
	Input        json.RawMessage `json:"input,omitempty"`
	ToolUseID    string          `json:"tool_use_id,omitempty"`
	Content      *string         `json:"content,omitempty"`
	IsError      bool            `json:"is_error,omitempty"`
	Source       *imageSource    `json:"source,omitempty"`
	CacheControl *cacheControl   `json:"cache_control,omitempty"`

	raw   json.RawMessage // a block sent back exactly as the API gave it
	parts []block         // a tool_result's content when it holds images
}

// imageSource is an image block's source: base64 data or a URL.
type imageSource struct {
	Type      string `json:"type"`
	MediaType string `json:"media_type,omitempty"`
	Data      string `json:"data,omitempty"`
	URL       string `json:"url,omitempty"`
}

// plainBlock is block without its MarshalJSON.
type plainBlock block

func (b block) MarshalJSON() ([]byte, error) {
	if b.raw != nil {
		return b.raw, nil
	}
	if b.parts != nil {
		return wire.Marshal(struct {
			plainBlock
			Content []block `json:"content"`
		}{plainBlock(b), b.parts})
	}
	return wire.Marshal(plainBlock(b))
}

type tool struct {
	Name         string          `json:"name"`
	Description  string          `json:"description,omitempty"`
	InputSchema  json.RawMessage `json:"input_schema"`
	CacheControl *cacheControl   `json:"cache_control,omitempty"`
}

// summaryLead opens a conversation whose first turn is the assistant's (a
// compaction summary), since the API requires a user turn first.
const summaryLead = "(The earlier conversation was summarised; the summary follows.)"

// encodeRequest builds the request body for req. With thinking on, the
// API refuses a conversation whose last assistant turn calls tools without
// opening with its thinking (a round trail ran before thinking was turned
// on, or another program's): that request goes without thinking, rather
// than fail every time.
func encodeRequest(req *provider.Request) ([]byte, error) {
	r := build(req, req.Thinking != nil)
	if r.Thinking != nil && !thinkingFirst(r.Messages) {
		r = build(req, false)
	}
	return wire.Marshal(r)
}

// thinkingFirst reports whether the last assistant turn, when it calls a
// tool, starts with a thinking block.
func thinkingFirst(msgs []message) bool {
	for i := len(msgs) - 1; i >= 0; i-- {
		if msgs[i].Role != "assistant" {
			continue
		}
		calls := false
		for _, b := range msgs[i].Content {
			calls = calls || b.Type == "tool_use"
		}
		first := msgs[i].Content[0].Type
		return !calls || first == "thinking" || first == "redacted_thinking"
	}
	return true
}

func build(req *provider.Request, thinkingOn bool) request {
	r := request{Model: req.Model, MaxTokens: req.MaxTokens, Stream: true, Messages: []message{}}
	if t := req.Thinking; t != nil && thinkingOn {
		r.Thinking = &thinking{Type: "enabled", BudgetTokens: t.Budget}
		if t.Adaptive {
			r.Thinking = &thinking{Type: "adaptive"}
		}
	}
	var system []string
	for i := range req.Messages {
		m := &req.Messages[i]
		if m.Role == chat.RoleSystem {
			if m.Content != "" {
				system = append(system, m.Content)
			}
			continue
		}
		role, blocks := convert(m, thinkingOn)
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
	if len(system) > 0 {
		text := strings.Join(system, "\n\n")
		r.System = text
		if !req.NoCache {
			r.System = []block{{Type: "text", Text: text, CacheControl: ephemeral}}
		}
	}
	for _, t := range req.Tools {
		schema := t.Parameters
		if len(bytes.TrimSpace(schema)) == 0 || !gjson.ValidBytes(schema) {
			schema = json.RawMessage(`{"type":"object"}`)
		}
		r.Tools = append(r.Tools, tool{Name: t.Name, Description: t.Description, InputSchema: schema})
	}
	if !req.NoCache {
		if n := len(r.Tools); n > 0 {
			r.Tools[n-1].CacheControl = ephemeral
		}
		markLastUserTurn(r.Messages)
	}
	return r
}

// markLastUserTurn puts a cache breakpoint on the last block of the last
// user message (a prompt's text or a tool result).
func markLastUserTurn(msgs []message) {
	for i := len(msgs) - 1; i >= 0; i-- {
		if msgs[i].Role != "user" {
			continue
		}
		c := msgs[i].Content
		if last := &c[len(c)-1]; last.raw == nil {
			last.CacheControl = ephemeral
		}
		return
	}
}

// convert maps one message to its role and content blocks. The content
// already carries the interrupted note when the message was interrupted:
// core adds it to what it sends.
func convert(m *chat.Message, thinkingOn bool) (string, []block) {
	switch m.Role {
	case chat.RoleAssistant:
		if native := m.DataFor(provider.Anthropic).Get("content"); native.IsArray() {
			return "assistant", nativeBlocks(m, native, thinkingOn)
		}
		var out []block
		if strings.TrimSpace(m.Content) != "" {
			out = append(out, block{Type: "text", Text: m.Content})
		}
		for _, tc := range m.ToolCalls {
			out = append(out, toolUse(tc))
		}
		return "assistant", out
	case chat.RoleTool:
		content := m.Content
		result := block{Type: "tool_result", ToolUseID: toolID(m.ToolCallID), Content: &content, IsError: failed(m)}
		if parts := m.ImageParts(); parts != nil {
			// A tool's screenshot goes back inside its result, as Robota's
			// converter sends it.
			result.Content, result.parts = nil, partBlocks(parts, m.Content)
		}
		return "user", []block{result}
	default:
		if parts := m.ImageParts(); parts != nil {
			return "user", partBlocks(parts, m.Content)
		}
		if strings.TrimSpace(m.Content) == "" {
			return "user", nil
		}
		return "user", []block{{Type: "text", Text: m.Content}}
	}
}

// partBlocks is a message's parts (Robota's) as content blocks: text, and
// images as base64 or URL sources (chat.Sent says which and in what order).
func partBlocks(parts []chat.Part, content string) []block {
	var out []block
	for _, p := range chat.Sent(parts, content) {
		switch p.Type {
		case chat.PartText:
			out = append(out, block{Type: "text", Text: p.Text})
		case chat.PartImageInline:
			out = append(out, block{Type: "image", Source: &imageSource{Type: "base64", MediaType: p.MimeType, Data: p.Data}})
		case chat.PartImageURI:
			out = append(out, block{Type: "image", Source: &imageSource{Type: "url", URL: p.URI}})
		}
	}
	return out
}

// nativeBlocks is an assistant message's own content blocks, as the file
// comment says.
func nativeBlocks(m *chat.Message, native gjson.Result, thinkingOn bool) []block {
	calls := make(map[string]chat.ToolCall, len(m.ToolCalls))
	for _, tc := range m.ToolCalls {
		calls[tc.ID] = tc
	}
	sent := map[string]bool{}
	var out []block
	unasked := m.DataFor(provider.Anthropic).Get(thinkingUnasked).Bool()
	native.ForEach(func(_, b gjson.Result) bool {
		switch b.Get("type").String() {
		case "thinking", "redacted_thinking":
			if thinkingOn || unasked {
				out = append(out, rawBlock(b))
			}
		case "text":
			if strings.TrimSpace(b.Get("text").String()) != "" {
				out = append(out, rawBlock(b))
			}
		case "tool_use":
			id := b.Get("id").String()
			if tc, ok := calls[id]; ok && !sent[id] {
				sent[id] = true
				out = append(out, toolUse(tc))
			}
		default:
			out = append(out, rawBlock(b))
		}
		return true
	})
	for _, tc := range m.ToolCalls {
		if !sent[tc.ID] {
			out = append(out, toolUse(tc))
		}
	}
	for n := len(out); n > 0 && (out[n-1].Type == "thinking" || out[n-1].Type == "redacted_thinking"); n = len(out) {
		out = out[:n-1]
	}
	return out
}

// rawBlock is a stored block as it is sent: compact (a record keeps it
// indented).
func rawBlock(b gjson.Result) block {
	return block{Type: b.Get("type").String(), raw: chat.CompactBytes([]byte(b.Raw))}
}

func toolUse(tc chat.ToolCall) block {
	return block{Type: "tool_use", ID: toolID(tc.ID), Name: tc.Name, Input: toolInput(tc.Arguments)}
}

// failed reports whether a tool result is a failure, which the API is
// told with is_error: its metadata says "success": false (as an import of
// Claude Code's is_error and Robota's failed tools store it), or it is
// trail's {"success", "output", "error"?} JSON with "success": false.
func failed(m *chat.Message) bool {
	if len(m.Metadata) > 0 && gjson.ValidBytes(m.Metadata) && gjson.GetBytes(m.Metadata, "success").Type == gjson.False {
		return true
	}
	return gjson.Valid(m.Content) && gjson.Get(m.Content, "success").Type == gjson.False
}

// toolInput is a call's arguments as the object the API wants; arguments
// that are not a JSON object (a model's malformed call) become {}.
func toolInput(args string) json.RawMessage {
	if gjson.Valid(args) && gjson.Parse(args).IsObject() {
		return json.RawMessage(args)
	}
	return json.RawMessage(`{}`)
}
