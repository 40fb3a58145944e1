package main_test

import (
	"strings"
	"testing"

	"github.com/tidwall/gjson"

	"trail/core/provider/wire/wiretest"
)

// OpenAI-compatible servers whose streams count or end differently from
// OpenAI's own, end to end.

// Groq's usage only in x_groq on the finish chunk: -o json counts it, with
// the second round's (131 in, 11 out).
func TestGroqUsageFromXGroqIsCounted(t *testing.T) {
	t.Parallel()
	srv := wiretest.NewServer(t, wiretest.Replay(wiretest.Transcript(t, "groq/DERIVED_tool_call_x_groq_usage_only.sse")),
		wiretest.Replay(wiretest.Transcript(t, "openai/after_tool.sse")))
	e := openaiEnv(t)
	r := e.must("", "run", "--provider", "openai", "--base-url", srv.URL, "-m", "llama-3.3-70b-versatile", "-o", "json", "weather?")
	usage, _ := jsonResult(t, r)["usage"].(map[string]any)
	if usage["input_tokens"] != float64(210+131) || usage["output_tokens"] != float64(15+11) {
		t.Errorf("usage %v, want 341 in and 26 out", usage)
	}
}

// A finish_reason that says the generation failed is a provider failure,
// as an error chunk is: exit 6, the text shown so far saved as an
// interrupted answer. A server's other words for a normal end stay one.
func TestFinishReasonsThatSayTheAnswerFailed(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, transcript string
		wantCode         int
		wantStderr       string
		wantSubtype      string
		wantState        string
	}{
		{"OpenRouter's error finish", "openrouter/RECONSTRUCTED_finish_reason_error.sse", 6,
			"trail: openai: the generation failed on the server (finish_reason \"error\")\nhint: the answer so far is kept: trail resume ID \"continue\" goes on from it\n", "error_during_execution", "interrupted"},
		{"vLLM's abort finish", "vllm/RECONSTRUCTED_finish_reason_abort.sse", 6,
			"trail: openai: the server aborted the generation (finish_reason \"abort\")\nhint: the answer so far is kept: trail resume ID \"continue\" goes on from it\n", "error_during_execution", "interrupted"},
		{"LiteLLM's end_turn finish", "gateways/RECONSTRUCTED_finish_reason_end_turn.sse", 0, "", "success", "complete"},
		{"TGI's eos finish", "gateways/RECONSTRUCTED_finish_reason_eos.sse", 0, "", "success", "complete"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			srv := wiretest.NewServer(t, wiretest.Replay(wiretest.Transcript(t, tt.transcript)))
			e := openaiEnv(t)
			r := e.run("", "run", "--provider", "openai", "--base-url", srv.URL, "-m", "m", "-o", "json", "hi")
			want := tt.wantStderr
			if ids := e.sessionIDs(); len(ids) == 1 {
				want = strings.ReplaceAll(want, "ID", ids[0])
			}
			if r.code != tt.wantCode || r.stderr != want {
				t.Fatalf("exit %d, stderr %q; want %d and %q", r.code, r.stderr, tt.wantCode, want)
			}
			res := jsonResult(t, r)
			if res["subtype"] != tt.wantSubtype || res["result"] != "Partial answer" {
				t.Errorf("result %v", res)
			}
			msgs := e.messages(e.onlySession())
			if last := msgs[len(msgs)-1]; last["content"] != "Partial answer" || last["state"] != tt.wantState {
				t.Errorf("the answer as saved: %v", last)
			}
		})
	}
}

// The legacy delta.function_call runs as a tool call, and its result goes
// back under the id trail gave it.
func TestLegacyFunctionCallRuns(t *testing.T) {
	t.Parallel()
	srv := wiretest.NewServer(t, wiretest.Replay(wiretest.Transcript(t, "gateways/RECONSTRUCTED_legacy_function_call.sse")),
		wiretest.Replay(wiretest.Transcript(t, "openai/after_tool.sse")))
	e := openaiEnv(t)
	r := e.must("", "run", "--provider", "openai", "--base-url", srv.URL, "-m", "m", "--allow-tool", "Bash", "hi")
	if r.stdout != "It is 14°C and sunny in Paris.\n" || strings.TrimSpace(e.read("fc.txt")) != "FC" {
		t.Fatalf("the call did not run: %s", r)
	}
	if got := gjson.GetBytes(srv.Body(1), "messages.3.tool_call_id").String(); got != "trail_call_0_0" {
		t.Errorf("the tool result names %q", got)
	}
}

// An answer with no content at all is exit 0 with a note on stderr in
// text mode (-q silences it, -o json has its result); with a stop reason
// no API uses for a normal end it is a warning, -q or not.
func TestEmptyAnswersAreSaidToBeEmpty(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, provider, transcript string
		script                     map[string]any // the script provider's answer, for stop reasons no server was seen to send
		args                       []string
		wantStderr                 string
	}{
		{"Gemini's empty stop", "openai", "gemini/RECONSTRUCTED_empty_answer_stop.sse", nil, nil,
			"trail: the model returned an empty answer (stop reason stop)\n"},
		{"Claude's empty end_turn", "anthropic", "anthropic/RECONSTRUCTED_empty_end_turn.sse", nil, nil,
			"trail: the model returned an empty answer (stop reason end_turn)\n"},
		{"-q", "anthropic", "anthropic/RECONSTRUCTED_empty_end_turn.sse", nil, []string{"-q"}, ""},
		{"-o json", "openai", "gemini/RECONSTRUCTED_empty_answer_stop.sse", nil, []string{"-o", "json"}, ""},
		{"an unknown stop reason", "script", "", map[string]any{"text": "", "stopReason": "weird"}, []string{"-q"},
			"trail: warning: the model returned an empty answer with a stop reason trail does not know (weird)\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			e := anthropicEnv(t)
			e.setenv("OPENAI_API_KEY=sk-e2e-0123456789abcdefghijklmnop")
			args := []string{"run", "--provider", tt.provider}
			if tt.script != nil {
				args = append(args, "--script", e.script(tt.script))
			} else {
				srv := wiretest.NewServer(t, wiretest.Replay(wiretest.Transcript(t, tt.transcript)))
				args = append(args, "--base-url", srv.URL, "-m", "claude-sonnet-4-5")
			}
			r := e.run("", append(append(args, tt.args...), "hi")...)
			if r.code != 0 || r.stderr != tt.wantStderr {
				t.Fatalf("exit %d, stderr %q; want 0 and %q", r.code, r.stderr, tt.wantStderr)
			}
			if len(tt.args) == 0 && r.stdout != "" {
				t.Errorf("stdout %q", r.stdout)
			}
		})
	}
}
