package openai

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/tidwall/gjson"

	"trail/core/chat"
	"trail/core/errs"
	"trail/core/provider"
	"trail/core/provider/wire"
	"trail/core/provider/wire/wiretest"
)

const key = "sk-proj-test-key-0123456789abcdefghijklmnop"

func newProvider(url, apiKey string, retries int) *Provider {
	return mustNew(New(provider.Config{Name: "openai", Model: "gpt-4o-mini", BaseURL: url, APIKey: apiKey, MaxRetries: retries, Timeout: 2 * time.Second},
		wire.Options{BaseDelay: time.Millisecond}))
}

// mustNew is New's provider, for tests whose base URLs are valid.
func mustNew(p *Provider, err error) *Provider {
	if err != nil {
		panic(err)
	}
	return p
}

func msg(role, content string) chat.Message {
	return chat.Message{Role: role, Content: content, State: chat.StateComplete}
}

func hello() *provider.Request {
	return &provider.Request{Model: "gpt-4o-mini", MaxTokens: 256, Messages: []chat.Message{msg("system", "You are a helpful assistant."), msg("user", "Hello!")}}
}

func TestPlainTextStreamsWithUsage(t *testing.T) {
	srv := wiretest.NewServer(t, wiretest.Replay(wiretest.Transcript(t, "openai/text.sse")))
	sink := &wiretest.Sink{}
	resp, err := newProvider(srv.URL+"/v1", key, 0).Call(context.Background(), hello(), sink)
	if err != nil {
		t.Fatal(err)
	}
	if resp.Text != "Hello there, how may I assist you today?" || len(sink.Text) != 2 {
		t.Errorf("text %q, deltas %q", resp.Text, sink.Text)
	}
	if !resp.HasUsage || resp.Usage != (chat.Usage{InputTokens: 9, OutputTokens: 12}) {
		t.Errorf("usage %+v (has %v)", resp.Usage, resp.HasUsage)
	}
	if resp.StopReason != "stop" || resp.Model != "gpt-4o-mini" {
		t.Errorf("stop %q model %q", resp.StopReason, resp.Model)
	}
	if k := sink.Kinds(); k["request"] != 1 || k["stream_event"] != 6 {
		t.Errorf("raw payloads %v, want 1 request and 6 stream events ([DONE] included)", k)
	}
	if h := srv.Header(0); h.Get("Authorization") != "Bearer "+key {
		t.Errorf("Authorization = %q", h.Get("Authorization"))
	}
	want := `{"model":"gpt-4o-mini","messages":[{"role":"system","content":"You are a helpful assistant."},{"role":"user","content":"Hello!"}],"stream":true,"stream_options":{"include_usage":true}}`
	if got := wiretest.Compact(t, srv.Body(0)); got != want {
		t.Errorf("body\n got %s\nwant %s", got, want)
	}
}

func TestCompatibleServerNeedsNoKey(t *testing.T) {
	srv := wiretest.NewServer(t, wiretest.Replay(wiretest.Transcript(t, "openai/text.sse")))
	if _, err := newProvider(srv.URL+"/v1/", "", 0).Call(context.Background(), hello(), &wiretest.Sink{}); err != nil {
		t.Fatal(err)
	}
	if h := srv.Header(0); h.Get("Authorization") != "" {
		t.Errorf("sent Authorization %q without a key", h.Get("Authorization"))
	}
}

