package main_test

import (
	"testing"

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
