// Package openai is the provider for OpenAI's Chat Completions API and the
// servers that speak it (Ollama, vLLM, llama.cpp, LM Studio) (SPEC 4.3):
// POST {base}/chat/completions with "stream": true, read as server-sent
// events. The key is optional when a base URL is given: local servers need
// none.
package openai

import (
	"context"
	"encoding/json"
	"net/http"

	"trail/core/errs"
	"trail/core/provider"
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
// Timeout and MaxRetries override them. A base URL that is not http(s) is
// a usage error.
func New(cfg provider.Config, opts wire.Options) (*Provider, error) {
	url, c, err := wire.Setup(provider.OpenAI, cfg, opts, DefaultBaseURL, "/chat/completions")
	if err != nil {
		return nil, err
	}
	c.Hint = hint
	return &Provider{url: url, key: cfg.APIKey, client: c}, nil
}

func (*Provider) Name() string       { return provider.OpenAI }
func (*Provider) APISurface() string { return "chat-completions" }

// Call sends one streaming request and assembles the answer.
func (p *Provider) Call(ctx context.Context, req *provider.Request, sink provider.Sink) (*provider.Response, error) {
	body, err := encodeRequest(req)
	if err != nil {
		return nil, &errs.ProviderError{Provider: provider.OpenAI, Message: "encode request: " + err.Error(), Err: err}
	}
	sink.RawPayload("request", json.RawMessage(body))
	h := http.Header{}
	if p.key != "" {
		h.Set("Authorization", "Bearer "+p.key)
	}
	st, err := p.client.Open(ctx, wire.Post(p.url, body, h), sink.Retry)
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
