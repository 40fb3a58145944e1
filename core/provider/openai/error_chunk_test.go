package openai

import (
	"context"
	"errors"
	"strings"
	"testing"

	"trail/core/errs"
	"trail/core/provider/wire/wiretest"
)

// errorChunk frames an error body as the one chunk a server streams in
// place of its status: "data: <the JSON>", then a blank line.
func errorChunk(t *testing.T, name string) []string {
	return []string{"data: " + wiretest.Compact(t, []byte(wiretest.Body(t, name))) + "\n\n"}
}

// A server that reports a failure as a stream's first chunk, status 200,
// is retried when the status it stands for would be: Azure's
// rate_limit_exceeded chunk, OpenRouter's and LiteLLM's upstream status in
// the error's code. Chunks with nothing in them yet come before it. An
// error waiting cannot cure fails at once, as it did.
func TestAnErrorChunkBeforeTheAnswerIsRetriedAsItsStatus(t *testing.T) {
	text := wiretest.Transcript(t, "openai/text.sse")
	azure := wiretest.Transcript(t, "gateways/azure_200_error_chunk_rate_limit.sse")
	tests := []struct {
		name       string
		first      []string
		wantCalls  int
		wantReason string // the retry's, or the error's when not retried
	}{
		{"Azure's rate_limit_exceeded chunk", azure, 2, "openai: 429 rate_limit_exceeded: | ==="},
		{"after a role chunk and keep-alive comments", append([]string{": OPENROUTER PROCESSING\n\n", text[0]}, azure...), 2, "openai: 429 rate_limit_exceeded"},
		{"OpenRouter's upstream 429 as a numeric code", errorChunk(t, "openrouter/429.json"), 2, "openai: 429 Provider returned error: google/gemini-2.0-flash-exp:free is temporarily rate-limited upstream"},
		{"the generic server_error", errorChunk(t, "openai/500.json"), 2, "openai: 500 server_error: The server had an error"},
		{"a quota no wait cures", errorChunk(t, "openai/429_insufficient_quota.json"), 1, "openai: insufficient_quota: You exceeded your current quota"},
		{"LiteLLM's 401 as a string code", errorChunk(t, "gateways/RECONSTRUCTED_litellm_401_code_as_string.json"), 1, "openai: auth_error: Authentication Error"},
		{"an invalid request", errorChunk(t, "openai/RECONSTRUCTED_400_context_length_exceeded.json"), 1, "openai: context_length_exceeded"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := wiretest.NewServer(t, wiretest.Replay(tt.first), wiretest.Replay(text))
			sink := &wiretest.Sink{}
			resp, err := newProvider(srv.URL, key, 3).Call(context.Background(), hello(), sink)
			if srv.Requests() != tt.wantCalls {
				t.Errorf("%d requests, want %d", srv.Requests(), tt.wantCalls)
			}
			if tt.wantCalls == 1 {
				var pe *errs.ProviderError
				if !errors.As(err, &pe) || !strings.HasPrefix(err.Error(), tt.wantReason) {
					t.Fatalf("err = %v, want %q...", err, tt.wantReason)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if resp.Text != "Hello there, how may I assist you today?" || strings.Join(sink.Text, "") != resp.Text {
				t.Errorf("answer %q, deltas %q", resp.Text, sink.Text)
			}
			if len(sink.Retries) != 1 || !strings.HasPrefix(sink.Retries[0].Reason, tt.wantReason) {
				t.Errorf("retries %+v, want one for %q...", sink.Retries, tt.wantReason)
			}
			if k := sink.Kinds(); k["stream_event"] != len(text) {
				t.Errorf("logged %v: the failed attempt's chunks belong to no answer", k)
			}
		})
	}
}
