package openai

import (
	"context"
	"testing"

	"trail/core/chat"
	"trail/core/provider/wire/wiretest"
)

// What some OpenAI-compatible servers and relays add to a good stream
// must not fail it: an "error": null on every chunk (Foundry Local), and
// empty data fields sent as keep-alives. The answer is the text.sse one.
func TestGatewayQuirksLeaveTheAnswerWhole(t *testing.T) {
	for _, name := range []string{"gateways/DERIVED_openai_error_null.sse", "gateways/DERIVED_openai_empty_data_keepalive.sse"} {
		t.Run(name, func(t *testing.T) {
			srv := wiretest.NewServer(t, wiretest.Replay(wiretest.Transcript(t, name)))
			resp, err := newProvider(srv.URL+"/v1", key, 0).Call(context.Background(), hello(), &wiretest.Sink{})
			if err != nil {
				t.Fatal(err)
			}
			if resp.Text != "Hello there, how may I assist you today?" || resp.StopReason != "stop" ||
				resp.Usage != (chat.Usage{InputTokens: 9, OutputTokens: 12}) {
				t.Errorf("answer %q, stop %q, usage %+v", resp.Text, resp.StopReason, resp.Usage)
			}
		})
	}
}
