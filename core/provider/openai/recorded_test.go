package openai

import (
	"bytes"
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

// Replays of recorded (and labelled derived or reconstructed) streams of
// OpenAI and the servers that speak its API, from testdata/providers.

func replay(t *testing.T, transcript string, req *provider.Request) (*provider.Response, *wiretest.Sink, *wiretest.Server) {
	t.Helper()
	srv := wiretest.NewServer(t, wiretest.Replay(wiretest.Transcript(t, transcript)))
	sink := &wiretest.Sink{}
	resp, err := newProvider(srv.URL, key, 0).Call(context.Background(), req, sink)
	if err != nil {
		t.Fatal(err)
	}
	return resp, sink, srv
}

// committed is the answer as a record keeps it: encoded, indented as the
// store writes it, and decoded again.
func committed(t *testing.T, resp *provider.Response) chat.Message {
	t.Helper()
	m := chat.Message{ID: "a1", Role: chat.RoleAssistant, Content: resp.Text, State: chat.StateComplete, Timestamp: "t",
		ToolCalls: resp.ToolCalls, ProviderData: resp.ProviderData}
	raw, err := m.MarshalJSON()
	if err != nil {
		t.Fatal(err)
	}
	var indented bytes.Buffer
	if err := json.Indent(&indented, raw, "    ", "  "); err != nil {
		t.Fatal(err)
	}
	back, err := chat.DecodeMessage(indented.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	return back
}

func body(t *testing.T, req *provider.Request, o options) []byte {
	t.Helper()
	b, err := encodeRequest(req, o)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func toolResult(id, content string) chat.Message {
	m := msg("tool", content)
	m.ToolCallID = id
	return m
}

// A refusal ends with finish_reason "stop"; its text is in delta.refusal.
func TestRefusalIsARefusal(t *testing.T) {
	resp, sink, _ := replay(t, "openai/refusal.sse", hello())
	if resp.Stop != provider.StopRefusal || resp.Refusal != "I'm sorry, I can't assist with that request." || resp.StopReason != "stop" {
		t.Errorf("stop %q (%q), refusal %q", resp.Stop, resp.StopReason, resp.Refusal)
	}
	if resp.Text != "" || len(sink.Text) != 0 {
		t.Errorf("the refusal went out as answer text: %q %q", resp.Text, sink.Text)
	}
	next := &provider.Request{Model: "m", Messages: []chat.Message{msg("user", "q"), committed(t, resp), msg("user", "why?")}}
	if got := gjson.GetBytes(body(t, next, options{}), "messages.1.refusal").String(); got != resp.Refusal {
		t.Errorf("the refusal text was not kept for the next request: %q", got)
	}
}

func TestLengthIsMaxTokens(t *testing.T) {
	resp, _, _ := replay(t, "openai/length_truncated_json.sse", hello())
	if resp.Stop != provider.StopMaxTokens || resp.StopReason != "length" || resp.Text != `{"` {
		t.Errorf("stop %q (%q), text %q", resp.Stop, resp.StopReason, resp.Text)
	}
}

// A gateway sends the second of two parallel calls at index 0 with its own
// id: two calls, each with its own arguments.
func TestANewIDAtAUsedIndexStartsANewCall(t *testing.T) {
	for _, transcript := range []string{"openai/parallel_tool_calls.sse", "gateways/DERIVED_tool_calls_same_index_different_ids.sse"} {
		t.Run(transcript, func(t *testing.T) {
			resp, sink, _ := replay(t, transcript, hello())
			want := []chat.ToolCall{
				{ID: "call_JMW1whyEaYG438VE1OIflxA2", Type: "function", Name: "GetWeatherArgs", Arguments: `{"city": "Edinburgh", "country": "GB", "units": "c"}`},
				{ID: "call_DNYTawLBoN8fj3KN6qU9N1Ou", Type: "function", Name: "get_stock_price", Arguments: `{"ticker": "AAPL", "exchange": "NASDAQ"}`},
			}
			if len(resp.ToolCalls) != 2 || resp.ToolCalls[0] != want[0] || resp.ToolCalls[1] != want[1] {
				t.Fatalf("tool calls = %+v", resp.ToolCalls)
			}
			if len(sink.Tools) != 2 || sink.Tools[1] != "1 call_DNYTawLBoN8fj3KN6qU9N1Ou get_stock_price" {
				t.Errorf("ToolCallStarted = %q", sink.Tools)
			}
			next := &provider.Request{Model: "m", Messages: []chat.Message{msg("user", "q"), committed(t, resp),
				toolResult(want[0].ID, "cold"), toolResult(want[1].ID, "200")}}
			b := body(t, next, options{})
			for i, w := range want {
				tc := gjson.GetBytes(b, "messages.1.tool_calls."+string(rune('0'+i)))
				if tc.Get("id").String() != w.ID || tc.Get("function.name").String() != w.Name || tc.Get("function.arguments").String() != w.Arguments {
					t.Errorf("next request's call %d = %s", i, tc.Raw)
				}
			}
		})
	}
}

// vLLM repeats the id on every fragment, LM Studio sends name "": both
// go on with the open call.
func TestRepeatedIDsAndEmptyNamesContinueTheCall(t *testing.T) {
	chunk := func(delta string) string {
		return `data: {"id":"c","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":` + delta + `,"finish_reason":null}]}` + "\n\n"
	}
	events := []string{
		chunk(`{"tool_calls":[{"index":0,"id":"call_v","type":"function","function":{"name":"Read","arguments":""}}]}`),
		chunk(`{"tool_calls":[{"index":0,"id":"call_v","type":"function","function":{"name":"","arguments":"{\"filePath\":"}}]}`),
		chunk(`{"tool_calls":[{"index":0,"id":"call_v","function":{"name":"","arguments":"\"a.go\"}"}}]}`),
		`data: {"id":"c","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{},"finish_reason":"tool_calls"}]}` + "\n\n",
		"data: [DONE]\n\n",
	}
	srv := wiretest.NewServer(t, wiretest.Replay(events))
	resp, err := newProvider(srv.URL, "", 0).Call(context.Background(), hello(), &wiretest.Sink{})
	if err != nil {
		t.Fatal(err)
	}
	if len(resp.ToolCalls) != 1 || resp.ToolCalls[0] != (chat.ToolCall{ID: "call_v", Type: "function", Name: "Read", Arguments: `{"filePath":"a.go"}`}) {
		t.Errorf("tool calls = %+v", resp.ToolCalls)
	}
}

// DeepSeek's thinking mode: the assistant turn that called a tool goes
// back with its reasoning_content, byte for byte, after a trip through
// the record; another tool-call turn of the same request without any gets
// ""; a request with no reasoning at all never gets the field.
func TestDeepSeekReasoningContentGoesBack(t *testing.T) {
	req := &provider.Request{Model: "deepseek-reasoner", Messages: []chat.Message{msg("user", "What is the weather in San Francisco?")}}
	resp, sink, _ := replay(t, "deepseek/DERIVED_tool_call_reasoning.sse", req)
	const reasoning = `The user is asking for the weather in San Francisco. I need to use the weather tool to get this information. Let me invoke the weather tool with the location parameter set to "San Francisco".`
	if resp.Thinking != reasoning || strings.Join(sink.Thinking, "") != reasoning {
		t.Errorf("thinking = %q", resp.Thinking)
	}
	if gjson.GetBytes(resp.ProviderData, "reasoning_content").String() != reasoning {
		t.Fatalf("provider data = %s", resp.ProviderData)
	}
	if resp.Usage.CacheReadTokens != 320 || resp.Usage.InputTokens != 339 {
		t.Errorf("usage = %+v", resp.Usage)
	}
	old := msg("assistant", "")
	old.ToolCalls = []chat.ToolCall{{ID: "call_old", Type: "function", Name: "weather", Arguments: `{}`}}
	next := &provider.Request{Model: "deepseek-reasoner", Messages: []chat.Message{
		msg("user", "earlier"), old, toolResult("call_old", "x"),
		msg("user", "What is the weather in San Francisco?"), committed(t, resp), toolResult(resp.ToolCalls[0].ID, "sunny"),
	}}
	b := body(t, next, options{})
	if got := gjson.GetBytes(b, "messages.4.reasoning_content"); got.String() != reasoning {
		t.Errorf("reasoning_content sent back = %s", got.Raw)
	}
	if got := gjson.GetBytes(b, "messages.4.tool_calls.0.id").String(); got != "call_00_ioIn7yN9p1ZOMNpDLwd4MgAF" {
		t.Errorf("tool call id = %q", got)
	}
	if got := gjson.GetBytes(b, "messages.1.reasoning_content"); got.Type != gjson.String || got.String() != "" {
		t.Errorf("a tool-call turn without reasoning must get \"\" in thinking mode, got %s", got.Raw)
	}
	plain := &provider.Request{Model: "deepseek-reasoner", Messages: []chat.Message{msg("user", "earlier"), old, toolResult("call_old", "x")}}
	if strings.Contains(string(body(t, plain, options{})), "reasoning_content") {
		t.Errorf("a conversation without reasoning got the field: %s", body(t, plain, options{}))
	}
}

// Gemini 3 through its OpenAI endpoint: a whole tool call in one chunk,
// no index, id "", its thought signature in extra_content, and
// finish_reason "stop". The call gets an id unique in the session, and the
// next request sends the signature back on it.
func TestGeminiThoughtSignatureGoesBack(t *testing.T) {
	req := hello()
	req.CallIndex = 7
	resp, sink, _ := replay(t, "gemini/RECONSTRUCTED_gemini3_tool_call_signature.sse", req)
	if len(resp.ToolCalls) != 1 || resp.ToolCalls[0] != (chat.ToolCall{ID: "trail_call_7_0", Type: "function", Name: "Bash", Arguments: `{"command":"echo hi"}`}) {
		t.Fatalf("tool calls = %+v", resp.ToolCalls)
	}
	if len(sink.Tools) != 1 || sink.Tools[0] != "0 trail_call_7_0 Bash" {
		t.Errorf("ToolCallStarted = %q", sink.Tools)
	}
	next := &provider.Request{Model: "gemini-3-pro-preview", Messages: []chat.Message{msg("user", "q"), committed(t, resp), toolResult("trail_call_7_0", "hi")}}
	b := body(t, next, options{})
	call := gjson.GetBytes(b, "messages.1.tool_calls.0")
	if call.Get("id").String() != "trail_call_7_0" || call.Get("extra_content.google.thought_signature").String() != "EjQKMgEMOdbHRECONSTRUCTEDsignatureForTestsOnly+/==" {
		t.Errorf("tool call sent back = %s", call.Raw)
	}
	if gjson.GetBytes(b, "messages.2.tool_call_id").String() != "trail_call_7_0" {
		t.Errorf("the result does not name the invented id: %s", b)
	}
}

// Gemini 2.5's recorded answer (turned into a stream): id "" and the
// signature on the message.
func TestGeminiMessageLevelExtraContentGoesBack(t *testing.T) {
	resp, _, _ := replay(t, "gemini/DERIVED_gemini25_tool_call_empty_id.sse", hello())
	if len(resp.ToolCalls) != 1 || resp.ToolCalls[0].ID != "trail_call_0_0" || resp.ToolCalls[0].Name != "get_current_time" {
		t.Fatalf("tool calls = %+v", resp.ToolCalls)
	}
	next := &provider.Request{Model: "gemini-2.5-pro", Messages: []chat.Message{msg("user", "q"), committed(t, resp), toolResult("trail_call_0_0", "Noon")}}
	b := body(t, next, options{})
	if !strings.HasPrefix(gjson.GetBytes(b, "messages.1.extra_content.google.thought_signature").String(), "AVSoXO4AzAXs7GGvOY63fp8CwJK3yR8H") {
		t.Errorf("assistant turn sent back = %s", gjson.GetBytes(b, "messages.1").Raw)
	}
}

func TestStreamOptionsRejectedIsSentAgainWithout(t *testing.T) {
	text := wiretest.Transcript(t, "openai/text.sse")
	tests := []struct {
		name, body string
		status     int
		wantRetry  bool
	}{
		{"vLLM before 0.5 (400 extra_forbidden)", wiretest.Body(t, "vllm/400_stream_options_extra_forbidden.json"), 400, true},
		{"Azure AI Foundry serverless (400 detail)", wiretest.Body(t, "gateways/azure_ai_foundry_400_stream_options.json"), 400, true},
		{"Mistral (422 extra_forbidden)", wiretest.Body(t, "gateways/mistral_422_stream_options.json"), 422, true},
		{"another 400 is not a reason to resend", `{"error":{"message":"model not found","type":"invalid_request_error"}}`, 400, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := wiretest.NewServer(t, wiretest.Status(tt.status, tt.body), wiretest.Replay(text))
			sink := &wiretest.Sink{}
			resp, err := newProvider(srv.URL, "", 3).Call(context.Background(), hello(), sink)
			if !tt.wantRetry {
				if err == nil || srv.Requests() != 1 {
					t.Fatalf("err %v after %d requests", err, srv.Requests())
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if srv.Requests() != 2 || !resp.StreamOptionsRejected || resp.Text != "Hello there, how may I assist you today?" {
				t.Fatalf("%d requests, rejected %v, text %q", srv.Requests(), resp.StreamOptionsRejected, resp.Text)
			}
			if !gjson.GetBytes(srv.Body(0), "stream_options.include_usage").Bool() || gjson.GetBytes(srv.Body(1), "stream_options").Exists() {
				t.Errorf("bodies:\n%s\n%s", srv.Body(0), srv.Body(1))
			}
			if sink.Kinds()["request"] != 2 {
				t.Errorf("both requests must be logged: %v", sink.Kinds())
			}
		})
	}
	// remembered: a request that says so leaves it out from the start
	srv := wiretest.NewServer(t, wiretest.Replay(text))
	req := hello()
	req.NoStreamOptions = true
	if _, err := newProvider(srv.URL, "", 0).Call(context.Background(), req, &wiretest.Sink{}); err != nil {
		t.Fatal(err)
	}
	if gjson.GetBytes(srv.Body(0), "stream_options").Exists() {
		t.Errorf("sent stream_options: %s", srv.Body(0))
	}
}

func TestQuotaIsNotRetriedButARateLimitIs(t *testing.T) {
	tests := []struct {
		body      string
		wantCalls int
		wantHint  string
	}{
		{"openai/429_insufficient_quota.json", 1, "usage limit or quota is used up"},
		{"openai/429_rate_limit_exceeded_tokens.json", 3, "raise --max-retries"},
	}
	for _, tt := range tests {
		t.Run(tt.body, func(t *testing.T) {
			srv := wiretest.NewServer(t, wiretest.Status(429, wiretest.Body(t, tt.body)))
			_, err := newProvider(srv.URL, key, 2).Call(context.Background(), hello(), &wiretest.Sink{})
			var pe *errs.ProviderError
			if !errors.As(err, &pe) || srv.Requests() != tt.wantCalls || !strings.Contains(pe.Hint(), tt.wantHint) {
				t.Errorf("err %v (hint %q) after %d requests", err, hintOf(pe), srv.Requests())
			}
		})
	}
}

func hintOf(pe *errs.ProviderError) string {
	if pe == nil {
		return ""
	}
	return pe.Hint()
}

func TestOutputCapIsSentOnlyWhenChosen(t *testing.T) {
	req := hello()
	if b := body(t, req, options{officialAPI: true}); gjson.GetBytes(b, "max_tokens").Exists() || gjson.GetBytes(b, "max_completion_tokens").Exists() {
		t.Errorf("no cap chosen, one sent: %s", b)
	}
	req.MaxTokensSet, req.MaxTokens = true, 500
	if b := body(t, req, options{officialAPI: true}); gjson.GetBytes(b, "max_completion_tokens").Int() != 500 || gjson.GetBytes(b, "max_tokens").Exists() {
		t.Errorf("OpenAI itself gets max_completion_tokens: %s", b)
	}
	if b := body(t, req, options{}); gjson.GetBytes(b, "max_tokens").Int() != 500 || gjson.GetBytes(b, "max_completion_tokens").Exists() {
		t.Errorf("a compatible server gets max_tokens: %s", b)
	}
	p := mustNew(New(provider.Config{Model: "m"}, wire.Options{}))
	if !p.official {
		t.Error("the default base URL is OpenAI's")
	}
}

// OpenRouter: reasoning in delta.reasoning, the usage after the finish
// chunk, comments between events; and its mid-stream error chunk.
func TestOpenRouterStreams(t *testing.T) {
	resp, sink, _ := replay(t, "openrouter/streaming_reasoning.sse", hello())
	if resp.Thinking == "" || len(sink.Thinking) == 0 || !strings.Contains(resp.Text, "2 + 2 = 4") {
		t.Errorf("thinking %q text %q", resp.Thinking, resp.Text)
	}
	if !resp.HasUsage || resp.Usage.InputTokens != 43 || resp.Usage.OutputTokens != 36 {
		t.Errorf("the usage after the finish chunk was lost: %+v", resp.Usage)
	}
	if resp.ProviderData != nil {
		t.Errorf("delta.reasoning is not sent back: %s", resp.ProviderData)
	}
	srv := wiretest.NewServer(t, wiretest.Replay(wiretest.Transcript(t, "openrouter/stream_error_midstream.sse")))
	_, err := newProvider(srv.URL, key, 0).Call(context.Background(), hello(), &wiretest.Sink{})
	if err == nil || err.Error() != "openai: Token limit reached" {
		t.Errorf("err = %v", err)
	}
}

func TestLlamaCppErrorLine(t *testing.T) {
	srv := wiretest.NewServer(t, wiretest.Replay(wiretest.Transcript(t, "llamacpp/RECONSTRUCTED_error_line.sse")))
	_, err := newProvider(srv.URL, "", 0).Call(context.Background(), hello(), &wiretest.Sink{})
	if err == nil || err.Error() != "openai: exceed_context_size_error: the request exceeds the available context size, try increasing it" {
		t.Errorf("err = %v", err)
	}
}

// Error bodies of every shape end as the API's own message.
func TestErrorBodiesOfEveryShape(t *testing.T) {
	tests := []struct{ file, want string }{
		{"gemini/400_missing_thought_signature.json", "openai: 400 INVALID_ARGUMENT: Function call is missing a thought_signature in functionCall parts."},
		{"deepseek/400_reasoning_content_not_passed_back.json", "openai: 400 invalid_request_error: The `reasoning_content` in the thinking mode must be passed back to the API."},
		{"openrouter/429.json", "openai: 429 Provider returned error: google/gemini-2.0-flash-exp:free is temporarily rate-limited upstream."},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			status := 400
			if strings.Contains(tt.file, "429") {
				status = 429
			}
			srv := wiretest.NewServer(t, wiretest.Status(status, wiretest.Body(t, tt.file)))
			p := mustNew(New(provider.Config{Model: "m", BaseURL: srv.URL, Timeout: time.Second}, wire.Options{BaseDelay: time.Millisecond}))
			_, err := p.Call(context.Background(), hello(), &wiretest.Sink{})
			if err == nil || !strings.HasPrefix(err.Error(), tt.want) {
				t.Errorf("err = %v\nwant it to start with %s", err, tt.want)
			}
		})
	}
}
