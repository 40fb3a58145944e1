// Package openai is the provider for OpenAI's Chat Completions API and the
// servers that speak it (Ollama, vLLM, llama.cpp, LM Studio) (SPEC 4.3):
// POST {base}/chat/completions with "stream": true, read as server-sent
// events. The key is optional when a base URL is given: local servers need
// none.
package openai

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"strings"

	"github.com/tidwall/gjson"

	"trail/core/errs"
	"trail/core/provider"
	"trail/core/provider/wire"
)

// DefaultBaseURL is used when neither --base-url, OPENAI_BASE_URL nor the
// settings name one.
const DefaultBaseURL = "https://api.openai.com/v1"

// Provider calls Chat Completions.
type Provider struct {
	url      string
	key      string
	official bool // the base URL is OpenAI's own
	client   *wire.Client
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
	c.Final = final
	c.Early = early
	c.Whole = isWhole
	official := cfg.BaseURL == "" || strings.HasPrefix(url, DefaultBaseURL+"/")
	return &Provider{url: url, key: cfg.APIKey, official: official, client: c}, nil
}

func (*Provider) Name() string       { return provider.OpenAI }
func (*Provider) APISurface() string { return "chat-completions" }

// Call sends one streaming request and assembles the answer. A server
// that refuses stream_options (vLLM before 0.5, Fireworks, Azure AI
// Foundry's serverless models, Mistral: a 400 or 422 naming it) is asked
// once more without it, and the answer says so, for the session to
// remember.
func (p *Provider) Call(ctx context.Context, req *provider.Request, sink provider.Sink) (*provider.Response, error) {
	h := http.Header{}
	if p.key != "" {
		h.Set("Authorization", "Bearer "+p.key)
	}
	opts := options{streamOptions: !req.NoStreamOptions, officialAPI: p.official}
	st, err := p.open(ctx, req, opts, h, sink)
	rejected := false
	if err != nil && opts.streamOptions && rejectsStreamOptions(err) {
		opts.streamOptions, rejected = false, true
		st, err = p.open(ctx, req, opts, h, sink)
	}
	if err != nil {
		return nil, err
	}
	defer st.Close()
	var resp *provider.Response
	if body := st.Whole(); body != nil {
		resp, err = readWhole(st, body, sink, req.Model, req.CallIndex)
	} else {
		resp, err = readStream(st, sink, req.Model, req.CallIndex)
	}
	if resp != nil {
		resp.StreamOptionsRejected = rejected
	}
	return resp, err
}

func (p *Provider) open(ctx context.Context, req *provider.Request, opts options, h http.Header, sink provider.Sink) (*wire.Stream, error) {
	body, err := encodeRequest(req, opts)
	if err != nil {
		return nil, &errs.ProviderError{Provider: provider.OpenAI, Message: "encode request: " + err.Error(), Err: err}
	}
	sink.RawPayload("request", json.RawMessage(body))
	return p.client.Open(ctx, wire.Post(p.url, body, h), sink.Retry)
}

// rejectsStreamOptions reports whether err is a server refusing the
// stream_options field (400 or 422 with the field's name in its message).
func rejectsStreamOptions(err error) bool {
	var pe *errs.ProviderError
	return errors.As(err, &pe) && (pe.Status == http.StatusBadRequest || pe.Status == http.StatusUnprocessableEntity) &&
		strings.Contains(pe.Message, "stream_options")
}

// hint names the fix for a failed status, or for what its body says: a
// model Ollama serves without tool support, or an error where the stream
// should be (LM Studio answers 200 to a path it does not serve).
func hint(status int, body []byte) string {
	switch {
	case status == http.StatusBadRequest && strings.Contains(wire.ErrorMessage(body), "does not support tools"):
		return "this model takes no tools: pass --tools none, or pick a model that supports tools"
	case status >= 200 && status <= 299:
		return "the server answered with an error, not a stream: check --base-url (OpenAI-compatible servers usually end in /v1)"
	}
	switch status {
	case http.StatusUnauthorized, http.StatusForbidden:
		return "check OPENAI_API_KEY; keys are read from the environment only"
	case http.StatusPaymentRequired:
		return "the server wants payment: the account is out of credits"
	case http.StatusNotFound:
		return "check --model and --base-url (OpenAI-compatible servers usually end in /v1)"
	case http.StatusTooManyRequests:
		return "rate limited: wait and resume the session, or raise --max-retries"
	}
	return ""
}

// quotaCode tells the 429s no wait will cure: the organization's or
// project's quota or spending limit is used up (OpenAI's error codes
// page and spend-limits guide). They are told apart by code or type, not
// by words: another server's "INSUFFICIENT QUOTA" may be a per-minute limit.
func quotaCode(code string) bool {
	switch code {
	case "insufficient_quota", "credit_balance_exhausted", "organization_usage_limit_exceeded",
		"organization_spend_limit_exceeded", "project_spend_limit_exceeded":
		return true
	}
	return false
}

func final(status int, body []byte) (bool, string) {
	if status != http.StatusTooManyRequests {
		return false, ""
	}
	e := gjson.GetBytes(body, "error")
	if quotaCode(e.Get("code").String()) || quotaCode(e.Get("type").String()) {
		return true, "your organization's usage limit or quota is used up: waiting will not help; check the plan, billing and limits of the organization or project"
	}
	return false, ""
}
