package openai

import (
	"context"
	"errors"
	"strings"
	"testing"

	"trail/core/chat"
	"trail/core/errs"
	"trail/core/provider"
	"trail/core/provider/wire/wiretest"
)

// Streams of compatible servers that end or count differently from
// OpenAI's own.

// Groq sent the usage only inside x_groq on the finish chunk before it
// took stream_options: it counts when no top-level usage came.
func TestGroqUsageInXGroqCounts(t *testing.T) {
	resp, _, _ := replay(t, "groq/DERIVED_tool_call_x_groq_usage_only.sse", hello())
	if !resp.HasUsage || resp.Usage != (chat.Usage{InputTokens: 210, OutputTokens: 15}) {
		t.Errorf("usage %+v (has %v), want 210 in and 15 out from x_groq.usage", resp.Usage, resp.HasUsage)
	}
	if len(resp.ToolCalls) != 1 || resp.ToolCalls[0].ID != "tk85n1k4m" || resp.ToolCalls[0].Name != "weather" {
		t.Errorf("tool calls %+v", resp.ToolCalls)
	}
}

// A finish_reason that says the generation failed ends the call as an
// error chunk would, the text so far streamed; other servers' words for a
// normal end stay a normal end.
func TestFinishReasons(t *testing.T) {
	tests := []struct {
		transcript, wantErr, wantStop string
	}{
		{"openrouter/RECONSTRUCTED_finish_reason_error.sse", `openai: the generation failed on the server (finish_reason "error")`, ""},
		{"vllm/RECONSTRUCTED_finish_reason_abort.sse", `openai: the server aborted the generation (finish_reason "abort")`, ""},
		{"gateways/RECONSTRUCTED_finish_reason_end_turn.sse", "", "end_turn"},
		{"gateways/RECONSTRUCTED_finish_reason_eos.sse", "", "eos"},
	}
	for _, tt := range tests {
		t.Run(tt.transcript, func(t *testing.T) {
			srv := wiretest.NewServer(t, wiretest.Replay(wiretest.Transcript(t, tt.transcript)))
			sink := &wiretest.Sink{}
			resp, err := newProvider(srv.URL, key, 0).Call(context.Background(), hello(), sink)
			if strings.Join(sink.Text, "") != "Partial answer" {
				t.Errorf("streamed %q", sink.Text)
			}
			if tt.wantErr != "" {
				var pe *errs.ProviderError
				if !errors.As(err, &pe) || err.Error() != tt.wantErr {
					t.Fatalf("err = %v, want %s", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if resp.Text != "Partial answer" || resp.StopReason != tt.wantStop || resp.Stop != "" {
				t.Errorf("text %q, stop %q (%q)", resp.Text, resp.StopReason, resp.Stop)
			}
		})
	}
}

// The legacy delta.function_call is a tool call: its name, its argument
// pieces joined, an id trail gives it.
func TestLegacyFunctionCallIsAToolCall(t *testing.T) {
	req := hello()
	req.CallIndex = 3
	resp, sink, _ := replay(t, "gateways/RECONSTRUCTED_legacy_function_call.sse", req)
	want := []chat.ToolCall{{ID: "trail_call_3_0", Type: "function", Name: "Bash", Arguments: `{"command":"echo FC > fc.txt"}`}}
	if len(resp.ToolCalls) != 1 || resp.ToolCalls[0] != want[0] || resp.StopReason != "function_call" {
		t.Errorf("calls %+v, stop %q", resp.ToolCalls, resp.StopReason)
	}
	if strings.Join(sink.Tools, ";") != "0 trail_call_3_0 Bash" {
		t.Errorf("tool call starts reported: %q", sink.Tools)
	}
}

// A stop with no content at all (Gemini's safety stop through its OpenAI
// endpoint) is an empty answer, not a failure, and a normal stop.
func TestAnEmptyStopIsAnEmptyAnswer(t *testing.T) {
	resp, _, _ := replay(t, "gemini/RECONSTRUCTED_empty_answer_stop.sse", hello())
	if resp.Text != "" || len(resp.ToolCalls) != 0 || resp.StopReason != "stop" || !provider.NormalStop(resp.StopReason) || resp.Usage.InputTokens != 10 {
		t.Errorf("answer %q, calls %v, stop %q, usage %+v", resp.Text, resp.ToolCalls, resp.StopReason, resp.Usage)
	}
	for _, odd := range []string{"error", "abort", "weird", ""} {
		if provider.NormalStop(odd) {
			t.Errorf("%q taken for a normal end", odd)
		}
	}
}
