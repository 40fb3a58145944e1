package core

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/tidwall/gjson"

	"trail/core/chat"
	"trail/core/errs"
	"trail/core/provider"
	"trail/core/settings"
)

// How the engine acts on what a provider says beyond its text: stop
// reasons, what it needs back, its prices, its quirks.

// answerWith answers with r, its text streamed as one delta.
func answerWith(r provider.Response) answer {
	return func(_ context.Context, _ *provider.Request, sink provider.Sink) (*provider.Response, error) {
		sink.TextDelta(r.Text)
		out := r
		return &out, nil
	}
}

func TestAnAnswerCutAtTheOutputCap(t *testing.T) {
	b := newBench(t, answerWith(provider.Response{Text: `{"`, StopReason: "length", Stop: provider.StopMaxTokens,
		ToolCalls: []chat.ToolCall{call("call_1", "Read", "filePath", "a")}}))
	res, err := b.run("json please")
	if err != nil {
		t.Fatal(err)
	}
	if res.Subtype != SubtypeMaxTokens || !res.IsError || res.StopReason != StopMaxTokens || res.ModelStopReason != "length" || res.Text != `{"` {
		t.Errorf("result %+v", res)
	}
	// the cut turn's calls neither run nor stay: a call without its result would break the record
	b.wantRoles(res.SessionID, "system user assistant")
	if m := b.messages(res.SessionID)[2]; len(m.ToolCalls) != 0 || gjson.GetBytes(m.Metadata, "stopReason").String() != "length" {
		t.Errorf("kept %+v, metadata %s", m.ToolCalls, m.Metadata)
	}
	if r := b.record(res.SessionID); r.StopReason != StopMaxTokens || r.Status != StatusIdle {
		t.Errorf("record stop %q status %q", r.StopReason, r.Status)
	}
	b.consistent(res.SessionID)
}

func TestARefusal(t *testing.T) {
	b := newBench(t, answerWith(provider.Response{StopReason: "stop", Stop: provider.StopRefusal, Refusal: "I can't help with that."}))
	res, err := b.run("something bad")
	if err != nil {
		t.Fatal(err)
	}
	if res.Subtype != SubtypeRefusal || !res.IsError || res.StopReason != StopRefusal || res.Refusal != "I can't help with that." {
		t.Errorf("result %+v", res)
	}
	if r := b.record(res.SessionID); r.StopReason != StopRefusal {
		t.Errorf("record stop %q", r.StopReason)
	}
	if md := b.messages(res.SessionID)[2].Metadata; gjson.GetBytes(md, "refusal").String() != "I can't help with that." {
		t.Errorf("metadata %s", md)
	}
	b.consistent(res.SessionID)
}

// A server tool that paused the turn (pause_turn): the turn goes back as
// it is and the answer goes on in the next round.
func TestAPausedTurnGoesOn(t *testing.T) {
	b := newBench(t,
		answerWith(provider.Response{Text: "Searching.", StopReason: "pause_turn", Stop: provider.StopPauseTurn}),
		say("Found it."))
	res, err := b.run("look it up")
	if err != nil {
		t.Fatal(err)
	}
	if res.Text != "Searching.\n\nFound it." || res.Subtype != SubtypeSuccess || res.NumTurns != 2 {
		t.Errorf("result %+v", res)
	}
	second := b.p.reqs[1].Messages
	if last := second[len(second)-1]; last.Role != chat.RoleAssistant || last.Content != "Searching." {
		t.Errorf("the paused turn was not sent back last: %+v", last)
	}
	b.consistent(res.SessionID)
}

