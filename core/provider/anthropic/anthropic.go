// Package anthropic is the provider for Anthropic's Messages API (SPEC 4.2):
// POST {base}/v1/messages with "stream": true, read as server-sent events.
package anthropic

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"strings"

	"trail/core"
	"trail/core/provider/wire"
)

// DefaultBaseURL is used when neither --base-url, ANTHROPIC_BASE_URL nor
// the settings name one.
const DefaultBaseURL = "https://api.anthropic.com"

const apiVersion = "2023-06-01"

// Provider calls the Messages API.
type Provider struct {
	url    string
	key    string
	bearer bool
	client *wire.Client
}

// New returns the provider for cfg. opts tune retries and timeouts; cfg's
// Timeout and MaxRetries override them.
func New(cfg core.ProviderConfig, opts wire.Options) *Provider {
	base := strings.TrimRight(cfg.BaseURL, "/")
	if base == "" {
		base = DefaultBaseURL
	}
	if cfg.Timeout > 0 {
		opts.IdleTimeout = cfg.Timeout
	}
	opts.MaxRetries = cfg.MaxRetries
	c := wire.NewClient(core.ProviderAnthropic, []string{cfg.APIKey}, opts)
	c.Hint = hint
	return &Provider{url: base + "/v1/messages", key: cfg.APIKey, bearer: cfg.BearerAuth, client: c}
}

func (*Provider) Name() string       { return core.ProviderAnthropic }
func (*Provider) APISurface() string { return "anthropic-messages" }

// Call sends one streaming request and assembles the answer.
func (p *Provider) Call(ctx context.Context, req *core.Request, sink core.Sink) (*core.Response, error) {
	body, err := encodeRequest(req)
	if err != nil {
		return nil, &core.ProviderError{Provider: core.ProviderAnthropic, Message: "encode request: " + err.Error(), Err: err}
	}
	sink.RawPayload("request", json.RawMessage(body))
	st, err := p.client.Open(ctx, func(ctx context.Context) (*http.Request, error) {
		r, err := http.NewRequestWithContext(ctx, http.MethodPost, p.url, bytes.NewReader(body))
		if err != nil {
			return nil, err
		}
		r.Header.Set("Content-Type", "application/json")
		r.Header.Set("Accept", "text/event-stream")
		r.Header.Set("Anthropic-Version", apiVersion)
		if p.bearer {
			r.Header.Set("Authorization", "Bearer "+p.key)
		} else {
			r.Header.Set("X-Api-Key", p.key)
		}
		return r, nil
	}, sink.Retry)
	if err != nil {
		return nil, err
	}
	defer st.Close()
	return readStream(st, sink, req.Model)
}

func hint(status int) string {
	switch status {
	case http.StatusUnauthorized, http.StatusForbidden:
		return "check ANTHROPIC_API_KEY (or ANTHROPIC_AUTH_TOKEN); keys are read from the environment only"
	case http.StatusNotFound:
		return "check --model and --base-url (the base is the server root, without /v1)"
	case http.StatusTooManyRequests, 529:
		return "the API is busy: wait and resume the session, or raise --max-retries"
	}
	return ""
}