func TestTextThenToolCallAccumulatedByIndex(t *testing.T) {
	srv := wiretest.NewServer(t, wiretest.Replay(wiretest.Transcript(t, "openai/tool_calls.sse")))
	sink := &wiretest.Sink{}
	req := hello()
	req.Tools = []chat.ToolSchema{{Name: "get_weather", Description: "Get current temperature for a given location.", Parameters: []byte(`{"type":"object","properties":{"location":{"type":"string"}},"required":["location"]}`)}}
	resp, err := newProvider(srv.URL, key, 0).Call(context.Background(), req, sink)
	if err != nil {
		t.Fatal(err)
	}
	if resp.Text != "Let me look that up." {
		t.Errorf("text = %q", resp.Text)
	}
	if len(resp.ToolCalls) != 1 || resp.ToolCalls[0] != (chat.ToolCall{ID: "call_DdmO9pD3xa9XTPNJ32zg2hcA", Type: "function", Name: "get_weather", Arguments: `{"location":"Paris, France"}`}) {
		t.Errorf("tool calls = %+v", resp.ToolCalls)
	}
	if len(sink.Tools) != 1 || sink.Tools[0] != "0 call_DdmO9pD3xa9XTPNJ32zg2hcA get_weather" {
		t.Errorf("ToolCallStarted = %q", sink.Tools)
	}
	var args strings.Builder
	for _, in := range sink.Input {
		idx, piece, _ := strings.Cut(in, " ")
		if idx != "0" {
			t.Errorf("ToolInputDelta for call %s", idx)
		}
		args.WriteString(piece)
	}
	if len(sink.Input) < 2 || args.String() != `{"location":"Paris, France"}` {
		t.Errorf("ToolInputDelta pieces %q", sink.Input)
	}
	if resp.StopReason != "tool_calls" || resp.Usage != (chat.Usage{InputTokens: 82, OutputTokens: 24}) {
		t.Errorf("stop %q usage %+v", resp.StopReason, resp.Usage)
	}
	if got := gjson.GetBytes(srv.Body(0), "tools").Raw; got != `[{"type":"function","function":{"name":"get_weather","description":"Get current temperature for a given location.","parameters":{"type":"object","properties":{"location":{"type":"string"}},"required":["location"]}}}]` {
		t.Errorf("tools sent = %s", got)
	}
}

func TestParallelToolCallsKeepTheirOrder(t *testing.T) {
	chunk := func(delta string) string {
		return `data: {"id":"c","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":` + delta + `,"finish_reason":null}]}` + "\n\n"
	}
	events := []string{
		chunk(`{"tool_calls":[{"index":0,"id":"call_a","type":"function","function":{"name":"Read","arguments":""}}]}`),
		chunk(`{"tool_calls":[{"index":1,"id":"call_b","type":"function","function":{"name":"Glob","arguments":"{\"pattern\""}}]}`),
		chunk(`{"tool_calls":[{"index":0,"function":{"arguments":"{\"filePath\":\"a\"}"}}]}`),
		chunk(`{"tool_calls":[{"index":1,"function":{"arguments":":\"*.go\"}"}}]}`),
		`data: {"id":"c","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{},"finish_reason":"tool_calls"}]}` + "\n\n",
		// no [DONE]: some compatible servers just close after the finish
	}
	srv := wiretest.NewServer(t, wiretest.Replay(events))
	resp, err := newProvider(srv.URL, "", 0).Call(context.Background(), hello(), &wiretest.Sink{})
	if err != nil {
		t.Fatal(err)
	}
	if len(resp.ToolCalls) != 2 || resp.ToolCalls[0].Arguments != `{"filePath":"a"}` || resp.ToolCalls[1].Name != "Glob" || resp.ToolCalls[1].Arguments != `{"pattern":"*.go"}` {
		t.Errorf("tool calls = %+v", resp.ToolCalls)
	}
}