// What a provider needs back is kept on the message, through the record,
// and is in the next request of a resumed session.
func TestProviderDataSurvivesResume(t *testing.T) {
	data := json.RawMessage(`{"provider":"openai","reasoning_content":"think first"}`)
	b := newBench(t, answerWith(provider.Response{Text: "ok", ProviderData: data}), say("again"))
	id := b.mustRun("one")
	if got := b.messages(id)[2].ProviderData; gjson.GetBytes(got, "reasoning_content").String() != "think first" {
		t.Fatalf("record message providerData = %s", got)
	}
	if _, err := b.resume(id, "two"); err != nil {
		t.Fatal(err)
	}
	sent := b.p.reqs[1].Messages[2]
	if sent.DataFor(provider.OpenAI).Get("reasoning_content").String() != "think first" {
		t.Errorf("the resumed request's assistant message = %+v", sent)
	}
	b.consistent(id)
}

// anthropicBench is a bench whose steps resolve as the anthropic provider
// (the scripted provider answers all the same).
func anthropicBench(t *testing.T, answers ...answer) *bench {
	b := newBench(t, answers...)
	b.e.Env = func(k string) string {
		if k == "ANTHROPIC_API_KEY" {
			return "sk-ant-test-0123456789abcdefghijklmn"
		}
		return ""
	}
	return b
}

func anthropicModel(model string) func(*StepOptions) {
	return func(o *StepOptions) { o.Provider.Name, o.Provider.Model = provider.Anthropic, model }
}

func TestMaxTokensAndThinkingForTheModel(t *testing.T) {
	tests := []struct {
		name      string
		model     string
		opts      func(*StepOptions)
		settings  settings.Settings
		maxTokens int
		set       bool
		thinking  *provider.Thinking
	}{
		{"a 4,096-token model gets 4096", "claude-3-opus-20240229", nil, settings.Settings{}, 4096, false, nil},
		{"Claude 4 gets its own limit", "claude-sonnet-4-5-20250929", nil, settings.Settings{}, 64000, false, nil},
		{"an unknown model gets 8192", "claude-next", nil, settings.Settings{}, 8192, false, nil},
		{"--max-tokens wins", "claude-sonnet-4-5", func(o *StepOptions) { o.MaxTokens = 1000 }, settings.Settings{MaxTokens: 2000}, 1000, true, nil},
		{"then the settings", "claude-sonnet-4-5", nil, settings.Settings{MaxTokens: 2000}, 2000, true, nil},
		{"--thinking on a budget model", "claude-sonnet-4-5", func(o *StepOptions) { o.Thinking = "on" }, settings.Settings{}, 64000, false, &provider.Thinking{Budget: 10000}},
		// a quarter of the cap, at least 1,024 tokens, stays for the answer
		{"--thinking under a small cap", "claude-sonnet-4-5", func(o *StepOptions) { o.Thinking, o.MaxTokens = "on", 4000 }, settings.Settings{}, 4000, true, &provider.Thinking{Budget: 2976}},
		{"--thinking on a model outside the table", "deepseek-v4-pro", func(o *StepOptions) { o.Thinking = "on" }, settings.Settings{}, 8192, false, &provider.Thinking{Budget: 6144}},
		{"--thinking under a cap too small for both", "claude-sonnet-4-5", func(o *StepOptions) { o.Thinking, o.MaxTokens = "on", 2000 }, settings.Settings{}, 2000, true, &provider.Thinking{Budget: 1024}},
		{"--thinking on an adaptive model", "claude-opus-4-6", func(o *StepOptions) { o.Thinking = "on" }, settings.Settings{}, 128000, false, &provider.Thinking{Adaptive: true}},
		{"--thinking N", "claude-opus-4-6", func(o *StepOptions) { o.Thinking = "5000" }, settings.Settings{}, 128000, false, &provider.Thinking{Budget: 5000}},
		{"the settings turn it on", "claude-sonnet-4-5", nil, settings.Settings{Thinking: "2048"}, 64000, false, &provider.Thinking{Budget: 2048}},
		{"--thinking=off wins over the settings", "claude-sonnet-4-5", func(o *StepOptions) { o.Thinking = "off" }, settings.Settings{Thinking: "on"}, 64000, false, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b := anthropicBench(t, say("ok"))
			s := tt.settings
			b.settings = &s
			mut := []func(*StepOptions){anthropicModel(tt.model)}
			if tt.opts != nil {
				mut = append(mut, tt.opts)
			}
			if _, err := b.run("hi", mut...); err != nil {
				t.Fatal(err)
			}
			req := b.p.reqs[0]
			if req.MaxTokens != tt.maxTokens || req.MaxTokensSet != tt.set {
				t.Errorf("max tokens %d (set %v), want %d (%v)", req.MaxTokens, req.MaxTokensSet, tt.maxTokens, tt.set)
			}
			if (req.Thinking == nil) != (tt.thinking == nil) || (req.Thinking != nil && *req.Thinking != *tt.thinking) {
				t.Errorf("thinking %+v, want %+v", req.Thinking, tt.thinking)
			}
		})
	}
}

