package script

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"trail/core/errs"
	"trail/core/provider"
)

type sink struct{ text strings.Builder }

func (s *sink) TextDelta(t string)                  { s.text.WriteString(t) }
func (s *sink) ThinkingDelta(string)                {}
func (s *sink) ToolCallStarted(int, string, string) {}
func (s *sink) RawPayload(string, any)              {}
func (s *sink) Retry(int, time.Duration, error)     {}

func load(t *testing.T, body string) *Provider {
	t.Helper()
	p := filepath.Join(t.TempDir(), "s.json")
	if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	pr, err := Load(p)
	if err != nil {
		t.Fatal(err)
	}
	return pr
}

func TestScriptAnswersTheKthCall(t *testing.T) {
	for name, body := range map[string]string{
		"array": `[{"text":"zero"},{"text":"one","usage":{"input_tokens":3,"output_tokens":2}},{"toolCalls":[{"name":"Bash","arguments":{"command":"ls"}},{"id":"mine","name":"Read","arguments":"{\"filePath\":\"a\"}"}]}]`,
		"jsonl": "{\"text\":\"zero\"}\n\n{\"text\":\"one\",\"usage\":{\"inputTokens\":3,\"outputTokens\":2}}\n{\"toolCalls\":[{\"name\":\"Bash\",\"arguments\":{\"command\":\"ls\"}},{\"id\":\"mine\",\"name\":\"Read\",\"arguments\":\"{\\\"filePath\\\":\\\"a\\\"}\"}]}\n",
	} {
		t.Run(name, func(t *testing.T) {
			p := load(t, body)
			var s sink
			r, err := p.Call(context.Background(), &provider.Request{CallIndex: 1}, &s)
			if err != nil || r.Text != "one" || s.text.String() != "one" || !r.HasUsage || r.Usage.InputTokens != 3 || r.Usage.OutputTokens != 2 {
				t.Fatalf("call 1: %+v %v", r, err)
			}
			r, err = p.Call(context.Background(), &provider.Request{CallIndex: 2}, &s)
			if err != nil || len(r.ToolCalls) != 2 {
				t.Fatalf("call 2: %+v %v", r, err)
			}
			if tc := r.ToolCalls[0]; tc.ID != "call_2_0" || tc.Name != "Bash" || tc.Arguments != `{"command":"ls"}` {
				t.Errorf("tool call 0 = %+v", tc)
			}
			if tc := r.ToolCalls[1]; tc.ID != "mine" || tc.Arguments != `{"filePath":"a"}` {
				t.Errorf("tool call 1 = %+v", tc)
			}
			_, err = p.Call(context.Background(), &provider.Request{CallIndex: 3}, &s)
			var pe *errs.ProviderError
			if !errors.As(err, &pe) || !strings.Contains(pe.Message, "no response #4") {
				t.Fatalf("exhausted: %v", err)
			}
		})
	}
}

func TestScriptErrorsAndBadFiles(t *testing.T) {
	p := load(t, `[{"text":"partial ","error":{"status":529,"message":"overloaded"}}]`)
	var s sink
	_, err := p.Call(context.Background(), &provider.Request{}, &s)
	var pe *errs.ProviderError
	if !errors.As(err, &pe) || pe.Status != 529 || pe.Error() != "script: 529 overloaded" {
		t.Fatalf("err = %v", err)
	}
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.json")
	os.WriteFile(bad, []byte(`[{"text": }]`), 0o644)
	var inv *errs.InvalidDataError
	if _, err := Load(bad); !errors.As(err, &inv) {
		t.Fatalf("a broken script must be invalid data: %v", err)
	}
	var usage *errs.UsageError
	if _, err := Load(filepath.Join(dir, "missing.json")); !errors.As(err, &usage) {
		t.Fatalf("a missing script must be a usage error: %v", err)
	}
}

func TestScriptDelayStreamsWordsAndStopsOnCancel(t *testing.T) {
	p := load(t, `[{"text":"one two three four five six seven eight","delayMs":400}]`)
	ctx, cancel := context.WithTimeout(context.Background(), 170*time.Millisecond)
	defer cancel()
	var s sink
	_, err := p.Call(ctx, &provider.Request{}, &s)
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("err = %v", err)
	}
	got := s.text.String()
	if got == "" || got == "one two three four five six seven eight" || !strings.HasPrefix("one two three four five six seven eight", got) {
		t.Fatalf("partial text = %q, want a proper prefix", got)
	}
}

// A scripted answer says how it ended and what it cost, as an API would.
func TestScriptedStopsAndUsage(t *testing.T) {
	p := load(t, `[{"text":"{\"","stopReason":"length"},{"refusal":"no"},{"text":"wait","stopReason":"pause_turn"},
		{"text":"x","model":"claude-sonnet-4-5","usage":{"inputTokens":10,"outputTokens":1,"cacheReadInputTokens":4,"cache_creation_input_tokens":2}}]`)
	want := []struct{ stop, reason, refusal string }{
		{provider.StopMaxTokens, "length", ""}, {provider.StopRefusal, "refusal", "no"}, {provider.StopPauseTurn, "pause_turn", ""}, {"", "end_turn", ""},
	}
	for k, w := range want {
		resp, err := p.Call(context.Background(), &provider.Request{Model: "script", CallIndex: k}, &sink{})
		if err != nil {
			t.Fatal(err)
		}
		if resp.Stop != w.stop || resp.StopReason != w.reason || resp.Refusal != w.refusal {
			t.Errorf("answer %d: stop %q reason %q refusal %q", k, resp.Stop, resp.StopReason, resp.Refusal)
		}
		if k == 3 && (resp.Model != "claude-sonnet-4-5" || resp.Usage.CacheReadTokens != 4 || resp.Usage.CacheCreationTokens != 2 || resp.Usage.InputTokens != 10) {
			t.Errorf("answer 3: model %q usage %+v", resp.Model, resp.Usage)
		}
	}
}
