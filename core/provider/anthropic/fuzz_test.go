package anthropic

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
	names := []string{"text.sse", "tool_use.sse", "thinking.sse", "error_midstream.sse", "malformed.sse",
		"thinking_signature.sse", "redacted_thinking.sse", "max_tokens_mid_tool_use.sse", "refusal_after_thinking.sse", "RECONSTRUCTED_thinking_tool_use.sse"}
	wiretest.FuzzStream(f, "anthropic", names, hello(), func(c *http.Client) (provider.Provider, error) {
		p, err := New(provider.Config{Model: "m", BaseURL: "http://fuzz.invalid", APIKey: "k"}, wire.Options{HTTP: c})
		if err != nil { // a nil *Provider must not become a non-nil provider.Provider
			return nil, err
		}
		return p, nil
	})
}
