package main_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/tidwall/gjson"

	"trail/core/provider/wire/wiretest"
)

// Providers as they really behave, end to end: recorded (or labelled
// derived) transcripts from testdata/providers replayed on 127.0.0.1, the
// built binary, and what the next request carries.

func openaiEnv(t *testing.T) *env {
	e := newEnv(t)
	e.setenv("TRAIL_RETRY_BASE_MS=1")
	return e
}

// DeepSeek's thinking mode with a tool, then a resume: the assistant turn
// that called the tool carries its reasoning_content in the second request
// of the step and in the resumed step's request, read back from the record.
func TestDeepSeekReasoningRoundTripsThroughResume(t *testing.T) {
	t.Parallel()
	text := wiretest.Transcript(t, "openai/text.sse")
	srv := wiretest.NewServer(t, wiretest.Replay(wiretest.Transcript(t, "deepseek/DERIVED_tool_call_reasoning.sse")),
		wiretest.Replay(wiretest.Transcript(t, "openai/after_tool.sse")), wiretest.Replay(text))
	e := openaiEnv(t)
	e.must("", "run", "--provider", "openai", "--base-url", srv.URL, "-m", "deepseek-reasoner", "What is the weather in San Francisco?")
	id := e.onlySession()
	const reasoning = `The user is asking for the weather in San Francisco. I need to use the weather tool to get this information. Let me invoke the weather tool with the location parameter set to "San Francisco".`
	if got := gjson.GetBytes(srv.Body(1), "messages.2.reasoning_content").String(); got != reasoning {
		t.Errorf("round 2 assistant turn: %s", gjson.GetBytes(srv.Body(1), "messages.2").Raw)
	}
	e.must("", "resume", id, "and tomorrow?")
	sent := gjson.GetBytes(srv.Body(2), "messages.2")
	if sent.Get("reasoning_content").String() != reasoning || sent.Get("tool_calls.0.id").String() != "call_00_ioIn7yN9p1ZOMNpDLwd4MgAF" {
		t.Errorf("resumed request's assistant turn: %s", sent.Raw)
	}
	if d := lastMessageWithCalls(t, e, id); d["providerData"] == nil {
		t.Errorf("the record lost the reasoning: %v", d)
	}
}

// Gemini 3 through its OpenAI-compatible endpoint: a tool call with id ""
// and a thought signature; the next round and the resumed step send the
// signature back on the call, under the id trail gave it.
func TestGeminiSignatureRoundTripsThroughResume(t *testing.T) {
	t.Parallel()
	text := wiretest.Transcript(t, "openai/text.sse")
	srv := wiretest.NewServer(t, wiretest.Replay(wiretest.Transcript(t, "gemini/RECONSTRUCTED_gemini3_tool_call_signature.sse")),
		wiretest.Replay(wiretest.Transcript(t, "openai/after_tool.sse")), wiretest.Replay(text))
	e := openaiEnv(t)
	e.must("", "run", "--provider", "openai", "--base-url", srv.URL, "-m", "gemini-3-pro-preview", "say hi")
	id := e.onlySession()
	const sig = "EjQKMgEMOdbHRECONSTRUCTEDsignatureForTestsOnly+/=="
	for i, body := range [][]byte{srv.Body(1)} {
		tc := gjson.GetBytes(body, "messages.2.tool_calls.0")
		if tc.Get("extra_content.google.thought_signature").String() != sig || tc.Get("id").String() != "trail_call_0_0" {
			t.Errorf("request %d tool call: %s", i+2, tc.Raw)
		}
		if got := gjson.GetBytes(body, "messages.3.tool_call_id").String(); got != "trail_call_0_0" {
			t.Errorf("request %d tool result names %q", i+2, got)
		}
	}
	e.must("", "resume", id, "again")
	if got := gjson.GetBytes(srv.Body(2), "messages.2.tool_calls.0.extra_content.google.thought_signature").String(); got != sig {
		t.Errorf("resumed request: %s", gjson.GetBytes(srv.Body(2), "messages.2").Raw)
	}
}

func lastMessageWithCalls(t *testing.T, e *env, id string) map[string]any {
	t.Helper()
	msgs := e.messages(id)
	for i := len(msgs) - 1; i >= 0; i-- {
		if msgs[i]["toolCalls"] != nil {
			return msgs[i]
		}
	}
	t.Fatalf("no message with tool calls: %v", msgs)
	return nil
}

