package echo

import (
	"context"
	"strings"
	"testing"
	"time"

	"trail/core/chat"
	"trail/core/provider"
)

type sink struct{ text strings.Builder }

func (s *sink) TextDelta(t string)                  { s.text.WriteString(t) }
func (s *sink) ThinkingDelta(string)                {}
func (s *sink) ToolCallStarted(int, string, string) {}
func (s *sink) RawPayload(string, any)              {}
func (s *sink) Retry(int, time.Duration, error)     {}

func TestEchoAnswersTheLastUserMessage(t *testing.T) {
	req := &provider.Request{Model: "echo", Messages: []chat.Message{
		{Role: chat.RoleSystem, Content: "sys"},
		{Role: chat.RoleUser, Content: "first"},
		{Role: chat.RoleAssistant, Content: "echo: first"},
		{Role: chat.RoleUser, Content: "second"},
	}}
	var s sink
	r, err := New().Call(context.Background(), req, &s)
	if err != nil {
		t.Fatal(err)
	}
	if r.Text != "echo: second" || s.text.String() != "echo: second" {
		t.Fatalf("text %q, streamed %q", r.Text, s.text.String())
	}
	if !r.HasUsage || r.Usage.OutputTokens != 3 || r.Usage.InputTokens != (chat.SerializedLength(req.Messages)+3)/4 {
		t.Fatalf("usage %+v", r.Usage)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := New().Call(ctx, req, &s); err == nil {
		t.Fatal("a cancelled call must fail")
	}
}
