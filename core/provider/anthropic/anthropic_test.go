package anthropic

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
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

const key = "sk-ant-api03-test-key-0123456789abcdefghijklmnop"

func newProvider(url string, retries int) *Provider {
	return mustNew(New(provider.Config{Name: "anthropic", Model: "claude-opus-4-6", BaseURL: url, APIKey: key, MaxRetries: retries, Timeout: 2 * time.Second},
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
	return &provider.Request{Model: "claude-opus-4-6", MaxTokens: 256, Messages: []chat.Message{msg("system", "be brief"), msg("user", "Hello")}}
}

func TestPlainTextStreams(t *testing.T) {
	srv := wiretest.NewServer(t, wiretest.Replay(wiretest.Transcript(t, "anthropic/text.sse")))
	sink := &wiretest.Sink{}
	resp, err := newProvider(srv.URL, 0).Call(context.Background(), hello(), sink)
	if err != nil {
		t.Fatal(err)
	}
	if resp.Text != "Hello!" || strings.Join(sink.Text, "|") != "Hello|!" {
		t.Errorf("text %q, deltas %q", resp.Text, sink.Text)
	}
	if !resp.HasUsage || resp.Usage != (chat.Usage{InputTokens: 25, OutputTokens: 15}) {
		t.Errorf("usage = %+v (has %v), want 25 in, 15 out", resp.Usage, resp.HasUsage)
	}
	if resp.StopReason != "end_turn" || resp.Model != "claude-opus-4-6" {
		t.Errorf("stop %q model %q", resp.StopReason, resp.Model)
	}
	if k := sink.Kinds(); k["request"] != 1 || k["stream_event"] != 8 {
		t.Errorf("raw payloads %v, want 1 request and 8 stream events (ping included)", k)
	}
	if sink.Raw[0].Kind != "request" {
		t.Errorf("first raw payload is %q, want the request", sink.Raw[0].Kind)
	}
	h := srv.Header(0)
	if h.Get("X-Api-Key") != key || h.Get("Anthropic-Version") != "2023-06-01" || h.Get("Authorization") != "" {
		t.Errorf("headers %v", h)
	}
	body := srv.Body(0)
	// cache breakpoints on the system prompt and the last user turn
	if wiretest.Compact(t, body) != `{"model":"claude-opus-4-6","max_tokens":256,"system":[{"type":"text","text":"be brief","cache_control":{"type":"ephemeral"}}],`+
		`"messages":[{"role":"user","content":[{"type":"text","text":"Hello","cache_control":{"type":"ephemeral"}}]}],"stream":true}` {
		t.Errorf("request body = %s", body)
	}
	if raw := sink.RawJSON(t); raw[0] != string(body) {
		t.Errorf("the logged request differs from the one sent:\n%s\n%s", raw[0], body)
	}
}

func TestAuthTokenIsSentAsBearer(t *testing.T) {
	srv := wiretest.NewServer(t, wiretest.Replay(wiretest.Transcript(t, "anthropic/text.sse")))
	p := mustNew(New(provider.Config{Model: "m", BaseURL: srv.URL + "/", APIKey: "token-123456", BearerAuth: true}, wire.Options{}))
	if _, err := p.Call(context.Background(), hello(), &wiretest.Sink{}); err != nil {
		t.Fatal(err)
	}
	h := srv.Header(0)
	if h.Get("Authorization") != "Bearer token-123456" || h.Get("X-Api-Key") != "" {
		t.Errorf("headers %v", h)
	}
}

func TestTextThenToolCallWithStreamedArguments(t *testing.T) {
	srv := wiretest.NewServer(t, wiretest.Replay(wiretest.Transcript(t, "anthropic/tool_use.sse")))
	sink := &wiretest.Sink{}
	req := hello()
	req.Tools = []chat.ToolSchema{{Name: "get_weather", Description: "Get the current weather in a given location",
		Parameters: []byte(`{"type":"object","properties":{"location":{"type":"string"}},"required":["location"]}`)}}
	resp, err := newProvider(srv.URL, 0).Call(context.Background(), req, sink)
	if err != nil {
		t.Fatal(err)
	}
	if resp.Text != "Okay, let's check the weather for San Francisco, CA:" {
		t.Errorf("text = %q", resp.Text)
	}
	if len(resp.ToolCalls) != 1 {
		t.Fatalf("tool calls = %+v", resp.ToolCalls)
	}
	tc := resp.ToolCalls[0]
	if tc.ID != "toolu_01T1x1fJ34qAmk2tNTrN7Up6" || tc.Name != "get_weather" || tc.Arguments != `{"location": "San Francisco, CA", "unit": "fahrenheit"}` {
		t.Errorf("tool call = %+v", tc)
	}
	if len(sink.Tools) != 1 || sink.Tools[0] != "0 toolu_01T1x1fJ34qAmk2tNTrN7Up6 get_weather" {
		t.Errorf("ToolCallStarted = %q", sink.Tools)
	}
	// the pieces of the arguments, as the stream events carried them
	if got := strings.Join(sink.Input, "|"); got != `0 {"location":|0  "San|0  Francisc|0 o,|0  CA"|0 ,|0  "unit": "fah|0 renheit"}` {
		t.Errorf("ToolInputDelta = %s", got)
	}
	if resp.StopReason != "tool_use" || resp.Usage != (chat.Usage{InputTokens: 472, OutputTokens: 89}) {
		t.Errorf("stop %q usage %+v", resp.StopReason, resp.Usage)
	}
	if got := gjson.GetBytes(srv.Body(0), "tools").Raw; got != `[{"name":"get_weather","description":"Get the current weather in a given location","input_schema":{"type":"object","properties":{"location":{"type":"string"}},"required":["location"]},"cache_control":{"type":"ephemeral"}}]` {
		t.Errorf("tools sent = %s", got)
	}
}

func TestThinkingDeltasGoToTheSink(t *testing.T) {
	srv := wiretest.NewServer(t, wiretest.Replay(wiretest.Transcript(t, "anthropic/thinking.sse")))
	sink := &wiretest.Sink{}
	resp, err := newProvider(srv.URL, 0).Call(context.Background(), hello(), sink)
	if err != nil {
		t.Fatal(err)
	}
	if len(sink.Thinking) != 4 || !strings.HasSuffix(resp.Thinking, "GCD(1071, 462) = 21.") {
		t.Errorf("thinking deltas %q", sink.Thinking)
	}
	if resp.Text != "The greatest common divisor of 1071 and 462 is **21**." || strings.Contains(resp.Text, "1071 = 2") {
		t.Errorf("text = %q", resp.Text)
	}
	if resp.HasUsage {
		t.Errorf("a stream without usage reported usage %+v", resp.Usage)
	}
}

// The second turn of a tool conversation: the assistant's tool_use goes
// back as a block, the result as a tool_result block of a user message,
// merged with the next prompt; an interrupted answer carries its note.
func TestConversationGoesBackInTheMessagesShape(t *testing.T) {
	srv := wiretest.NewServer(t, wiretest.Replay(wiretest.Transcript(t, "anthropic/after_tool.sse")))
	asst := msg("assistant", "Okay, let's check the weather for San Francisco, CA:")
	asst.ToolCalls = []chat.ToolCall{
		{ID: "toolu_01T1x1fJ34qAmk2tNTrN7Up6", Type: "function", Name: "get_weather", Arguments: `{"location": "San Francisco, CA", "unit": "fahrenheit"}`},
		{ID: "toolu_02", Type: "function", Name: "get_time", Arguments: `not json`},
	}
	tool1 := msg("tool", `{"success":true,"output":"59°F, foggy"}`)
	tool1.ToolCallID = "toolu_01T1x1fJ34qAmk2tNTrN7Up6"
	tool2 := msg("tool", "")
	tool2.ToolCallID = "toolu_02"
	interrupted := msg("assistant", "Half an ans"+chat.InterruptedNote)
	req := &provider.Request{Model: "claude-opus-4-6", MaxTokens: 1024, NoCache: true, Messages: []chat.Message{
		msg("system", "sys one"),
		msg("user", "What is the weather like in San Francisco?"),
		asst, tool1, tool2,
		msg("user", "And in Celsius?"),
		interrupted,
		msg("user", "go on"),
		msg("user", "please"),
	}}
	sink := &wiretest.Sink{}
	resp, err := newProvider(srv.URL, 0).Call(context.Background(), req, sink)
	if err != nil {
		t.Fatal(err)
	}
	if resp.Text != "It is 59°F and foggy in San Francisco." {
		t.Errorf("text = %q", resp.Text)
	}
	want := `{"model":"claude-opus-4-6","max_tokens":1024,"system":"sys one","messages":[` +
		`{"role":"user","content":"What is the weather like in San Francisco?"},` +
		`{"role":"assistant","content":[{"type":"text","text":"Okay, let's check the weather for San Francisco, CA:"},` +
		`{"type":"tool_use","id":"toolu_01T1x1fJ34qAmk2tNTrN7Up6","name":"get_weather","input":{"location":"San Francisco, CA","unit":"fahrenheit"}},` +
		`{"type":"tool_use","id":"toolu_02","name":"get_time","input":{}}]},` +
		`{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_01T1x1fJ34qAmk2tNTrN7Up6","content":"{\"success\":true,\"output\":\"59°F, foggy\"}"},` +
		`{"type":"tool_result","tool_use_id":"toolu_02","content":""},{"type":"text","text":"And in Celsius?"}]},` +
		`{"role":"assistant","content":"Half an ans\n\n[This response was interrupted by the user]"},` +
		`{"role":"user","content":[{"type":"text","text":"go on"},{"type":"text","text":"please"}]}],"stream":true}`
	if got := wiretest.Compact(t, srv.Body(0)); got != want {
		t.Errorf("request body\n got %s\nwant %s", got, want)
	}
}

func TestFaults(t *testing.T) {
	text := wiretest.Transcript(t, "anthropic/text.sse")
	tests := []struct {
		name        string
		steps       []wiretest.Step
		retries     int
		wantErr     string // exact error text
		wantStatus  int
		wantCalls   int
		wantRetries int
		wantText    string // deltas handed over before the failure
	}{
		{
			name:    "429 with retry-after, then success",
			steps:   []wiretest.Step{wiretest.Status(429, wiretest.Body(t, "anthropic/429.json"), "Retry-After", "0"), wiretest.Replay(text)},
			retries: 4, wantCalls: 2, wantRetries: 1, wantText: "Hello!",
		},
		{
			name:    "529 until the retries run out",
			steps:   []wiretest.Step{wiretest.Status(529, wiretest.Body(t, "anthropic/529.json"))},
			retries: 3, wantErr: "anthropic: 529 overloaded_error: Overloaded", wantStatus: 529, wantCalls: 4, wantRetries: 3,
		},
		{
			name:    "500 then success",
			steps:   []wiretest.Step{wiretest.Status(500, wiretest.Body(t, "anthropic/500.json")), wiretest.Replay(text)},
			retries: 2, wantCalls: 2, wantRetries: 1, wantText: "Hello!",
		},
		{
			name:    "401 is not retried",
			steps:   []wiretest.Step{wiretest.Status(401, wiretest.Body(t, "anthropic/401.json"))},
			retries: 4, wantErr: "anthropic: 401 authentication_error: invalid x-api-key", wantStatus: 401, wantCalls: 1,
		},
		{
			name:    "the connection cut mid-stream is not retried",
			steps:   []wiretest.Step{wiretest.Cut(text, 4)},
			retries: 4, wantErr: "anthropic: connection lost mid-stream: unexpected EOF", wantCalls: 1, wantText: "Hello",
		},
		{
			name:    "a response that ends cleanly before message_stop",
			steps:   []wiretest.Step{wiretest.Replay(text[:4])},
			retries: 4, wantErr: "anthropic: the stream ended before message_stop: the connection was closed early", wantCalls: 1, wantText: "Hello",
		},
		{
			name:    "a malformed SSE line",
			steps:   []wiretest.Step{wiretest.Replay(wiretest.Transcript(t, "anthropic/malformed.sse"))},
			retries: 4, wantCalls: 1,
			wantErr: `anthropic: malformed stream event: not JSON: {"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": "Hel`,
		},
		{
			name:    "an error event mid-stream",
			steps:   []wiretest.Step{wiretest.Replay(wiretest.Transcript(t, "anthropic/error_midstream.sse"))},
			retries: 4, wantErr: "anthropic: overloaded_error: Overloaded", wantCalls: 1, wantText: "Hello",
		},
		{
			// A busy API answers 200 and an error event where a status
			// would be (the streaming docs: "what would normally
			// correspond to an HTTP 529"): retried as a 529 is.
			name:    "an overloaded_error as the first event, then success",
			steps:   []wiretest.Step{wiretest.Replay(wiretest.Transcript(t, "anthropic/overloaded_first_event.sse")), wiretest.Replay(text)},
			retries: 4, wantCalls: 2, wantRetries: 1, wantText: "Hello!",
		},
		{
			name:    "an overloaded_error after message_start and a ping, before any content, then success",
			steps:   []wiretest.Step{wiretest.Replay(wiretest.Transcript(t, "anthropic/DERIVED_overloaded_after_message_start.sse")), wiretest.Replay(text)},
			retries: 4, wantCalls: 2, wantRetries: 1, wantText: "Hello!",
		},
		{
			name:    "an overloaded_error first until the retries run out",
			steps:   []wiretest.Step{wiretest.Replay(wiretest.Transcript(t, "anthropic/overloaded_first_event.sse"))},
			retries: 2, wantErr: "anthropic: 529 overloaded_error: Overloaded", wantStatus: 529, wantCalls: 3, wantRetries: 2,
		},
		{
			name:    "an error event first that no status would retry",
			steps:   []wiretest.Step{wiretest.Replay([]string{"event: error\ndata: {\"type\":\"error\",\"error\":{\"type\":\"invalid_request_error\",\"message\":\"bad\"}}\n\n"})},
			retries: 4, wantErr: "anthropic: invalid_request_error: bad", wantCalls: 1,
		},
		{
			name:    "a server that never answers",
			steps:   []wiretest.Step{wiretest.Hang()},
			retries: 4, wantErr: "anthropic: timed out: no data from the server for 1s", wantCalls: 1,
		},
		{
			name:    "a server that goes silent mid-stream",
			steps:   []wiretest.Step{wiretest.Hold(text, 4)},
			retries: 4, wantErr: "anthropic: timed out: no data from the server for 1s", wantCalls: 1, wantText: "Hello",
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
			for _, raw := range sink.RawJSON(t) {
				if strings.Contains(raw, key) {
					t.Errorf("a raw payload holds the key: %s", raw)
				}
			}
			if err != nil && strings.Contains(err.Error(), key) {
				t.Errorf("the error holds the key: %v", err)
			}
		})
	}
}

func TestCancelReturnsPromptlyWithTheDeltasSoFar(t *testing.T) {
	text := wiretest.Transcript(t, "anthropic/text.sse")
	srv := wiretest.NewServer(t, wiretest.Hold(text, 4))
	ctx, cancel := context.WithCancel(context.Background())
	sink := &wiretest.Sink{OnText: func(string) { time.AfterFunc(10*time.Millisecond, cancel) }}
	start := time.Now()
	_, err := newProvider(srv.URL, 4).Call(ctx, hello(), sink)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
	if time.Since(start) > time.Second {
		t.Errorf("returned after %s", time.Since(start))
	}
	if strings.Join(sink.Text, "") != "Hello" {
		t.Errorf("deltas = %q, want the one streamed before the cancel", sink.Text)
	}
}

func TestToolInputSentWholeAtTheStart(t *testing.T) {
	events := []string{
		"event: message_start\ndata: {\"type\":\"message_start\",\"message\":{\"id\":\"m\",\"model\":\"x\",\"usage\":{\"input_tokens\":3,\"output_tokens\":1}}}\n\n",
		"event: content_block_start\ndata: {\"type\":\"content_block_start\",\"index\":0,\"content_block\":{\"type\":\"tool_use\",\"id\":\"toolu_9\",\"name\":\"Read\",\"input\":{\"filePath\":\"a.go\"}}}\n\n",
		"event: content_block_stop\ndata: {\"type\":\"content_block_stop\",\"index\":0}\n\n",
		"event: message_delta\ndata: {\"type\":\"message_delta\",\"delta\":{\"stop_reason\":\"tool_use\"},\"usage\":{\"output_tokens\":9}}\n\n",
		"event: message_stop\ndata: {\"type\":\"message_stop\"}\n\n",
	}
	srv := wiretest.NewServer(t, wiretest.Replay(events))
	resp, err := newProvider(srv.URL, 0).Call(context.Background(), hello(), &wiretest.Sink{})
	if err != nil {
		t.Fatal(err)
	}
	if len(resp.ToolCalls) != 1 || resp.ToolCalls[0].Arguments != `{"filePath":"a.go"}` {
		t.Fatalf("tool calls = %+v", resp.ToolCalls)
	}
}

func TestCompactedConversationOpensWithAUserTurn(t *testing.T) {
	req := &provider.Request{Model: "m", MaxTokens: 10, Messages: []chat.Message{
		{Role: chat.RoleSystem, Content: "sys"},
		{Role: chat.RoleAssistant, Content: "[Context Summary]\nearlier"},
		{Role: chat.RoleUser, Content: "go on"},
	}}
	body, err := encodeRequest(req)
	if err != nil {
		t.Fatal(err)
	}
	got := string(body)
	first := strings.Index(got, `"role":"user"`)
	summary := strings.Index(got, `"role":"assistant"`)
	if first < 0 || summary < 0 || first > summary || !strings.Contains(got, summaryLead) {
		t.Fatalf("a compacted conversation must open with a user turn: %s", got)
	}
}

// A stored result whose metadata says it failed (Claude Code's is_error,
// kept by import; Robota's failed tools) is marked is_error though its
// content is plain text; one that succeeded is not.
func TestToolResultsWhoseMetadataSaysFailedAreMarked(t *testing.T) {
	asst := msg("assistant", "")
	asst.ToolCalls = []chat.ToolCall{
		{ID: "toolu_1", Type: "function", Name: "Bash", Arguments: `{"command":"false"}`},
		{ID: "toolu_2", Type: "function", Name: "Read", Arguments: `{"filePath":"a"}`},
	}
	failedRes := msg("tool", "Error: exit status 1")
	failedRes.ToolCallID = "toolu_1"
	failedRes.Metadata = json.RawMessage(`{"round": 1, "success": false, "toolName": "Bash"}`)
	okRes := msg("tool", "line1")
	okRes.ToolCallID = "toolu_2"
	okRes.Metadata = json.RawMessage(`{"success":true}`)
	req := &provider.Request{Model: "m", MaxTokens: 10, NoCache: true, Messages: []chat.Message{
		msg("system", "sys"), msg("user", "go"), asst, failedRes, okRes,
	}}
	body, err := encodeRequest(req)
	if err != nil {
		t.Fatal(err)
	}
	want := `[{"type":"tool_result","tool_use_id":"toolu_1","content":"Error: exit status 1","is_error":true},` +
		`{"type":"tool_result","tool_use_id":"toolu_2","content":"line1"}]`
	if got := gjson.GetBytes(body, "messages.2.content").Raw; got != want {
		t.Errorf("tool results\n got %s\nwant %s", got, want)
	}
}

// A model may open a tool call with a text block of only "\n\n": sent
// back, the API would refuse it (and every later request of the session).
// A failed tool's result is marked is_error, as the API asks.
func TestWhitespaceTextIsDroppedAndFailedToolsAreMarked(t *testing.T) {
	asst := msg("assistant", "\n\n")
	asst.ToolCalls = []chat.ToolCall{{ID: "toolu_1", Type: "function", Name: "Write", Arguments: `{"filePath":"a"}`}}
	denied := msg("tool", `{"success":false,"output":"","error":"denied"}`)
	denied.ToolCallID = "toolu_1"
	req := &provider.Request{Model: "m", MaxTokens: 10, NoCache: true, Messages: []chat.Message{
		msg("system", "sys"),
		msg("user", "write a"),
		asst, denied,
		msg("assistant", " \n"),
		msg("user", "go on"),
	}}
	body, err := encodeRequest(req)
	if err != nil {
		t.Fatal(err)
	}
	want := `[{"role":"user","content":"write a"},` +
		`{"role":"assistant","content":[{"type":"tool_use","id":"toolu_1","name":"Write","input":{"filePath":"a"}}]},` +
		`{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_1","content":"{\"success\":false,\"output\":\"\",\"error\":\"denied\"}","is_error":true},` +
		`{"type":"text","text":"go on"}]}]`
	if got := gjson.GetBytes(body, "messages").Raw; got != want {
		t.Errorf("messages\n got %s\nwant %s", got, want)
	}
}

// A Robota message's image parts (agent-core's image_inline and
// image_uri) reach the model: a user turn as text and image blocks, a
// tool's screenshot inside its tool_result, as Robota's converter sends
// them (agent-provider-anthropic message-converter.ts).
func TestImagePartsAreSent(t *testing.T) {
	user, err := chat.DecodeMessage(json.RawMessage(`{"id":"u1","role":"user","content":"List the files here","state":"complete","timestamp":"t",` +
		`"parts":[{"type":"text","text":"List the files here"},{"type":"image_inline","mimeType":"image/png","data":"iVBORw0KGgo="},` +
		`{"type":"image_uri","uri":"https://example.com/a.png"},{"type":"audio_inline","mimeType":"audio/wav","data":"x"}]}`))
	if err != nil {
		t.Fatal(err)
	}
	asst := msg("assistant", "")
	asst.ToolCalls = []chat.ToolCall{{ID: "toolu_1", Type: "function", Name: "Screenshot", Arguments: `{}`}}
	shot, err := chat.DecodeMessage(json.RawMessage(`{"id":"t1","role":"tool","toolCallId":"toolu_1","content":"{\"revision\":1}","state":"complete","timestamp":"t",` +
		`"parts":[{"type":"image_inline","mimeType":"image/jpeg","data":"/9j/"}]}`))
	if err != nil {
		t.Fatal(err)
	}
	req := &provider.Request{Model: "m", MaxTokens: 10, NoCache: true, Messages: []chat.Message{msg("system", "sys"), user, asst, shot}}
	body, err := encodeRequest(req)
	if err != nil {
		t.Fatal(err)
	}
	want := `[{"type":"text","text":"List the files here"},{"type":"image","source":{"type":"base64","media_type":"image/png","data":"iVBORw0KGgo="}},` +
		`{"type":"image","source":{"type":"url","url":"https://example.com/a.png"}}]`
	if got := gjson.GetBytes(body, "messages.0.content").Raw; got != want {
		t.Errorf("user turn\n got %s\nwant %s", got, want)
	}
	want = `[{"type":"tool_result","tool_use_id":"toolu_1","content":[{"type":"text","text":"{\"revision\":1}"},` +
		`{"type":"image","source":{"type":"base64","media_type":"image/jpeg","data":"/9j/"}}]}]`
	if got := gjson.GetBytes(body, "messages.2.content").Raw; got != want {
		t.Errorf("tool result\n got %s\nwant %s", got, want)
	}
}

// A session begun on another server keeps that server's tool call ids
// (Kimi's "functions.Bash:0", Codex's "call_x|fc_y"); the Messages API
// refuses ids outside ^[a-zA-Z0-9_-]+$. Each is sent in a form it takes,
// the same for the call and its result, and two ids that differ only in
// the replaced characters stay apart.
func TestToolIDsOtherServersMadeAreSentInTheAPIsAlphabet(t *testing.T) {
	asst := msg("assistant", "")
	asst.ToolCalls = []chat.ToolCall{
		{ID: "functions.Bash:0", Type: "function", Name: "Bash", Arguments: `{"command":"ls"}`},
		{ID: "functions.Bash_0", Type: "function", Name: "Bash", Arguments: `{"command":"pwd"}`},
		{ID: "toolu_01A-b", Type: "function", Name: "Bash", Arguments: `{"command":"id"}`},
	}
	var results []chat.Message
	for _, tc := range asst.ToolCalls {
		r := msg("tool", "ok")
		r.ToolCallID = tc.ID
		results = append(results, r)
	}
	req := &provider.Request{Model: "m", MaxTokens: 10, NoCache: true, Messages: append([]chat.Message{msg("user", "go"), asst}, results...)}
	body, err := encodeRequest(req)
	if err != nil {
		t.Fatal(err)
	}
	valid := regexp.MustCompile(`^[a-zA-Z0-9_-]+$`)
	seen := map[string]bool{}
	for i := range asst.ToolCalls {
		use := gjson.GetBytes(body, fmt.Sprintf("messages.1.content.%d.id", i)).String()
		res := gjson.GetBytes(body, fmt.Sprintf("messages.2.content.%d.tool_use_id", i)).String()
		if !valid.MatchString(use) || use != res || seen[use] {
			t.Errorf("call %d: tool_use id %q, tool_result id %q (seen before: %v)", i, use, res, seen[use])
		}
		seen[use] = true
	}
	if got := gjson.GetBytes(body, "messages.1.content.2.id").String(); got != "toolu_01A-b" {
		t.Errorf("a valid id changed: %q", got)
	}
}
