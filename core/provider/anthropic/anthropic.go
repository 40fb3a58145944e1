// Package anthropic is the provider for Anthropic's Messages API (SPEC 4.2):
// POST {base}/v1/messages with "stream": true, read as server-sent events.
package anthropic

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"

	"github.com/tidwall/gjson"

	"trail/core/errs"
	"trail/core/provider"
	"trail/core/provider/wire"
)

// DefaultBaseURL is used when neither --base-url, ANTHROPIC_BASE_URL nor
// the settings name one.
const DefaultBaseURL = "https://api.anthropic.com"

const apiVersion = "2023-06-01"

// Provider calls the Messages API.
type Provider struct {
	url     string
	key     string
	bearer  bool
	headers [][2]string // ANTHROPIC_CUSTOM_HEADERS
	client  *wire.Client
}

// New returns the provider for cfg. opts tune retries and timeouts; cfg's
// Timeout and MaxRetries override them. A base URL that is not http(s) is
// a usage error.
func New(cfg provider.Config, opts wire.Options) (*Provider, error) {
	url, c, err := wire.Setup(provider.Anthropic, cfg, opts, DefaultBaseURL, "/v1/messages")
	if err != nil {
		return nil, err
	}
	c.Hint = hint
	c.Final = final
	c.Early = early
	c.Whole = isWhole
	return &Provider{url: url, key: cfg.APIKey, bearer: cfg.BearerAuth, headers: cfg.Headers, client: c}, nil
}

// early reads the start of a stream: message_start and pings come before
// the answer; an error event there, before any content, is what its status
// would have said had the request not been streamed. The streaming docs:
// "during periods of high usage, you may receive an overloaded_error,
// which would normally correspond to an HTTP 529 in a non-streaming
// context". Those of a status that is retried (529, 500, 429) are retried
// as the status is; a busy API no longer ends a step at once when a retry
// a second later would have answered.
func early(ev wire.Event) (hold bool, status int) {
	switch gjson.GetBytes(ev.Data, "type").Str {
	case "message_start", "ping":
		return true, 0
	case "error":
		switch gjson.GetBytes(ev.Data, "error.type").Str {
		case "overloaded_error":
			return false, 529
		case "api_error":
			return false, http.StatusInternalServerError
		case "rate_limit_error":
			return false, http.StatusTooManyRequests
		}
	}
	return false, 0
}

func (*Provider) Name() string       { return provider.Anthropic }
func (*Provider) APISurface() string { return "anthropic-messages" }

// Call sends one streaming request and assembles the answer.
func (p *Provider) Call(ctx context.Context, req *provider.Request, sink provider.Sink) (*provider.Response, error) {
	body, err := encodeRequest(req)
	if err != nil {
		return nil, &errs.ProviderError{Provider: provider.Anthropic, Message: "encode request: " + err.Error(), Err: err}
	}
	sink.RawPayload("request", json.RawMessage(body))
	h := http.Header{"Anthropic-Version": {apiVersion}}
	if p.bearer {
		h.Set("Authorization", "Bearer "+p.key)
	} else {
		h.Set("X-Api-Key", p.key)
	}
	custom := http.Header{} // ANTHROPIC_CUSTOM_HEADERS, over trail's own, as Claude Code adds them
	for _, kv := range p.headers {
		custom.Add(kv[0], kv[1])
	}
	for k, v := range custom {
		h[k] = v
	}
	st, err := p.client.Open(ctx, wire.Post(p.url, body, h), sink.Retry)
	if err != nil {
		return nil, err
	}
	defer st.Close()
	if body := st.Whole(); body != nil {
		return readWhole(st, body, sink, req.Model, req.Thinking != nil)
	}
	return readStream(st, sink, req.Model, req.Thinking != nil)
}

// hint names the fix for a failed status; a 2xx is an error body where
// the stream should be, which a wrong base URL gets.
func hint(status int, _ []byte) string {
	if status >= 200 && status <= 299 {
		return "the server answered with an error, not a stream: check --base-url (the base is the server root, without /v1)"
	}
	switch status {
	case http.StatusUnauthorized, http.StatusForbidden:
		return "check ANTHROPIC_API_KEY (or ANTHROPIC_AUTH_TOKEN); keys are read from the environment only"
	case http.StatusPaymentRequired:
		return "a billing problem on your account: see Billing in the Claude Console"
	case http.StatusNotFound:
		return "check --model and --base-url (the base is the server root, without /v1)"
	case http.StatusTooManyRequests, 529:
		return "the API is busy: wait and resume the session, or raise --max-retries"
	}
	return ""
}

// final tells apart the errors no wait will cure (the errors page and the
// bodies users reported; README "Retries"): the usage tier's monthly spend
// cap is a 429 like a rate limit but with error.details.error_code
// enforced_spend_limit_reached and no retry-after; long context without
// extra usage is a 429 too. A spend limit you set and an empty credit
// balance are 400s, never retried, but their hint names the cause.
func final(status int, body []byte) (bool, string) {
	e := gjson.GetBytes(body, "error")
	msg := e.Get("message").String()
	switch {
	case status == http.StatusTooManyRequests && e.Get("details.error_code").String() == "enforced_spend_limit_reached":
		return true, "your organization reached its usage tier's monthly spend cap: waiting minutes will not help; " +
			"usage resumes on the 1st of next month (00:00 UTC), or sooner at a higher tier (Claude Console, Limits)"
	case status == http.StatusTooManyRequests && strings.Contains(msg, "Extra usage is required"):
		return true, "long-context requests need extra usage enabled for your organization (Claude Console), or a shorter conversation: trail compact"
	case status == http.StatusBadRequest && strings.Contains(msg, "specified API usage limits"):
		return true, "your organization reached the spend limit it set: raise it in the Claude Console (Limits), or wait for the date in the message"
	case status == http.StatusBadRequest && strings.Contains(msg, "credit balance is too low"):
		return true, "your Anthropic credit balance is used up: buy credits in the Claude Console (Plans & Billing)"
	}
	return false, ""
}
