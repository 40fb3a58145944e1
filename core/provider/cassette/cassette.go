// Package cassette is the provider that answers from a recording: a log
// trail wrote of an earlier session, with any provider (anthropic, openai,
// script, echo). The k-th provider call of the new session, counted by the
// record's providerCalls as the script provider counts (so across run,
// resume and compact processes), gets the answer of the k-th
// provider_request of the recording, streamed as it was: its text deltas
// and thinking, its tool calls, usage and stop reason, or its error. Tools
// run for real, permissions and hooks apply: only the model is replayed.
//
// Each request is first checked against the recorded one (match.go): in
// strict mode (the default) a request that differs fails the call, naming
// the first differing message and field; lenient mode answers in order
// regardless. Running out of recorded answers fails the call too. Both are
// provider errors (exit 6).
package cassette

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/tidwall/gjson"

	"trail/core/chat"
	"trail/core/errs"
	"trail/core/provider"
	"trail/logfmt"
)

// Modes and speeds (--cassette-mode, --cassette-speed).
const (
	ModeStrict    = "strict"
	ModeLenient   = "lenient"
	SpeedFull     = "full"
	SpeedRecorded = "recorded"
)

// Options tune a playback.
type Options struct {
	Lenient  bool   // answer in order without checking the requests
	Recorded bool   // keep the recorded gaps between stream events
	Cwd      string // the new session's working directory, read for the recorded one
}

// Provider plays a recording.
type Provider struct {
	rec  *recording
	opts Options
}

// Load reads the recording at path (a trail log).
func Load(path string, opts Options) (*Provider, error) {
	rec, err := readRecording(path)
	if err != nil {
		return nil, err
	}
	return &Provider{rec: rec, opts: opts}, nil
}

func (*Provider) Name() string       { return provider.Cassette }
func (*Provider) APISurface() string { return "cassette" }

// Calls is how many provider calls the recording holds.
func (p *Provider) Calls() int { return len(p.rec.calls) }

// Call answers request number req.CallIndex with its recorded answer.
func (p *Provider) Call(ctx context.Context, req *provider.Request, sink provider.Sink) (*provider.Response, error) {
	k := req.CallIndex
	n := len(p.rec.calls)
	if k < 0 || k >= n {
		return nil, p.fail(fmt.Sprintf("request %d: the recording holds %d provider calls (%s)", k+1, n, p.rec.path),
			"the session asked the model more often than when it was recorded: record it again")
	}
	c := p.rec.calls[k]
	if !p.opts.Lenient {
		if err := p.check(k, c, req); err != nil {
			return nil, err
		}
	}
	if !c.answered {
		return nil, p.fail(fmt.Sprintf("request %d: the recording has no answer to it (line %d: the recorded step ended there)", k+1, c.line), "")
	}
	resp, err := c.response()
	if err != nil {
		return nil, p.fail(fmt.Sprintf("request %d (line %d): %v", k+1, c.line, err), "")
	}
	start := time.Now()
	wait := func(at time.Duration) error {
		if !p.opts.Recorded {
			return ctx.Err()
		}
		d := at - time.Since(start)
		if d <= 0 {
			return ctx.Err()
		}
		t := time.NewTimer(d)
		defer t.Stop()
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-t.C:
			return nil
		}
	}
	for _, pc := range c.stream {
		if err := wait(pc.at); err != nil {
			return nil, err
		}
		if pc.thinking {
			sink.ThinkingDelta(pc.text)
		} else {
			sink.TextDelta(pc.text)
		}
	}
	for i, tc := range resp.ToolCalls {
		sink.ToolCallStarted(i, tc.ID, tc.Name)
	}
	if err := wait(c.end); err != nil {
		return nil, err
	}
	if c.interrupted {
		// A signal cut the recorded answer: played as whole, it would be
		// committed complete, and the next request, which was recorded
		// with the interrupted note on it (SPEC 3.3), would no longer
		// match. Ending the call after the recorded pieces makes the
		// engine keep them as an interrupted answer, as it did then.
		return nil, p.fail(fmt.Sprintf("request %d: the recorded answer was interrupted (line %d); what had streamed is kept as an interrupted answer", k+1, c.line),
			"resume the session to go on with the recording")
	}
	if c.failure != nil {
		f := gjson.ParseBytes(c.failure)
		return nil, &errs.ProviderError{Provider: c.provider, Status: int(f.Get("status").Int()), Message: f.Get("message").String()}
	}
	return resp, nil
}

