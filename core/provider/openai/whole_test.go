package openai

import (
	"context"
	"strings"
	"testing"

	"trail/core/chat"
	"trail/core/provider/wire/wiretest"
)

// A server that ignores "stream": true answers one chat.completion
// object: it is the answer, text or calls, stop reason and usage, and
// the body is logged as the response.
func TestAWholeChatCompletionIsTheAnswer(t *testing.T) {
	tests := []struct {
		name      string
		wantText  string
		wantCalls []string // "id name arguments"
		wantStop  string
		wantUsage chat.Usage
	}{
		{"openai/nonstream.json", "\n\nHello there, how may I assist you today?", nil, "stop", chat.Usage{InputTokens: 9, OutputTokens: 12}},
		{"openai/RECONSTRUCTED_nonstream_tool_call.json", "", []string{
			`call_abc123 Bash {"command":"echo whole > w.txt"}`,
			`call_abc124 Bash {"command":"echo second > v.txt"}`,
		}, "tool_calls", chat.Usage{InputTokens: 82, OutputTokens: 17}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := wiretest.NewServer(t, wiretest.Status(200, wiretest.Body(t, tt.name)))
			sink := &wiretest.Sink{}
			resp, err := newProvider(srv.URL, key, 0).Call(context.Background(), hello(), sink)
			if err != nil {
				t.Fatal(err)
			}
			var calls []string
			for _, c := range resp.ToolCalls {
				calls = append(calls, c.ID+" "+c.Name+" "+c.Arguments)
			}
			if resp.Text != tt.wantText || strings.Join(sink.Text, "") != tt.wantText || strings.Join(calls, "\n") != strings.Join(tt.wantCalls, "\n") {
				t.Errorf("answer %q (deltas %q), calls %q", resp.Text, sink.Text, calls)
			}
			if resp.StopReason != tt.wantStop || resp.Usage != tt.wantUsage || !resp.HasUsage || resp.Model != "gpt-4o-mini" || !resp.NotStreamed {
				t.Errorf("stop %q, usage %+v, model %q, not streamed %v", resp.StopReason, resp.Usage, resp.Model, resp.NotStreamed)
			}
			if len(sink.Tools) != len(tt.wantCalls) {
				t.Errorf("tool calls reported %q", sink.Tools)
			}
			if k := sink.Kinds(); k["response"] != 1 || k["stream_event"] != 0 {
				t.Errorf("payloads %v, want the request and the response", k)
			}
		})
	}
}

// An error body where the stream should be keeps its message and hint.
func TestAWholeErrorBodyIsStillAnError(t *testing.T) {
	srv := wiretest.NewServer(t, wiretest.Status(200, wiretest.Body(t, "lmstudio/200_unexpected_endpoint.json")))
	_, err := newProvider(srv.URL, key, 3).Call(context.Background(), hello(), &wiretest.Sink{})
	if err == nil || err.Error() != "openai: 200 Unexpected endpoint or method. (POST /chat/completions)" || srv.Requests() != 1 {
		t.Errorf("err = %v after %d requests", err, srv.Requests())
	}
}