// A thinking budget the model or the API would refuse is a usage error
// before any file is written.
func TestThinkingBudgetsTheAPIRefuses(t *testing.T) {
	tests := []struct{ model, thinking, maxTokens, want string }{
		{"claude-opus-4-7", "5000", "", "takes no thinking budget"},
		{"claude-sonnet-4-5", "500", "", "under the API's minimum of 1024"},
		{"claude-sonnet-4-5", "70000", "", "must be less than max_tokens (64000)"},
		{"claude-sonnet-4-5", "on", "1000", "max_tokens 1000 leaves less than"},
	}
	for _, tt := range tests {
		t.Run(tt.model+" "+tt.thinking, func(t *testing.T) {
			b := anthropicBench(t)
			_, err := b.run("hi", anthropicModel(tt.model), func(o *StepOptions) {
				o.Thinking = tt.thinking
				if tt.maxTokens != "" {
					o.MaxTokens = 1000
				}
			})
			var ue *errs.UsageError
			if !errors.As(err, &ue) || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("err = %v, want a usage error with %q", err, tt.want)
			}
			if ids, _ := b.st.IDs(); len(ids) != 0 {
				t.Errorf("sessions were written: %v", ids)
			}
		})
	}
}

// The step's cost is the hand-computed one; the record adds it up across
// steps until a model without a price answers.
func TestCostOfAStepAndOfTheSession(t *testing.T) {
	priced := func(text string) answer {
		return answerWith(provider.Response{Text: text, Model: "claude-sonnet-4-5-20250929", HasUsage: true, StopReason: "end_turn",
			Usage: chat.Usage{InputTokens: 12_000, OutputTokens: 500, CacheCreationTokens: 8_000, CacheReadTokens: 2_000}})
	}
	unpriced := answerWith(provider.Response{Text: "local", Model: "llama3.2", HasUsage: true, StopReason: "stop",
		Usage: chat.Usage{InputTokens: 100, OutputTokens: 10}})
	b := newBench(t, priced("one"), priced("two"), priced("three"), unpriced)
	res, err := b.run("one")
	if err != nil {
		t.Fatal(err)
	}
	// 2,000 x $3 + 8,000 x $3.75 + 2,000 x $0.30 + 500 x $15 per million
	if res.CostUSD == nil || *res.CostUSD != 0.0441 {
		t.Fatalf("cost = %v, want 0.0441", res.CostUSD)
	}
	if len(res.ModelUsage) != 1 || res.ModelUsage[0].Model != "claude-sonnet-4-5-20250929" || res.ModelUsage[0].Usage.CacheCreationTokens != 8000 ||
		res.ModelUsage[0].ContextWindow != 200_000 || res.ModelUsage[0].MaxOutput != 64000 {
		t.Errorf("model usage %+v", res.ModelUsage)
	}
	id := res.SessionID
	u := b.record(id).Usage
	if u == nil || u.CostUSD == nil || *u.CostUSD != 0.0441 || u.CacheReadInputTokens != 2000 || u.CacheCreationInputTokens != 8000 {
		t.Fatalf("record usage %+v", u)
	}
	if _, err := b.resume(id, "two"); err != nil {
		t.Fatal(err)
	}
	if u := b.record(id).Usage; u.CostUSD == nil || *u.CostUSD != 0.0882 || u.InputTokens != 24_000 {
		t.Errorf("after two steps: %+v (cost %v)", u, u.CostUSD)
	}
	if _, err := b.resume(id, "three"); err != nil {
		t.Fatal(err)
	}
	res, err = b.resume(id, "four")
	if err != nil {
		t.Fatal(err)
	}
	if res.CostUSD != nil || res.ModelUsage[0].Priced {
		t.Errorf("a model without a price got a cost: %v", *res.CostUSD)
	}
	if u := b.record(id).Usage; u.CostUSD != nil || u.InputTokens != 36_100 {
		t.Errorf("the session's cost is unknown once a call was not priced: %+v", u)
	}
	b.consistent(id)
}

