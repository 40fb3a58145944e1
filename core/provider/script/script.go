// Package script is the offline provider that answers from a file of
// responses, one per provider call of the session. The k-th call of a session
// (counted by the record's providerCalls) gets the k-th response, so a
// scripted conversation spans separate run, resume and compact processes.
package script

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strings"
	"time"

	"trail/core/chat"
	"trail/core/errs"
	"trail/core/provider"
)

// Response is one scripted answer (SPEC 4.4). StopReason, Refusal and
// Model stand for what a real API says: "max_tokens" (or "length") makes
// a truncated answer, "refusal" (or a refusal text) a refusal; Model is
// the model the answer names (priced with the model table).
type Response struct {
	Text       string     `json:"text"`
	Thinking   string     `json:"thinking"`
	ToolCalls  []ToolCall `json:"toolCalls"`
	Usage      *Usage     `json:"usage"`
	DelayMS    int        `json:"delayMs"`
	Error      *Error     `json:"error"`
	StopReason string     `json:"stopReason"`
	Refusal    string     `json:"refusal"`
	Model      string     `json:"model"`
}

// ToolCall is a scripted tool call; Arguments may be an object or a JSON string.
type ToolCall struct {
	ID        string          `json:"id"`
	Name      string          `json:"name"`
	Arguments json.RawMessage `json:"arguments"`
}

// Usage accepts Robota's and the Anthropic API's spellings. Input tokens
// include the cached ones, as chat.Usage counts them.
type Usage struct {
	InputTokens    int64 `json:"inputTokens"`
	OutputTokens   int64 `json:"outputTokens"`
	InputTokens2   int64 `json:"input_tokens"`
	OutputTokens2  int64 `json:"output_tokens"`
	CacheRead      int64 `json:"cacheReadInputTokens"`
	CacheCreation  int64 `json:"cacheCreationInputTokens"`
	CacheRead2     int64 `json:"cache_read_input_tokens"`
	CacheCreation2 int64 `json:"cache_creation_input_tokens"`
}

// Error makes the call fail like an HTTP error would.
type Error struct {
	Status  int    `json:"status"`
	Message string `json:"message"`
}

// Provider answers from a script file.
type Provider struct {
	path      string
	responses []Response
}

// Load reads a script: a JSON array of responses, or one response per line.
func Load(path string) (*Provider, error) {
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, errs.Usagef("pass --script with an existing file", "script file %s does not exist", path)
	}
	if err != nil {
		return nil, fmt.Errorf("read script %s: %w", path, err)
	}
	rs, err := parse(data)
	if err != nil {
		return nil, &errs.InvalidDataError{Path: path, Err: err, Fix: "a script is a JSON array of {text, toolCalls, usage, delayMs, error} objects, or one such object per line"}
	}
	return &Provider{path: path, responses: rs}, nil
}

func parse(data []byte) ([]Response, error) {
	data = bytes.TrimSpace(data)
	if len(data) == 0 {
		return nil, nil
	}
	if data[0] == '[' {
		var rs []Response
		if err := json.Unmarshal(data, &rs); err != nil {
			return nil, fmt.Errorf("parse script: %w", err)
		}
		return rs, nil
	}
	var rs []Response
	for i, line := range bytes.Split(data, []byte("\n")) {
		line = bytes.TrimSpace(line)
		if len(line) == 0 {
			continue
		}
		var r Response
		if err := json.Unmarshal(line, &r); err != nil {
			return nil, fmt.Errorf("parse script line %d: %w", i+1, err)
		}
		rs = append(rs, r)
	}
	return rs, nil
}

func (*Provider) Name() string       { return provider.Script }
func (*Provider) APISurface() string { return "script" }

// Call plays response number req.CallIndex. With delayMs, text is streamed
// word by word across the delay, so interrupts see a partial answer.
func (p *Provider) Call(ctx context.Context, req *provider.Request, sink provider.Sink) (*provider.Response, error) {
	k := req.CallIndex
	if k < 0 || k >= len(p.responses) {
		return nil, &errs.ProviderError{
			Provider: provider.Script,
			Message:  fmt.Sprintf("no response #%d in %s (it holds %d)", k+1, p.path, len(p.responses)),
			Fix:      "add responses to the script, or start a new session",
		}
	}
	r := p.responses[k]
	if r.Thinking != "" {
		sink.ThinkingDelta(r.Thinking)
	}
	if err := stream(ctx, r, sink); err != nil {
		return nil, err
	}
	if r.Error != nil {
		return nil, &errs.ProviderError{Provider: provider.Script, Status: r.Error.Status, Message: r.Error.Message}
	}
	resp := &provider.Response{Text: r.Text, Thinking: r.Thinking, StopReason: "end_turn", Model: req.Model}
	if r.Model != "" {
		resp.Model = r.Model
	}
	for i, tc := range r.ToolCalls {
		id := tc.ID
		if id == "" {
			id = fmt.Sprintf("call_%d_%d", k, i)
		}
		args := string(tc.Arguments)
		var s string
		if json.Unmarshal(tc.Arguments, &s) == nil {
			args = s
		}
		if args == "" || args == "null" {
			args = "{}"
		}
		sink.ToolCallStarted(i, id, tc.Name)
		resp.ToolCalls = append(resp.ToolCalls, chat.ToolCall{ID: id, Type: "function", Name: tc.Name, Arguments: args})
	}
	if len(resp.ToolCalls) > 0 {
		resp.StopReason = "tool_use"
	}
	if r.StopReason != "" {
		resp.StopReason = r.StopReason
	}
	switch {
	case r.Refusal != "" || resp.StopReason == "refusal":
		resp.Stop, resp.Refusal = provider.StopRefusal, r.Refusal
		if r.StopReason == "" {
			resp.StopReason = "refusal"
		}
	case resp.StopReason == "max_tokens" || resp.StopReason == "length":
		resp.Stop = provider.StopMaxTokens
	case resp.StopReason == "pause_turn":
		resp.Stop = provider.StopPauseTurn
	}
	if u := r.Usage; u != nil {
		resp.HasUsage = true
		resp.Usage = chat.Usage{InputTokens: u.InputTokens + u.InputTokens2, OutputTokens: u.OutputTokens + u.OutputTokens2,
			CacheReadTokens: u.CacheRead + u.CacheRead2, CacheCreationTokens: u.CacheCreation + u.CacheCreation2}
	}
	return resp, nil
}

// stream emits the text, spread over delayMs when one is given.
func stream(ctx context.Context, r Response, sink provider.Sink) error {
	if r.DelayMS <= 0 {
		if err := ctx.Err(); err != nil {
			return err
		}
		if r.Text != "" {
			sink.TextDelta(r.Text)
		}
		return nil
	}
	words := splitWords(r.Text)
	steps := max(len(words), 1)
	tick := time.Duration(r.DelayMS) * time.Millisecond / time.Duration(steps)
	t := time.NewTimer(tick)
	defer t.Stop()
	for i := 0; i < steps; i++ {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-t.C:
			t.Reset(tick)
		}
		if i < len(words) {
			sink.TextDelta(words[i])
		}
	}
	return nil
}

// splitWords cuts text after each space so the pieces concatenate back to it.
func splitWords(text string) []string {
	var out []string
	for text != "" {
		i := strings.IndexByte(text, ' ')
		if i < 0 {
			out = append(out, text)
			break
		}
		out = append(out, text[:i+1])
		text = text[i+1:]
	}
	return out
}