// -o json for a refusal, a max_tokens stop and a length stop: a distinct
// subtype, the real stop reason, exit 1, a line on stderr; the refusal's
// text never on stdout.
func TestStopsThatAreNotAnswers(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, provider, transcript string
		wantSubtype, wantStop      string
		wantModelStop              string
		wantStderr                 string
		wantResult                 string
	}{
		{"an OpenAI refusal", "openai", "openai/refusal.sse", "error_refusal", "refusal", "stop",
			"trail: the model refused to answer: I'm sorry, I can't assist with that request.\n", ""},
		{"an Anthropic refusal with stop_details", "anthropic", "anthropic/refusal_stop_details.sse", "error_refusal", "refusal", "refusal",
			"trail: the model refused to answer: This request was refused due to policy. (category cyber)\n", ""},
		{"Anthropic max_tokens inside a tool call", "anthropic", "anthropic/max_tokens_mid_tool_use.sse", "error_max_tokens", "max_tokens", "max_tokens",
			"trail: the answer hit its output limit of 64000 tokens and is cut short (stop reason max_tokens)\nhint: raise --max-tokens", "I'll create a comprehensive tax guide"},
		{"Anthropic's context window full", "anthropic", "anthropic/DERIVED_context_window_exceeded.sse", "error_max_tokens", "max_tokens", "model_context_window_exceeded",
			"trail: the answer filled the model's context window and is cut short (stop reason model_context_window_exceeded)\nhint: compact the conversation", "Hello!"},
		{"OpenAI length", "openai", "openai/length_truncated_json.sse", "error_max_tokens", "max_tokens", "length",
			// trail sent the server no cap: the limit was the server's own
			"trail: the server ended the answer at its own output limit; it is cut short (stop reason length)\nhint: ask for a longer answer with --max-tokens N", `{"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			model := "gpt-4o"
			if tt.provider == "anthropic" {
				model = "claude-3-7-sonnet-20250219"
			}
			for _, format := range []string{"json", "text"} {
				srv := wiretest.NewServer(t, wiretest.Replay(wiretest.Transcript(t, tt.transcript)))
				e := anthropicEnv(t)
				e.setenv("OPENAI_API_KEY=sk-proj-e2e-0123456789abcdefghijklmnop")
				r := e.run("", "run", "--provider", tt.provider, "-m", model, "--base-url", srv.URL, "-o", format, "do it")
				if r.code != 1 || !strings.HasPrefix(r.stderr, tt.wantStderr) {
					t.Fatalf("-o %s: exit %d, stderr %q, want 1 and %q", format, r.code, r.stderr, tt.wantStderr)
				}
				id := e.onlySession()
				if rec := e.record(id); rec["stopReason"] != tt.wantStop {
					t.Errorf("record stopReason %v", rec["stopReason"])
				}
				if format == "text" {
					if !strings.HasPrefix(r.stdout, tt.wantResult) || (tt.wantResult == "" && r.stdout != "") {
						t.Errorf("-o text stdout = %q", r.stdout)
					}
					continue
				}
				res := jsonResult(t, r)
				if res["subtype"] != tt.wantSubtype || res["stop_reason"] != tt.wantStop || res["model_stop_reason"] != tt.wantModelStop || res["is_error"] != true {
					t.Errorf("result %v", res)
				}
				if !strings.HasPrefix(res["result"].(string), tt.wantResult) {
					t.Errorf("result text %q", res["result"])
				}
			}
		})
	}
}

// A model whose output limit is 4,096 gets max_tokens 4096; --max-tokens
// wins over the table.
func TestMaxTokensComeFromTheModel(t *testing.T) {
	t.Parallel()
	text := wiretest.Transcript(t, "anthropic/text.sse")
	srv := wiretest.NewServer(t, wiretest.Replay(text))
	e := anthropicEnv(t)
	e.must("", "run", "--base-url", srv.URL, "-m", "claude-3-opus-20240229", "hi")
	e.must("", "run", "--base-url", srv.URL, "-m", "claude-3-opus-20240229", "--max-tokens", "1000", "hi")
	e.must("", "run", "--base-url", srv.URL, "-m", "claude-sonnet-4-5", "--thinking", "hi")
	if got := gjson.GetBytes(srv.Body(0), "max_tokens").Int(); got != 4096 {
		t.Errorf("max_tokens %d, want 4096", got)
	}
	if got := gjson.GetBytes(srv.Body(1), "max_tokens").Int(); got != 1000 {
		t.Errorf("max_tokens %d, want 1000", got)
	}
	if got := gjson.GetBytes(srv.Body(2), "thinking").Raw; got != `{"type":"enabled","budget_tokens":10000}` || gjson.GetBytes(srv.Body(2), "max_tokens").Int() != 64000 {
		t.Errorf("--thinking sent %s with max_tokens %d", got, gjson.GetBytes(srv.Body(2), "max_tokens").Int())
	}
	// A model outside the table (a gateway's): the default cap, and room
	// left for the answer after the thinking.
	srv2 := wiretest.NewServer(t, wiretest.Replay(text))
	e.must("", "run", "--base-url", srv2.URL, "-m", "glm-4.6", "--thinking", "hi")
	if got := gjson.GetBytes(srv2.Body(0), "thinking").Raw; got != `{"type":"enabled","budget_tokens":6144}` || gjson.GetBytes(srv2.Body(0), "max_tokens").Int() != 8192 {
		t.Errorf("--thinking on an unknown model sent %s with max_tokens %d", got, gjson.GetBytes(srv2.Body(0), "max_tokens").Int())
	}
	r := e.run("", "run", "--base-url", srv.URL, "-m", "claude-opus-4-7", "--thinking", "5000", "hi")
	if r.code != 2 || !strings.Contains(r.stderr, "claude-opus-4-7 takes no thinking budget") || srv.Requests() != 3 {
		t.Errorf("a budget on an adaptive-only model: %s", r)
	}
}

// A vLLM-style server that rejects stream_options answers on the second
// try; the session remembers, and its next step leaves the field out.
func TestStreamOptionsRejectedAnswersOnTheSecondTry(t *testing.T) {
	t.Parallel()
	text := wiretest.Transcript(t, "openai/text.sse")
	srv := wiretest.NewServer(t, wiretest.Status(400, wiretest.Body(t, "vllm/400_stream_options_extra_forbidden.json")), wiretest.Replay(text))
	e := openaiEnv(t)
	r := e.must("", "run", "--provider", "openai", "--base-url", srv.URL, "-m", "llama", "Hello!")
	if r.stdout != "Hello there, how may I assist you today?\n" || !strings.Contains(r.stderr, "refuses stream_options") {
		t.Fatalf("%s", r)
	}
	if srv.Requests() != 2 || gjson.GetBytes(srv.Body(1), "stream_options").Exists() {
		t.Fatalf("%d requests; second: %s", srv.Requests(), srv.Body(1))
	}
	id := e.onlySession()
	e.must("", "resume", id, "again")
	if srv.Requests() != 3 || gjson.GetBytes(srv.Body(2), "stream_options").Exists() {
		t.Errorf("the resumed step sent stream_options again: %s", srv.Body(2))
	}
	requests := 0
	for _, l := range eventsNamed(e.logLines(id), "provider_native_raw_payload") {
		if l["payloadKind"] == "request" {
			requests++
		}
	}
	if requests != 3 {
		t.Errorf("%d request payloads logged, want 3 (both tries of the first step)", requests)
	}
}

func TestAQuotaErrorIsTriedOnce(t *testing.T) {
	t.Parallel()
	srv := wiretest.NewServer(t, wiretest.Status(429, wiretest.Body(t, "openai/429_insufficient_quota.json")))
	e := openaiEnv(t)
	e.setenv("OPENAI_API_KEY=sk-proj-e2e-0123456789abcdefghijklmnop")
	r := e.run("", "run", "--provider", "openai", "--base-url", srv.URL, "--max-retries", "4", "Hello!")
	want := "trail: openai: 429 insufficient_quota: You exceeded your current quota"
	if r.code != 6 || !strings.HasPrefix(r.stderr, want) || !strings.Contains(r.stderr, "\nhint: your organization's usage limit or quota is used up: waiting will not help") {
		t.Fatalf("%s", r)
	}
	if srv.Requests() != 1 || strings.Contains(r.stderr, "retrying") {
		t.Errorf("%d requests: %s", srv.Requests(), r.stderr)
	}
}

// Round 2 of a tool loop marks the system prompt, the tool list and the
// last user turn (round 1's tool result) for the cache.
func TestCacheBreakpointsOnRoundTwo(t *testing.T) {
	t.Parallel()
	srv := wiretest.NewServer(t, wiretest.Replay(wiretest.Transcript(t, "anthropic/tool_use.sse")), wiretest.Replay(wiretest.Transcript(t, "anthropic/after_tool.sse")))
	e := anthropicEnv(t)
	e.must("", "run", "--base-url", srv.URL, "What is the weather?")
	body := srv.Body(1)
	if n := strings.Count(string(body), `"cache_control":{"type":"ephemeral"}`); n != 3 {
		t.Errorf("%d breakpoints, want 3", n)
	}
	tools := gjson.GetBytes(body, "tools").Array()
	if len(tools) == 0 || tools[len(tools)-1].Get("cache_control.type").String() != "ephemeral" || gjson.GetBytes(body, "system.0.cache_control.type").String() != "ephemeral" {
		t.Errorf("system or last tool unmarked")
	}
	last := gjson.GetBytes(body, "messages.2.content.0")
	if last.Get("type").String() != "tool_result" || last.Get("cache_control.type").String() != "ephemeral" {
		t.Errorf("last user turn: %s", gjson.GetBytes(body, "messages.2").Raw)
	}
	// the settings turn it off
	e.writeFile(".trail/settings.json", `{"promptCaching": false}`)
	e.must("", "run", "--base-url", srv.URL, "again")
	if strings.Contains(string(srv.Body(2)), "cache_control") {
		t.Errorf("promptCaching false still marked: %s", srv.Body(2))
	}
}

// total_cost_usd and modelUsage are the hand-computed figures: the
// recorded text stream's usage (25 in, 15 out) on claude-opus-4-6 at $5
// and $25 per million is 0.0005; a scripted answer's usage with cache
// reads and writes on claude-sonnet-4-5 is 0.0441. list --json shows the
// session's cost.
func TestCostOfARun(t *testing.T) {
	t.Parallel()
	srv := wiretest.NewServer(t, wiretest.Replay(wiretest.Transcript(t, "anthropic/text.sse")))
	e := anthropicEnv(t)
	res := jsonResult(t, e.must("", "run", "--base-url", srv.URL, "-o", "json", "hi"))
	mu, _ := res["modelUsage"].(map[string]any)["claude-opus-4-6"].(map[string]any)
	if res["total_cost_usd"] != 0.0005 || mu == nil || mu["costUSD"] != 0.0005 || mu["inputTokens"] != 25.0 || mu["outputTokens"] != 15.0 ||
		mu["contextWindow"] != 200000.0 || mu["maxOutputTokens"] != 128000.0 {
		t.Errorf("result %v", res)
	}
	script := e.script(map[string]any{"text": "cached", "model": "claude-sonnet-4-5-20250929",
		"usage": map[string]any{"inputTokens": 12000, "outputTokens": 500, "cacheCreationInputTokens": 8000, "cacheReadInputTokens": 2000}})
	res = jsonResult(t, e.must("", "run", "--provider", "script", "--script", script, "--name", "cached", "-o", "json", "hi"))
	usage := res["usage"].(map[string]any)
	if res["total_cost_usd"] != 0.0441 || usage["cache_read_input_tokens"] != 2000.0 || usage["cache_creation_input_tokens"] != 8000.0 {
		t.Errorf("result %v", res)
	}
	mu = res["modelUsage"].(map[string]any)["claude-sonnet-4-5-20250929"].(map[string]any)
	if mu["inputTokens"] != 2000.0 || mu["cacheReadInputTokens"] != 2000.0 || mu["cacheCreationInputTokens"] != 8000.0 {
		t.Errorf("modelUsage %v", mu)
	}
	echo := jsonResult(t, e.must("", "run", "--provider", "echo", "-o", "json", "hi"))
	if v, ok := echo["total_cost_usd"]; !ok || v != nil {
		t.Errorf("an unpriced model's cost must be null: %v", echo)
	}
	var list []map[string]any
	if err := json.Unmarshal([]byte(e.must("", "list", "--json").stdout), &list); err != nil {
		t.Fatal(err)
	}
	costs := map[any]any{}
	for _, s := range list {
		costs[s["name"]] = s["usage"].(map[string]any)["costUSD"]
	}
	if costs["cached"] != 0.0441 || len(list) != 3 {
		t.Errorf("list --json costs %v", costs)
	}
}