// Gemini's OpenAI endpoint and some proxies leave out tool_calls[].index:
// each call starts with its own id, and its arguments may follow in
// fragments without one.
func TestToolCallsWithoutAnIndexStaySeparate(t *testing.T) {
	chunk := func(delta string) string {
		return `data: {"id":"c","object":"chat.completion.chunk","created":1,"model":"gemini","choices":[{"index":0,"delta":` + delta + `,"finish_reason":null}]}` + "\n\n"
	}
	events := []string{
		chunk(`{"role":"assistant","tool_calls":[{"id":"function-call-1","type":"function","function":{"name":"Glob","arguments":"{\"pattern\":\"*.go\"}"}}]}`),
		chunk(`{"tool_calls":[{"id":"function-call-2","type":"function","function":{"name":"Read","arguments":"{\"filePath\":"}}]}`),
		chunk(`{"tool_calls":[{"index":null,"function":{"arguments":"\"a.go\"}"}}]}`),
		chunk(`{"tool_calls":[{"id":"function-call-3","type":"function","function":{"name":"Glob","arguments":"{}"}},{"id":"function-call-4","type":"function","function":{"name":"Grep","arguments":"{\"pattern\":\"x\"}"}}]}`),
		`data: {"id":"c","object":"chat.completion.chunk","created":1,"model":"gemini","choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}` + "\n\n",
		"data: [DONE]\n\n",
	}
	srv := wiretest.NewServer(t, wiretest.Replay(events))
	sink := &wiretest.Sink{}
	resp, err := newProvider(srv.URL, "", 0).Call(context.Background(), hello(), sink)
	if err != nil {
		t.Fatal(err)
	}
	want := []chat.ToolCall{
		{ID: "function-call-1", Type: "function", Name: "Glob", Arguments: `{"pattern":"*.go"}`},
		{ID: "function-call-2", Type: "function", Name: "Read", Arguments: `{"filePath":"a.go"}`},
		{ID: "function-call-3", Type: "function", Name: "Glob", Arguments: `{}`},
		{ID: "function-call-4", Type: "function", Name: "Grep", Arguments: `{"pattern":"x"}`},
	}
	if len(resp.ToolCalls) != len(want) {
		t.Fatalf("tool calls = %+v", resp.ToolCalls)
	}
	for i := range want {
		if resp.ToolCalls[i] != want[i] {
			t.Errorf("call %d = %+v, want %+v", i, resp.ToolCalls[i], want[i])
		}
	}
	if len(sink.Tools) != 4 || sink.Tools[3] != "3 function-call-4 Grep" {
		t.Errorf("ToolCallStarted = %q", sink.Tools)
	}
}

func TestReasoningDeltasGoToTheSink(t *testing.T) {
	srv := wiretest.NewServer(t, wiretest.Replay(wiretest.Transcript(t, "openai/reasoning.sse")))
	sink := &wiretest.Sink{}
	resp, err := newProvider(srv.URL, "", 0).Call(context.Background(), hello(), sink)
	if err != nil {
		t.Fatal(err)
	}
	if resp.Thinking != "9.11 has a smaller fractional part than 9.9." || resp.Text != "9.9 is greater." {
		t.Errorf("thinking %q text %q", resp.Thinking, resp.Text)
	}
	if strings.Join(sink.Text, "") != "9.9 is greater." || len(sink.Thinking) != 2 {
		t.Errorf("deltas text %q thinking %q", sink.Text, sink.Thinking)
	}
}

// The second turn of a tool conversation: tool_calls on the assistant
// message with null content, a "tool" message per result, and an
// interrupted answer with its note.
func TestConversationGoesBackInTheChatShape(t *testing.T) {
	srv := wiretest.NewServer(t, wiretest.Replay(wiretest.Transcript(t, "openai/after_tool.sse")))
	asst := msg("assistant", "")
	asst.ToolCalls = []chat.ToolCall{{ID: "call_DdmO9pD3xa9XTPNJ32zg2hcA", Type: "function", Name: "get_weather", Arguments: `{"location":"Paris, France"}`}}
	result := msg("tool", `{"success":true,"output":"14°C, sunny"}`)
	result.ToolCallID = "call_DdmO9pD3xa9XTPNJ32zg2hcA"
	result.Name = "get_weather"
	req := &provider.Request{Model: "gpt-4o", Messages: []chat.Message{
		msg("system", "sys"),
		msg("user", "What's the weather like in Paris today?"),
		asst, result,
		msg("assistant", "Half"+chat.InterruptedNote),
		msg("user", "go on"),
	}}
	resp, err := newProvider(srv.URL, key, 0).Call(context.Background(), req, &wiretest.Sink{})
	if err != nil {
		t.Fatal(err)
	}
	if resp.Text != "It is 14°C and sunny in Paris." {
		t.Errorf("text = %q", resp.Text)
	}
	want := `{"model":"gpt-4o","messages":[{"role":"system","content":"sys"},{"role":"user","content":"What's the weather like in Paris today?"},` +
		`{"role":"assistant","content":null,"tool_calls":[{"id":"call_DdmO9pD3xa9XTPNJ32zg2hcA","type":"function","function":{"name":"get_weather","arguments":"{\"location\":\"Paris, France\"}"}}]},` +
		`{"role":"tool","content":"{\"success\":true,\"output\":\"14°C, sunny\"}","tool_call_id":"call_DdmO9pD3xa9XTPNJ32zg2hcA"},` +
		`{"role":"assistant","content":"Half\n\n[This response was interrupted by the user]"},{"role":"user","content":"go on"}],` +
		`"stream":true,"stream_options":{"include_usage":true}}`
	if got := wiretest.Compact(t, srv.Body(0)); got != want {
		t.Errorf("body\n got %s\nwant %s", got, want)
	}
}