// check compares the request with the recorded one.
func (p *Provider) check(k int, c *call, req *provider.Request) error {
	got := make([]json.RawMessage, len(req.Messages))
	for i := range req.Messages {
		raw, err := req.Messages[i].CompactJSON()
		if err != nil {
			return fmt.Errorf("encode message %d: %w", i, err)
		}
		got[i] = raw
	}
	if d := toolsMismatch(c.tools, req.Tools); d != "" {
		return p.fail(fmt.Sprintf("request %d: %s", k+1, d),
			"the script now offers the model other tools than when it was recorded (--tools, --allow-tool, settings): record it again, or pass --cassette-mode lenient")
	}
	if logfmt.MessagesSHA256(got) == c.sha256 {
		return nil
	}
	if !c.complete {
		return p.fail(fmt.Sprintf("request %d: messages differ from the recording's digest (line %d), and its log does not hold the messages to compare", k+1, c.line),
			"pass --cassette-mode lenient to answer in order regardless")
	}
	if d := mismatch(c.messages, got, p.rec.cwd, p.opts.Cwd); d != "" {
		return p.fail(fmt.Sprintf("request %d: %s", k+1, d),
			"the script now sends something else than when it was recorded: record it again, or pass --cassette-mode lenient")
	}
	return nil
}

func (p *Provider) fail(msg, fix string) error {
	return &errs.ProviderError{Provider: provider.Cassette, Message: msg, Fix: fix}
}

// response rebuilds the answer the engine had: the normalized response
// (text, tool calls, usage, stop reason) completed by the committed
// assistant message where the round had one (cache usage, providerData,
// the stop and refusal the engine acted on).
func (c *call) response() (*provider.Response, error) {
	resp := &provider.Response{Model: cmp.Or(c.answerModel, c.model)}
	src := c.committed
	if src == nil {
		src = c.normalized
	}
	if src == nil {
		return resp, nil // a failure: the error is returned after the stream
	}
	m, err := chat.DecodeMessage(src)
	if err != nil {
		return nil, err
	}
	resp.Text, resp.ToolCalls, resp.ProviderData = m.Content, m.ToolCalls, m.ProviderData
	norm := gjson.ParseBytes(c.normalized)
	resp.StopReason = norm.Get("stopReason").String()
	usage := norm.Get("usage")
	if c.committed != nil {
		usage = gjson.ParseBytes(m.Metadata)
		md := usage
		resp.Refusal = md.Get("refusal").String()
		if md.Get("stopReason").Exists() {
			resp.Stop = stopOf(resp.StopReason)
		}
		if resp.Refusal != "" {
			resp.Stop = provider.StopRefusal
		}
	} else {
		resp.Stop = stopOf(resp.StopReason)
	}
	if in, out := usage.Get("inputTokens"), usage.Get("outputTokens"); in.Exists() || out.Exists() {
		resp.HasUsage = true
		resp.Usage = chat.Usage{InputTokens: in.Int(), OutputTokens: out.Int(),
			CacheReadTokens: usage.Get("cacheReadInputTokens").Int(), CacheCreationTokens: usage.Get("cacheCreationInputTokens").Int()}
	}
	for _, pc := range c.stream {
		if pc.thinking {
			resp.Thinking += pc.text
		}
	}
	return resp, nil
}

// stopOf is a provider's stop reason in the engine's terms.
func stopOf(reason string) string {
	switch reason {
	case "max_tokens", "length":
		return provider.StopMaxTokens
	case "refusal", "content_filter":
		return provider.StopRefusal
	case provider.StopPauseTurn, provider.StopContextFull:
		return reason
	}
	return ""
}
