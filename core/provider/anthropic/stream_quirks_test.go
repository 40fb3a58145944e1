package anthropic

import (
	"context"
	"strings"
	"testing"

	"trail/core/chat"
	"trail/core/provider/wire/wiretest"
)

// message_delta may send the input counters as null (the API types them
// nullable): the ones message_start gave stand, cached tokens included.
func TestNullCountersInMessageDeltaKeepTheEarlierOnes(t *testing.T) {
	srv := wiretest.NewServer(t, wiretest.Replay(wiretest.Transcript(t, "anthropic/DERIVED_null_usage_delta.sse")))
	resp, err := newProvider(srv.URL, 0).Call(context.Background(), hello(), &wiretest.Sink{})
	if err != nil {
		t.Fatal(err)
	}
	want := chat.Usage{InputTokens: 6500, OutputTokens: 15, CacheCreationTokens: 300, CacheReadTokens: 5000}
	if resp.Usage != want || !resp.HasUsage {
		t.Errorf("usage %+v, want %+v", resp.Usage, want)
	}
}

// Once message_delta gave the stop reason the answer is whole: a stream
// that then ends without message_stop, or without the blank line after
// it, is not a failure. Before the stop reason it still is.
func TestAnAnswerWithItsStopReasonSurvivesALostEnd(t *testing.T) {
	cut := wiretest.Transcript(t, "anthropic/text.sse")
	last := len(cut) - 1
	cut[last] = strings.TrimSuffix(cut[last], "\n\n") // message_stop, unterminated
	for name, events := range map[string][]string{
		"no message_stop":                wiretest.Transcript(t, "anthropic/DERIVED_no_message_stop.sse"),
		"message_stop without its end":   cut,
		"empty data fields as keepalive": wiretest.Transcript(t, "gateways/DERIVED_anthropic_empty_data_keepalive.sse"),
	} {
		t.Run(name, func(t *testing.T) {
			srv := wiretest.NewServer(t, wiretest.Replay(events))
			resp, err := newProvider(srv.URL, 0).Call(context.Background(), hello(), &wiretest.Sink{})
			if err != nil {
				t.Fatal(err)
			}
			if resp.Text != "Hello!" || resp.StopReason != "end_turn" || resp.Usage.OutputTokens != 15 {
				t.Errorf("answer %q, stop %q, usage %+v", resp.Text, resp.StopReason, resp.Usage)
			}
		})
	}
	// Cut before message_delta: no stop reason, the answer is not whole.
	srv := wiretest.NewServer(t, wiretest.Replay(wiretest.Transcript(t, "anthropic/text.sse")[:6]))
	if _, err := newProvider(srv.URL, 0).Call(context.Background(), hello(), &wiretest.Sink{}); err == nil || !strings.Contains(err.Error(), "before message_stop") {
		t.Errorf("a stream cut before its stop reason: err %v", err)
	}
}

// An end_turn with no content block at all is an empty answer, not a
// failure: the user is told so (commands), the usage still counts.
func TestAnEmptyEndTurnIsAnEmptyAnswer(t *testing.T) {
	srv := wiretest.NewServer(t, wiretest.Replay(wiretest.Transcript(t, "anthropic/RECONSTRUCTED_empty_end_turn.sse")))
	resp, err := newProvider(srv.URL, 0).Call(context.Background(), hello(), &wiretest.Sink{})
	if err != nil {
		t.Fatal(err)
	}
	if resp.Text != "" || len(resp.ToolCalls) != 0 || resp.StopReason != "end_turn" || resp.Stop != "" || resp.Usage.InputTokens != 50 {
		t.Errorf("answer %q, calls %v, stop %q (%q), usage %+v", resp.Text, resp.ToolCalls, resp.StopReason, resp.Stop, resp.Usage)
	}
}
