package anthropic

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"reflect"
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

// Replays of recorded (and labelled reconstructed) Anthropic streams from
// testdata/providers/anthropic: what a real answer holds beyond text and
// tool calls, and what the next request must carry back.

// call replays the transcript and returns the answer.
func call(t *testing.T, transcript string, req *provider.Request) (*provider.Response, *wiretest.Sink) {
	t.Helper()
	srv := wiretest.NewServer(t, wiretest.Replay(wiretest.Transcript(t, transcript)))
	sink := &wiretest.Sink{}
	resp, err := newProvider(srv.URL, 0).Call(context.Background(), req, sink)
	if err != nil {
		t.Fatal(err)
	}
	return resp, sink
}

// committed is the answer as the engine keeps it, taken through a record:
// encoded, indented as the store writes it, decoded again.
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

// jsonEqual compares two JSON texts as values (key order aside).
func jsonEqual(t *testing.T, a, b string) bool {
	t.Helper()
	var x, y any
	if err := json.Unmarshal([]byte(a), &x); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, a)
	}
	if err := json.Unmarshal([]byte(b), &y); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, b)
	}
	return reflect.DeepEqual(x, y)
}

func TestThinkingAndItsSignatureAreKept(t *testing.T) {
	resp, sink := call(t, "anthropic/thinking_signature.sse", hello())
	if !strings.HasPrefix(resp.Thinking, "This is a straightforward question about pedestrian safety") || len(sink.Thinking) != 13 {
		t.Errorf("thinking %q in %d deltas", resp.Thinking, len(sink.Thinking))
	}
	block := gjson.GetBytes(resp.ProviderData, "content.0")
	if gjson.GetBytes(resp.ProviderData, "provider").String() != "anthropic" || block.Get("type").String() != "thinking" ||
		block.Get("thinking").String() != resp.Thinking || !strings.HasPrefix(block.Get("signature").String(), "EvMCCkYICxgCKkCHP2cS") {
		t.Errorf("provider data = %s", resp.ProviderData)
	}
	if !strings.HasPrefix(resp.Text, "Here are the basic steps for safely crossing the street:") || strings.Contains(resp.Text, "pedestrian safety") {
		t.Errorf("text = %q", resp.Text)
	}
}

// The next request of a tool loop with thinking on carries the assistant
// turn as the API gave it: thinking with its signature first, then the
// text, then tool_use, exactly as the recorded second request of
// pydantic-ai's cassette has it.
func TestThinkingToolTurnGoesBackAsRecorded(t *testing.T) {
	req := hello()
	req.Thinking = &provider.Thinking{Budget: 3000}
	req.MaxTokens = 4096
	resp, _ := call(t, "anthropic/RECONSTRUCTED_thinking_tool_use.sse", req)
	if len(resp.ToolCalls) != 1 || resp.ToolCalls[0].Name != "get_user_country" {
		t.Fatalf("tool calls = %+v", resp.ToolCalls)
	}
	if got := gjson.GetBytes(srvBody(t, req), "thinking").Raw; got != `{"type":"enabled","budget_tokens":3000}` {
		t.Errorf("thinking sent = %s", got)
	}
	asst := committed(t, resp)
	result := msg("tool", "Mexico")
	result.ToolCallID = resp.ToolCalls[0].ID
	next := &provider.Request{Model: "claude-sonnet-4-0", MaxTokens: 4096, Thinking: &provider.Thinking{Budget: 3000}, NoCache: true,
		Messages: []chat.Message{msg("user", "What is the largest city in the user country?"), asst, result}}
	body, err := encodeRequest(next)
	if err != nil {
		t.Fatal(err)
	}
	recorded := wiretest.Body(t, "anthropic/thinking_tool_roundtrip.2.request.json")
	want := gjson.Get(recorded, "messages.1.content").Raw
	got := gjson.GetBytes(body, "messages.1.content").Raw
	if !jsonEqual(t, got, want) {
		t.Errorf("assistant turn sent back\n got %s\nwant %s", got, want)
	}
	// field by field, for a failure that names the field
	for i, field := range []string{"type", "thinking", "signature"} {
		if g, w := gjson.GetBytes(body, "messages.1.content.0."+field).String(), gjson.Get(recorded, "messages.1.content.0."+field).String(); g != w {
			t.Errorf("block 0 %s (%d) = %q, want %q", field, i, g, w)
		}
	}
}

