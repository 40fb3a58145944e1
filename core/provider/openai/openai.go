// Package openai is the provider for OpenAI's Chat Completions API and the
// servers that speak it (Ollama, vLLM, llama.cpp, LM Studio) (SPEC 4.3):
// POST {base}/chat/completions with "stream": true, read as server-sent
// events. The key is optional when a base URL is given: local servers need
// none.
package openai

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"strings"

	"trail/core"
	"trail/core/provider/wire"
)

// DefaultBaseURL is used when neither --base-url, OPENAI_BASE_URL nor the
// settings name one.
const DefaultBaseURL = "https://api.openai.com/v1"

// Provider calls Chat Completions.
type Provider struct {
	url    string
	key    string
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
	c := wire.NewClient(core.ProviderOpenAI, []string{cfg.APIKey}, opts)
	c.Hint = hint
	return &Provider{url: base + "/chat/completions", key: cfg.APIKey, client: c}
}

func (*Provider) Name() string       { return core.ProviderOpenAI }
func (*Provider) APISurface() string { return "chat-completions" }

// Call sends one streaming request and assembles the answer.
func (p *Provider) Call(ctx context.Context, req *core.Request, sink core.Sink) (*core.Response, error) {
	body, err := encodeRequest(req)
	if err != nil {
		return nil, &core.ProviderError{Provider: core.ProviderOpenAI, Message: "encode request: " + err.Error(), Err: err}
	}
	sink.RawPayload("request", json.RawMessage(body))
	st, err := p.client.Open(ctx, func(ctx context.Context) (*http.Request, error) {
		r, err := http.NewRequestWithContext(ctx, http.MethodPost, p.url, bytes.NewReader(body))
		if err != nil {
			return nil, err
		}
		r.Header.Set("Content-Type", "application/json")
		r.Header.Set("Accept", "text/event-stream")
		if p.key != "" {
			r.Header.Set("Authorization", "Bearer "+p.key)
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
		return "check OPENAI_API_KEY; keys are read from the environment only"
	case http.StatusNotFound:
		return "check --model and --base-url (OpenAI-compatible servers usually end in /v1)"
	case http.StatusTooManyRequests:
		return "rate limited: wait and resume the session, or raise --max-retries"
	}
	return ""
}