func TestFaults(t *testing.T) {
	text := wiretest.Transcript(t, "openai/text.sse")
	tests := []struct {
		name        string
		steps       []wiretest.Step
		retries     int
		wantErr     string
		wantStatus  int
		wantCalls   int
		wantRetries int
		wantText    string
	}{
		{
			name:    "429 with retry-after, then success",
			steps:   []wiretest.Step{wiretest.Status(429, wiretest.Body(t, "openai/429.json"), "Retry-After", "0"), wiretest.Replay(text)},
			retries: 4, wantCalls: 2, wantRetries: 1, wantText: "Hello there, how may I assist you today?",
		},
		{
			name:    "500 until the retries run out",
			steps:   []wiretest.Step{wiretest.Status(500, wiretest.Body(t, "openai/500.json"))},
			retries: 2, wantCalls: 3, wantRetries: 2, wantStatus: 500,
			wantErr: "openai: 500 server_error: The server had an error while processing your request. Sorry about that!",
		},
		{
			name:    "401 is not retried",
			steps:   []wiretest.Step{wiretest.Status(401, wiretest.Body(t, "openai/401.json"))},
			retries: 4, wantCalls: 1, wantStatus: 401,
			wantErr: "openai: 401 invalid_api_key: Incorrect API key provided: sk-proj-********************abcd. You can find your API key at https://platform.openai.com/account/api-keys.",
		},
		{
			name:    "the connection cut mid-stream",
			steps:   []wiretest.Step{wiretest.Cut(text, 2)},
			retries: 4, wantCalls: 1, wantText: "Hello",
			wantErr: "openai: connection lost mid-stream: unexpected EOF",
		},
		{
			name:    "a response that ends before any finish_reason",
			steps:   []wiretest.Step{wiretest.Replay(text[:2])},
			retries: 4, wantCalls: 1, wantText: "Hello",
			wantErr: "openai: the stream ended before [DONE]: the connection was closed early",
		},
		{
			name:    "a page that is not an event stream",
			steps:   []wiretest.Step{wiretest.Replay([]string{"<html>hello</html>"})},
			retries: 4, wantCalls: 1,
			wantErr: "openai: the server answered without any stream event: is --base-url an OpenAI-compatible API (usually ending in /v1)?",
		},
		{
			name:    "a malformed SSE line",
			steps:   []wiretest.Step{wiretest.Replay(wiretest.Transcript(t, "openai/malformed.sse"))},
			retries: 4, wantCalls: 1,
			wantErr: `openai: malformed stream event: not JSON: {"id":"chatcmpl-123","object":"chat.completion.chunk","created":1694268190,"model":"gpt-4o-mini", "system_fingerprint": "fp_44709d6fcb", "choices":[{"index":0,"delta":{"content":"Hel`,
		},
		{
			name:    "an error object mid-stream",
			steps:   []wiretest.Step{wiretest.Replay(wiretest.Transcript(t, "openai/error_midstream.sse"))},
			retries: 4, wantCalls: 1, wantText: "Hello",
			wantErr: "openai: server_error: The server had an error while processing your request. Sorry about that!",
		},
		{
			name:    "a server that never answers",
			steps:   []wiretest.Step{wiretest.Hang()},
			retries: 4, wantCalls: 1,
			wantErr: "openai: timed out: no data from the server for 1s",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := wiretest.NewServer(t, tt.steps...)
			p := mustNew(New(provider.Config{Model: "m", BaseURL: srv.URL, APIKey: key, MaxRetries: tt.retries, Timeout: time.Second},
				wire.Options{BaseDelay: time.Millisecond}))
			sink := &wiretest.Sink{}
			resp, err := p.Call(context.Background(), hello(), sink)
			if tt.wantErr == "" {
				if err != nil {
					t.Fatal(err)
				}
				if resp.Text != tt.wantText {
					t.Errorf("text %q, want %q", resp.Text, tt.wantText)
				}
			} else {
				var pe *errs.ProviderError
				if !errors.As(err, &pe) {
					t.Fatalf("err = %#v, want a *core.ProviderError", err)
				}
				if err.Error() != tt.wantErr || pe.Status != tt.wantStatus {
					t.Errorf("err = %q (status %d), want %q (status %d)", err, pe.Status, tt.wantErr, tt.wantStatus)
				}
				if strings.Join(sink.Text, "") != tt.wantText {
					t.Errorf("deltas before the failure %q, want %q", sink.Text, tt.wantText)
				}
			}
			if srv.Requests() != tt.wantCalls || len(sink.Retries) != tt.wantRetries {
				t.Errorf("%d requests, %d retries reported; want %d and %d", srv.Requests(), len(sink.Retries), tt.wantCalls, tt.wantRetries)
			}
		})
	}
}