// The answering model is priced, not the one asked for: a local server
// answering with a model of its own ("m", asked for gpt-4o) has no known
// price, while a gateway's spelling of a known model is that model.
func TestCostIsTheAnsweringModels(t *testing.T) {
	for _, tt := range []struct {
		answered string
		want     float64 // 0: unknown
	}{
		{"m", 0},
		{"llama3.2", 0},
		{"openai/gpt-4o-2024-08-06", 0.0026}, // 1,000 x $2.50 + 10 x $10 per million
		{"gpt-4o", 0.0026},
	} {
		b := newBench(t, answerWith(provider.Response{Text: "ok", Model: tt.answered, HasUsage: true, StopReason: "stop",
			Usage: chat.Usage{InputTokens: 1000, OutputTokens: 10}}))
		res, err := b.run("hi", func(o *StepOptions) { o.Provider.Model = "gpt-4o" })
		if err != nil {
			t.Fatal(err)
		}
		if tt.want == 0 && res.CostUSD != nil {
			t.Errorf("%s answering for gpt-4o: cost %v, want unknown", tt.answered, *res.CostUSD)
		}
		if tt.want != 0 && (res.CostUSD == nil || *res.CostUSD != tt.want) {
			t.Errorf("%s answering for gpt-4o: cost %v, want %v", tt.answered, res.CostUSD, tt.want)
		}
	}
}

// A server that refused stream_options: the session remembers it.
func TestStreamOptionsRefusalIsRemembered(t *testing.T) {
	b := newBench(t, answerWith(provider.Response{Text: "ok", StreamOptionsRejected: true}), say("again"))
	id := b.mustRun("one")
	if b.p.reqs[0].NoStreamOptions {
		t.Error("the first request left stream_options out")
	}
	if !b.saw(EvNotice, "refuses stream_options") {
		t.Error("no note of the refusal")
	}
	if raw, ok := b.record(id).Fields.Get(fieldProviderOptions); !ok || gjson.GetBytes(raw, "streamOptions").Type != gjson.False {
		t.Errorf("record providerOptions = %s", raw)
	}
	if _, err := b.resume(id, "two"); err != nil {
		t.Fatal(err)
	}
	if !b.p.reqs[1].NoStreamOptions {
		t.Error("the resumed step sent stream_options again")
	}
	b.consistent(id)
}

// A server that sent no usage: its cost is not known, not zero.
func TestNoUsageIsNoCost(t *testing.T) {
	b := newBench(t, answerWith(provider.Response{Text: "ok", Model: "gpt-4o", StopReason: "stop"}))
	res, err := b.run("hi")
	if err != nil {
		t.Fatal(err)
	}
	if res.CostUSD != nil || len(res.ModelUsage) != 1 || res.ModelUsage[0].Priced {
		t.Errorf("cost %v, model usage %+v", res.CostUSD, res.ModelUsage)
	}
	if u := b.record(res.SessionID).Usage; u != nil {
		t.Errorf("record usage %+v from a call that reported none", u)
	}
}
