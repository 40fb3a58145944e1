package main_test

import (
	"strings"
	"testing"

	"trail/core/provider/wire/wiretest"
)

// The commonest mistakes with local servers and long sessions get the
// fix on a hint line: one error line, one hint, exit 6.
func TestProviderErrorsNameTheFix(t *testing.T) {
	t.Parallel()
	// A failure the prompt outlived says how to ask again without sending
	// it twice (a context overflow's hint has its own way on).
	const kept = "; the prompt is kept: trail resume ID (no prompt) asks again"
	tests := []struct {
		name, provider, file string
		status               int
		wantErr, wantHint    string // the hint's ID is the session's
	}{
		{"OpenAI's context_length_exceeded", "openai", "openai/RECONSTRUCTED_400_context_length_exceeded.json", 400,
			"trail: openai: 400 context_length_exceeded: This model's maximum context length is 128000 tokens.",
			"hint: the conversation outgrew the model's context window: shorten it with trail compact ID, then resume; --context-window N (the model's window) has trail compact by itself before it fills"},
		{"Anthropic's prompt is too long", "anthropic", "anthropic/RECONSTRUCTED_400_prompt_too_long.json", 400,
			"trail: anthropic: 400 invalid_request_error: prompt is too long: 208310 tokens > 200000 maximum",
			"hint: the conversation outgrew the model's context window: shorten it with trail compact ID, then resume; --context-window N (the model's window) has trail compact by itself before it fills"},
		{"llama-server's context size, n_ctx stated", "openai", "llamacpp/400_exceed_context_size.json", 400,
			"trail: openai: 400 exceed_context_size_error: request (13392 tokens) exceeds the available context size (8192 tokens), try increasing it",
			"hint: the conversation outgrew the model's context: shorten it with trail compact ID, then resume; the server's context is 8192 tokens (n_ctx): --context-window 8192 has trail compact by itself before it fills"},
		{"Ollama's model without tools", "openai", "ollama/RECONSTRUCTED_400_does_not_support_tools.json", 400,
			"trail: openai: 400 api_error: registry.ollama.ai/library/gemma:7b does not support tools",
			"hint: this model takes no tools: pass --tools none, or pick a model that supports tools" + kept},
		{"LM Studio's 200 without /v1", "openai", "lmstudio/200_unexpected_endpoint.json", 200,
			"trail: openai: 200 Unexpected endpoint or method. (POST /chat/completions)",
			"hint: the server answered with an error, not a stream: check --base-url (OpenAI-compatible servers usually end in /v1)" + kept},
		{"a gateway's status as a string code", "openai", "gateways/RECONSTRUCTED_litellm_401_code_as_string.json", 401,
			"trail: openai: 401 auth_error: Authentication Error, Invalid proxy server token passed.",
			"hint: check OPENAI_API_KEY; keys are read from the environment only" + kept},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			srv := wiretest.NewServer(t, wiretest.Status(tt.status, wiretest.Body(t, tt.file)))
			e := anthropicEnv(t)
			e.setenv("OPENAI_API_KEY=0123456789abcdef0123456789abcdef")
			r := e.run("", "run", "--provider", tt.provider, "--base-url", srv.URL, "-m", "m", "hi")
			lines := strings.Split(strings.TrimSuffix(r.stderr, "\n"), "\n")
			if r.code != 6 || len(lines) != 2 || r.stdout != "" {
				t.Fatalf("want exit 6 and two lines on stderr: %s", r)
			}
			if !strings.HasPrefix(lines[0], tt.wantErr) || strings.Contains(lines[0], "0123456789abcdef0123456789abcdef") {
				t.Errorf("error line %q\nwant it to start %q", lines[0], tt.wantErr)
			}
			if want := strings.ReplaceAll(tt.wantHint, "ID", e.onlySession()); lines[1] != want {
				t.Errorf("hint %q\nwant %q", lines[1], want)
			}
		})
	}
}
