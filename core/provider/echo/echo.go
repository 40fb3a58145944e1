// Package echo is the offline provider that answers "echo: <last user
// message>". It needs no network and no key, for smoke tests and demos.
package echo

import (
	"context"
	"math"

	"trail/core/chat"
	"trail/core/provider"
)

// Provider answers with the last user message.
type Provider struct{}

// New returns the echo provider.
func New() *Provider { return &Provider{} }

func (*Provider) Name() string       { return provider.Echo }
func (*Provider) APISurface() string { return "echo" }

// Call answers at once; usage is estimated from the lengths, as Robota's estimator does.
func (*Provider) Call(ctx context.Context, req *provider.Request, sink provider.Sink) (*provider.Response, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	last := ""
	for i := len(req.Messages) - 1; i >= 0; i-- {
		if req.Messages[i].Role == chat.RoleUser {
			last = req.Messages[i].Content
			break
		}
	}
	text := "echo: " + last
	sink.TextDelta(text)
	return &provider.Response{
		Text:       text,
		Usage:      chat.Usage{InputTokens: quarter(chat.SerializedLength(req.Messages)), OutputTokens: quarter(int64(len(text)))},
		HasUsage:   true,
		StopReason: "end_turn",
		Model:      req.Model,
	}, nil
}

func quarter(n int64) int64 { return int64(math.Ceil(float64(n) / 4)) }