// srvBody encodes req as Call would send it.
func srvBody(t *testing.T, req *provider.Request) []byte {
	t.Helper()
	b, err := encodeRequest(req)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestThinkingBlocksStayHomeWhenThinkingIsOff(t *testing.T) {
	asked := hello()
	asked.Thinking = &provider.Thinking{Budget: 1024} // then turned off
	resp, _ := call(t, "anthropic/RECONSTRUCTED_thinking_tool_use.sse", asked)
	asst := committed(t, resp)
	result := msg("tool", "Mexico")
	result.ToolCallID = resp.ToolCalls[0].ID
	req := &provider.Request{Model: "m", MaxTokens: 100, NoCache: true, Messages: []chat.Message{msg("user", "q"), asst, result}}
	content := gjson.GetBytes(srvBody(t, req), "messages.1.content")
	if n := len(content.Array()); n != 2 || content.Get("0.type").String() != "text" || content.Get("1.type").String() != "tool_use" {
		t.Errorf("with thinking off the turn is text and tool_use only: %s", content.Raw)
	}
	// and another provider never sees the blocks
	if d := asst.DataFor(provider.OpenAI); d.Exists() {
		t.Errorf("the openai provider would read %s", d.Raw)
	}
}

// A server that thinks though it was not asked to (DeepSeek's Anthropic
// endpoint, models that think by default) refuses the next round of a tool
// loop without that thinking: it goes back, with thinking still not asked.
func TestThinkingDoneUnaskedGoesBack(t *testing.T) {
	resp, _ := call(t, "anthropic/RECONSTRUCTED_thinking_tool_use.sse", hello())
	asst := committed(t, resp)
	result := msg("tool", "Mexico")
	result.ToolCallID = resp.ToolCalls[0].ID
	req := &provider.Request{Model: "deepseek-v4-pro", MaxTokens: 100, NoCache: true, Messages: []chat.Message{msg("user", "q"), asst, result}}
	body := srvBody(t, req)
	content := gjson.GetBytes(body, "messages.1.content")
	if content.Get("0.type").String() != "thinking" || content.Get("0.signature").String() == "" || content.Get("#(type==\"tool_use\")").Raw == "" {
		t.Errorf("the unasked thinking did not go back first: %s", content.Raw)
	}
	if gjson.GetBytes(body, "thinking").Exists() {
		t.Errorf("thinking was turned on: %s", gjson.GetBytes(body, "thinking").Raw)
	}
}

func TestRedactedThinkingGoesBackUnchanged(t *testing.T) {
	resp, _ := call(t, "anthropic/redacted_thinking.sse", hello())
	blocks := gjson.GetBytes(resp.ProviderData, "content").Array()
	if len(blocks) != 3 || blocks[0].Get("type").String() != "redacted_thinking" || blocks[1].Get("type").String() != "redacted_thinking" ||
		!strings.HasPrefix(blocks[0].Get("data").String(), "EqkECkYIBxgCKkA8") {
		t.Fatalf("provider data = %s", resp.ProviderData)
	}
	req := &provider.Request{Model: "m", MaxTokens: 100, Thinking: &provider.Thinking{Budget: 1024}, NoCache: true,
		Messages: []chat.Message{msg("user", "q"), committed(t, resp), msg("user", "and?")}}
	sent := gjson.GetBytes(srvBody(t, req), "messages.1.content")
	if sent.Get("0.data").String() != blocks[0].Get("data").String() || sent.Get("1.data").String() != blocks[1].Get("data").String() ||
		sent.Get("2.type").String() != "text" {
		t.Errorf("sent back: %s", sent.Raw)
	}
}

// A web search answer: server tool blocks are kept, text blocks apart from
// one another start a new paragraph, and the pieces of one paragraph
// (split around citations) join as they are.
func TestServerToolBlocksAndTextJoining(t *testing.T) {
	resp, sink := call(t, "anthropic/server_tool_web_search.sse", hello())
	if !strings.HasPrefix(resp.Text, "Let me search for more specific breaking news stories to get clearer headlines.\n\nBased on the search results") {
		t.Errorf("blocks apart are not paragraphs: %q", resp.Text[:min(len(resp.Text), 160)])
	}
	if !strings.Contains(resp.Text, "U.S.-Russia summit. The White House lowered its expectations") {
		t.Errorf("citation pieces were not joined as they are: %q", resp.Text)
	}
	if strings.Join(sink.Text, "") != resp.Text {
		t.Error("the streamed deltas do not add up to the text")
	}
	blocks := gjson.GetBytes(resp.ProviderData, "content").Array()
	kinds := map[string]int{}
	for _, b := range blocks {
		kinds[b.Get("type").String()]++
	}
	if kinds["server_tool_use"] != 2 || kinds["web_search_tool_result"] != 2 || kinds["text"] != 18 {
		t.Errorf("blocks kept: %v", kinds)
	}
	if q := blocks[0].Get("input.query").String(); q == "" {
		t.Errorf("the server tool's streamed input was not kept: %s", blocks[0].Raw)
	}
	if c := blocks[6].Get("citations.0.url").String(); c == "" || blocks[6].Get("citations.#").Int() != 2 {
		t.Errorf("the citations of a text block were not kept: %s", blocks[6].Raw)
	}
	req := &provider.Request{Model: "m", MaxTokens: 100, NoCache: true, Messages: []chat.Message{msg("user", "news?"), committed(t, resp), msg("user", "more")}}
	sent := gjson.GetBytes(srvBody(t, req), "messages.1.content").Array()
	if len(sent) != len(blocks) || sent[0].Get("id").String() != blocks[0].Get("id").String() || sent[1].Get("type").String() != "web_search_tool_result" {
		t.Errorf("sent back %d blocks, kept %d", len(sent), len(blocks))
	}
}

// max_tokens cut a tool call's input: the call is dropped (its JSON is
// partial), the stop is reported, and the text stays.
func TestMaxTokensInsideAToolCall(t *testing.T) {
	resp, _ := call(t, "anthropic/max_tokens_mid_tool_use.sse", hello())
	if len(resp.ToolCalls) != 0 {
		t.Errorf("a cut call was kept: %+v", resp.ToolCalls)
	}
	if resp.StopReason != "max_tokens" || resp.Stop != provider.StopMaxTokens {
		t.Errorf("stop %q / %q", resp.StopReason, resp.Stop)
	}
	if resp.Text != "I'll create a comprehensive tax guide for someone with multiple W2s and save it in a file called taxes.txt. Let me do that for you now." {
		t.Errorf("text = %q", resp.Text)
	}
	if resp.ProviderData != nil {
		t.Errorf("plain text needs no provider data: %s", resp.ProviderData)
	}
}

func TestRefusals(t *testing.T) {
	tests := []struct {
		transcript, text, refusal string
	}{
		{"anthropic/refusal_stop_details.sse", "", "This request was refused due to policy. (category cyber)"},
		{"anthropic/refusal_after_thinking.sse", "Hi", ""},
	}
	for _, tt := range tests {
		t.Run(tt.transcript, func(t *testing.T) {
			resp, _ := call(t, tt.transcript, hello())
			if resp.Stop != provider.StopRefusal || resp.StopReason != "refusal" || resp.Text != tt.text || resp.Refusal != tt.refusal {
				t.Errorf("stop %q text %q refusal %q", resp.Stop, resp.Text, resp.Refusal)
			}
		})
	}
}

// Usage of a recorded tool loop with cache writes: cache tokens count as
// input and are told apart; round 2 carries the breakpoints.
func TestCacheUsageAndBreakpointsOnRoundTwo(t *testing.T) {
	weather := []chat.ToolSchema{{Name: "get_weather", Description: "Get the weather", Parameters: []byte(`{"type":"object","properties":{"city":{"type":"string"}}}`)},
		{Name: "get_time", Description: "Get the time", Parameters: []byte(`{"type":"object"}`)}}
	srv := wiretest.NewServer(t, wiretest.Replay(wiretest.Transcript(t, "anthropic/tool_loop_cache.1.sse")), wiretest.Replay(wiretest.Transcript(t, "anthropic/tool_loop_cache.2.sse")))
	p := newProvider(srv.URL, 0)
	req := &provider.Request{Model: "claude-3-7-sonnet-latest", MaxTokens: 1024, Tools: weather,
		Messages: []chat.Message{msg("system", "You are a weather bot."), msg("user", "What is the weather in SF?")}}
	resp, err := p.Call(context.Background(), req, &wiretest.Sink{})
	if err != nil {
		t.Fatal(err)
	}
	u := resp.Usage
	if u.CacheCreationTokens+u.CacheReadTokens > u.InputTokens || u.InputTokens == 0 || len(resp.ToolCalls) != 1 {
		t.Fatalf("usage %+v, calls %+v", u, resp.ToolCalls)
	}
	result := msg("tool", `{"success":true,"output":"sunny"}`)
	result.ToolCallID = resp.ToolCalls[0].ID
	req.Messages = append(req.Messages, committed(t, resp), result)
	if _, err := p.Call(context.Background(), req, &wiretest.Sink{}); err != nil {
		t.Fatal(err)
	}
	body := srv.Body(1)
	marks := strings.Count(string(body), `"cache_control":{"type":"ephemeral"}`)
	if marks != 3 {
		t.Errorf("%d cache breakpoints, want 3 (system, tools, last user turn): %s", marks, body)
	}
	if gjson.GetBytes(body, "system.0.cache_control.type").String() != "ephemeral" ||
		gjson.GetBytes(body, "tools.1.cache_control.type").String() != "ephemeral" || gjson.GetBytes(body, "tools.0.cache_control").Exists() {
		t.Errorf("system and last tool: %s", body)
	}
	last := gjson.GetBytes(body, "messages.2.content.0")
	if last.Get("type").String() != "tool_result" || last.Get("cache_control.type").String() != "ephemeral" {
		t.Errorf("the tool result of round 1 is not the breakpoint: %s", gjson.GetBytes(body, "messages").Raw)
	}
}

func TestThinkingRequestForms(t *testing.T) {
	for _, tt := range []struct {
		th   *provider.Thinking
		want string
	}{
		{&provider.Thinking{Adaptive: true}, `{"type":"adaptive"}`},
		{&provider.Thinking{Budget: 2048}, `{"type":"enabled","budget_tokens":2048}`},
		{nil, ``},
	} {
		req := hello()
		req.Thinking = tt.th
		if got := gjson.GetBytes(srvBody(t, req), "thinking").Raw; got != tt.want {
			t.Errorf("thinking %+v sent as %s, want %s", tt.th, got, tt.want)
		}
	}
}

// Errors no wait cures are not retried, and their hint says why.
func TestQuotaAndSpendErrors(t *testing.T) {
	tests := []struct {
		name, body string
		status     int
		headers    []string
		wantCalls  int
		wantHint   string
	}{
		{"the tier's monthly spend cap (429) is tried once", "anthropic/RECONSTRUCTED_429_spend_cap.json", 429, nil, 1, "monthly spend cap"},
		{"long context without extra usage (429) is tried once", "anthropic/429_long_context_extra_usage.json", 429, nil, 1, "extra usage"},
		{"a spend limit you set (400)", "anthropic/400_api_usage_limit.json", 400, nil, 1, "spend limit it set"},
		{"an empty credit balance (400)", "anthropic/400_credit_balance_too_low.json", 400, nil, 1, "credit balance"},
		{"a rate limit (429) is retried", "anthropic/429.json", 429, nil, 3, "raise --max-retries"},
		{"x-should-retry: false is obeyed", "anthropic/529.json", 529, []string{"X-Should-Retry", "false"}, 1, "busy"},
		{"x-should-retry: true retries even a 400", "", 400, []string{"X-Should-Retry", "true"}, 3, ""},
		{"but never a spend limit, whatever the header says", "anthropic/400_api_usage_limit.json", 400, []string{"X-Should-Retry", "true"}, 1, "spend limit"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			body := `{"type":"error","error":{"type":"invalid_request_error","message":"try again"}}`
			if tt.body != "" {
				body = wiretest.Body(t, tt.body)
			}
			srv := wiretest.NewServer(t, wiretest.Status(tt.status, body, tt.headers...))
			p := mustNew(New(provider.Config{Model: "m", BaseURL: srv.URL, APIKey: key, MaxRetries: 2, Timeout: time.Second}, wire.Options{BaseDelay: time.Millisecond}))
			_, err := p.Call(context.Background(), hello(), &wiretest.Sink{})
			var pe *errs.ProviderError
			if !errors.As(err, &pe) || pe.Status != tt.status {
				t.Fatalf("err = %v", err)
			}
			if srv.Requests() != tt.wantCalls {
				t.Errorf("%d requests, want %d", srv.Requests(), tt.wantCalls)
			}
			if !strings.Contains(pe.Hint(), tt.wantHint) {
				t.Errorf("hint %q, want it to mention %q", pe.Hint(), tt.wantHint)
			}
		})
	}
}

