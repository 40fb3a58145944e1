package openai

import (
	"context"
	"errors"
	"testing"
	"time"

	"trail/core/errs"
	"trail/core/provider"
	"trail/core/provider/wire"
	"trail/core/provider/wire/wiretest"
)

// The errors of the commonest local-server mistakes name their fix.
func TestErrorsNameTheirFix(t *testing.T) {
	tests := []struct {
		name, file      string
		status          int
		wantErr         string
		wantHint        string
		wantContextFull bool
		wantWindow      int64
	}{
		{"OpenAI's context_length_exceeded", "openai/RECONSTRUCTED_400_context_length_exceeded.json", 400,
			"openai: 400 context_length_exceeded: This model's maximum context length is 128000 tokens. However, your messages resulted in 130532 tokens. Please reduce the length of the messages.",
			errs.ContextFullFix("", 0), true, 0},
		{"llama-server's exceed_context_size_error, n_ctx stated", "llamacpp/400_exceed_context_size.json", 400,
			"openai: 400 exceed_context_size_error: request (13392 tokens) exceeds the available context size (8192 tokens), try increasing it",
			errs.ContextFullFix("", 8192), true, 8192},
		{"Ollama's model without tools", "ollama/RECONSTRUCTED_400_does_not_support_tools.json", 400,
			"openai: 400 api_error: registry.ollama.ai/library/gemma:7b does not support tools",
			"this model takes no tools: pass --tools none, or pick a model that supports tools", false, 0},
		{"LM Studio's 200 for a path it does not serve", "lmstudio/200_unexpected_endpoint.json", 200,
			"openai: 200 Unexpected endpoint or method. (POST /chat/completions)",
			"the server answered with an error, not a stream: check --base-url (OpenAI-compatible servers usually end in /v1)", false, 0},
		{"a gateway's status as a string code", "gateways/RECONSTRUCTED_litellm_401_code_as_string.json", 401,
			"openai: 401 auth_error: Authentication Error, Invalid proxy server token passed. Received API Key = [REDACTED], Key Hash (Token) =c8c2",
			"check OPENAI_API_KEY; keys are read from the environment only", false, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := wiretest.NewServer(t, wiretest.Status(tt.status, wiretest.Body(t, tt.file), "Content-Type", "application/json"))
			p := mustNew(New(provider.Config{Model: "m", BaseURL: srv.URL, APIKey: "0123456789abcdef0123456789abcdef", Timeout: time.Second}, wire.Options{BaseDelay: time.Millisecond}))
			_, err := p.Call(context.Background(), hello(), &wiretest.Sink{})
			var pe *errs.ProviderError
			if !errors.As(err, &pe) {
				t.Fatalf("err = %v", err)
			}
			if err.Error() != tt.wantErr || pe.Hint() != tt.wantHint {
				t.Errorf("err  %q\nwant %q\nhint %q\nwant %q", err, tt.wantErr, pe.Hint(), tt.wantHint)
			}
			if pe.ContextFull != tt.wantContextFull || pe.ContextWindow != tt.wantWindow {
				t.Errorf("context full %v (window %d)", pe.ContextFull, pe.ContextWindow)
			}
		})
	}
}

// Older llama-server reports the overflow as an error line mid-stream: the
// same hint.
func TestAnOverflowMidStreamNamesTheFix(t *testing.T) {
	srv := wiretest.NewServer(t, wiretest.Replay(wiretest.Transcript(t, "llamacpp/RECONSTRUCTED_error_line.sse")))
	_, err := newProvider(srv.URL, "", 0).Call(context.Background(), hello(), &wiretest.Sink{})
	var pe *errs.ProviderError
	if !errors.As(err, &pe) || !pe.ContextFull || pe.Hint() != errs.ContextFullFix("", 0) {
		t.Errorf("err %v, context full %v, hint %q", err, pe != nil && pe.ContextFull, hintOf(pe))
	}
}
