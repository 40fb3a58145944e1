package openai

import (
	"net/http"
	"testing"

	"trail/core/provider"
	"trail/core/provider/wire"
	"trail/core/provider/wire/wiretest"
)

// FuzzStream: whatever the server streams, Call returns an answer or an
// error, and never panics.
func FuzzStream(f *testing.F) {
	names := []string{"text.sse", "tool_calls.sse", "reasoning.sse", "error_midstream.sse", "malformed.sse",
		"refusal.sse", "length_truncated_json.sse", "../gateways/DERIVED_tool_calls_same_index_different_ids.sse",
		"../gemini/RECONSTRUCTED_gemini3_tool_call_signature.sse", "../llamacpp/RECONSTRUCTED_error_line.sse"}
	wiretest.FuzzStream(f, "openai", names, hello(), func(c *http.Client) (provider.Provider, error) {
		p, err := New(provider.Config{Model: "m", BaseURL: "http://fuzz.invalid", APIKey: "k"}, wire.Options{HTTP: c})
		if err != nil { // a nil *Provider must not become a non-nil provider.Provider
			return nil, err
		}
		return p, nil
	})
}