// A tool round run before thinking was turned on has no thinking block to
// open it: with thinking on the API refuses that conversation, so that
// request goes without thinking; a round with its thinking keeps it on.
func TestThinkingIsLeftOffWhenTheLastToolTurnHasNone(t *testing.T) {
	plain := msg("assistant", "let me look")
	plain.ToolCalls = []chat.ToolCall{{ID: "toolu_1", Type: "function", Name: "Read", Arguments: `{}`}}
	req := &provider.Request{Model: "m", MaxTokens: 4096, Thinking: &provider.Thinking{Budget: 2048}, NoCache: true,
		Messages: []chat.Message{msg("user", "q"), plain, toolResultMsg("toolu_1", "x")}}
	if b := srvBody(t, req); gjson.GetBytes(b, "thinking").Exists() {
		t.Errorf("thinking sent with a tool turn that has none: %s", b)
	}
	resp, _ := call(t, "anthropic/RECONSTRUCTED_thinking_tool_use.sse", hello())
	req.Messages = []chat.Message{msg("user", "q"), committed(t, resp), toolResultMsg(resp.ToolCalls[0].ID, "Mexico")}
	if b := srvBody(t, req); !gjson.GetBytes(b, "thinking").Exists() || gjson.GetBytes(b, "messages.1.content.0.type").String() != "thinking" {
		t.Errorf("thinking left off a turn that opens with its thinking: %s", b)
	}
}

func toolResultMsg(id, content string) chat.Message {
	m := msg("tool", content)
	m.ToolCallID = id
	return m
}
