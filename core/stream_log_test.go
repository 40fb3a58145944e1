package core

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"trail/core/chat"
	"trail/core/provider"
)

// A provider streams thinking and an answer four characters per event,
// each event its own payload: the log's payloads, its text_delta lines and
// the record all hold the joined text redacted, and the payloads keep
// their order.
func TestStreamedPiecesAreLoggedRedactedInOrder(t *testing.T) {
	const (
		token   = "ghp_" + "Zq8Xw2Lm4Np6Rt0Vb3Cd5Fg7Hj9Kk1Mm3Nn5Pp"
		keyID   = "AKIA" + "Z7XQ2LM4NP6RT0VB"
		thought = "the id is " + keyID + ", fine"
		answer  = "use " + token + " now"
	)
	n := 0
	event := func(kind, text string) json.RawMessage {
		n++
		b, _ := json.Marshal(map[string]any{"n": n, "delta": map[string]any{"type": kind, kind: text}})
		return b
	}
	p := &fakeProvider{call: func(_ context.Context, _ *provider.Request, sink provider.Sink) (*provider.Response, error) {
		sink.RawPayload("stream_event", event("start", ""))
		for i := 0; i < len(thought); i += 4 {
			piece := thought[i:min(i+4, len(thought))]
			sink.RawPayload("stream_event", event("thinking", piece))
			sink.ThinkingDelta(piece)
		}
		for i := 0; i < len(answer); i += 4 {
			piece := answer[i:min(i+4, len(answer))]
			sink.RawPayload("stream_event", event("text", piece))
			sink.TextDelta(piece)
		}
		sink.RawPayload("stream_event", event("stop", ""))
		return &provider.Response{Text: answer, Thinking: thought, StopReason: "end_turn"}, nil
	}}
	e, st := testEngine(t, p)
	res, err := e.Step(context.Background(), StepOptions{Prompt: "hi", Cwd: "/w", Provider: provider.Flags{Name: "echo"}})
	if err != nil {
		t.Fatal(err)
	}
	evs := events(t, st, res.SessionID)
	assertPaired(t, evs)
	var order []string
	var thinking, text, deltas strings.Builder
	for _, ev := range evs {
		switch ev["event"] {
		case "provider_native_raw_payload":
			pl := ev["payload"].(map[string]any)
			order = append(order, fmt.Sprint(pl["n"]))
			d := pl["delta"].(map[string]any)
			if s, ok := d["thinking"].(string); ok {
				thinking.WriteString(s)
			}
			if s, ok := d["text"].(string); ok {
				text.WriteString(s)
			}
		case "text_delta":
			deltas.WriteString(ev["delta"].(string))
		}
	}
	if strings.Join(order, ",") != seq(n) {
		t.Errorf("payloads logged in order %v, want 1..%d", order, n)
	}
	if got := thinking.String(); got != "the id is [REDACTED], fine" {
		t.Errorf("thinking payloads join into %q", got)
	}
	want := "use [REDACTED] now"
	if text.String() != want || deltas.String() != want {
		t.Errorf("text payloads join into %q, text_delta lines into %q, want %q", text.String(), deltas.String(), want)
	}
	rec, err := st.Load(res.SessionID)
	if err != nil {
		t.Fatal(err)
	}
	last, err := chat.DecodeMessage(rec.Messages[len(rec.Messages)-1])
	if err != nil || last.Content != want {
		t.Errorf("the record keeps %q (%v)", last.Content, err)
	}
}

func seq(n int) string {
	s := make([]string, n)
	for i := range s {
		s[i] = fmt.Sprint(i + 1)
	}
	return strings.Join(s, ",")
}
