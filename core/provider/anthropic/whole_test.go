package anthropic

import (
	"context"
	"strings"
	"testing"

	"github.com/tidwall/gjson"

	"trail/core/chat"
	"trail/core/provider"
	"trail/core/provider/wire/wiretest"
)

// wholeCall serves body as the one JSON answer of a server that ignored
// "stream": true.
func wholeCall(t *testing.T, name string, req *provider.Request) (*provider.Response, *wiretest.Sink) {
	t.Helper()
	srv := wiretest.NewServer(t, wiretest.Status(200, wiretest.Body(t, name)))
	sink := &wiretest.Sink{}
	resp, err := newProvider(srv.URL, 0).Call(context.Background(), req, sink)
	if err != nil {
		t.Fatal(err)
	}
	return resp, sink
}

// The Messages reference's answer, unstreamed, is the answer: its text,
// model, stop reason and usage; the body is logged as the response.
func TestAWholeMessageIsTheAnswer(t *testing.T) {
	resp, sink := wholeCall(t, "anthropic/nonstream.json", hello())
	if resp.Text != "Hi! My name is Claude." || strings.Join(sink.Text, "") != resp.Text || resp.StopReason != "end_turn" ||
		resp.Model != "claude-sonnet-4-5-20250929" || !resp.NotStreamed {
		t.Errorf("answer %q (deltas %q), stop %q, model %q, not streamed %v", resp.Text, sink.Text, resp.StopReason, resp.Model, resp.NotStreamed)
	}
	if !resp.HasUsage || resp.Usage != (chat.Usage{InputTokens: 2095, OutputTokens: 503}) {
		t.Errorf("usage %+v", resp.Usage)
	}
	if k := sink.Kinds(); k["response"] != 1 || k["stream_event"] != 0 {
		t.Errorf("payloads %v, want the request and the response", k)
	}
}

// A recorded unstreamed answer with thinking, text and a tool call: the
// call is made, and the next request carries the turn back as the
// recorded next request does, thinking and signature first.
func TestAWholeMessageWithThinkingAndACallGoesBackAsRecorded(t *testing.T) {
	req := hello()
	req.Thinking = &provider.Thinking{Budget: 3000}
	req.MaxTokens = 4096
	resp, sink := wholeCall(t, "anthropic/thinking_tool_roundtrip.1.response.json", req)
	if len(resp.ToolCalls) != 1 || resp.ToolCalls[0].Name != "get_user_country" || resp.ToolCalls[0].Arguments != "{}" ||
		resp.StopReason != "tool_use" || !strings.HasPrefix(resp.Thinking, "The user is asking") {
		t.Fatalf("calls %+v, stop %q, thinking %.20q", resp.ToolCalls, resp.StopReason, resp.Thinking)
	}
	if len(sink.Tools) != 1 {
		t.Errorf("tool calls reported %q", sink.Tools)
	}
	asst := committed(t, resp)
	result := msg("tool", "Mexico")
	result.ToolCallID = resp.ToolCalls[0].ID
	next := &provider.Request{Model: "claude-sonnet-4-0", MaxTokens: 4096, Thinking: &provider.Thinking{Budget: 3000}, NoCache: true,
		Messages: []chat.Message{msg("user", "What is the largest city in the user country?"), asst, result}}
	want := gjson.Get(wiretest.Body(t, "anthropic/thinking_tool_roundtrip.2.request.json"), "messages.1.content").Raw
	if got := gjson.GetBytes(srvBody(t, next), "messages.1.content").Raw; !jsonEqual(t, got, want) {
		t.Errorf("assistant turn sent back\n got %s\nwant %s", got, want)
	}
}