func TestCancelReturnsPromptlyWithTheDeltasSoFar(t *testing.T) {
	text := wiretest.Transcript(t, "openai/text.sse")
	srv := wiretest.NewServer(t, wiretest.Hold(text, 2))
	ctx, cancel := context.WithCancel(context.Background())
	sink := &wiretest.Sink{OnText: func(string) { time.AfterFunc(10*time.Millisecond, cancel) }}
	start := time.Now()
	_, err := newProvider(srv.URL, key, 4).Call(ctx, hello(), sink)
	if !errors.Is(err, context.Canceled) || time.Since(start) > time.Second {
		t.Fatalf("err = %v after %s", err, time.Since(start))
	}
	if strings.Join(sink.Text, "") != "Hello" {
		t.Errorf("deltas = %q", sink.Text)
	}
}

// A Robota user message's image parts go as Chat Completions content
// parts, inline bytes as a data: URL (Robota's openai-compatible
// message-converter.ts does the same); a message without images stays a
// string.
func TestImagePartsAreSentAsContentParts(t *testing.T) {
	user, err := chat.DecodeMessage(json.RawMessage(`{"id":"u1","role":"user","content":"","state":"complete","timestamp":"t",` +
		`"parts":[{"type":"text","text":"What is this?"},{"type":"image_inline","mimeType":"image/png","data":"abc123=="},` +
		`{"type":"image_uri","uri":"https://example.com/image.png"}]}`))
	if err != nil {
		t.Fatal(err)
	}
	req := &provider.Request{Model: "m", Messages: []chat.Message{msg("system", "sys"), user, msg("user", "plain")}}
	body, err := encodeRequest(req, options{})
	if err != nil {
		t.Fatal(err)
	}
	want := `[{"type":"text","text":"What is this?"},{"type":"image_url","image_url":{"url":"data:image/png;base64,abc123=="}},` +
		`{"type":"image_url","image_url":{"url":"https://example.com/image.png"}}]`
	if got := gjson.GetBytes(body, "messages.1.content").Raw; got != want {
		t.Errorf("user turn\n got %s\nwant %s", got, want)
	}
	if got := gjson.GetBytes(body, "messages.2.content").Raw; got != `"plain"` {
		t.Errorf("a message without images: %s", got)
	}
}
