package openai

import (
	"context"
	"net/http"
	"os"
	"path/filepath"
	"testing"

	"trail/core/provider"
	"trail/core/provider/wire"
	"trail/core/provider/wire/wiretest"
)

// FuzzStream: whatever the server streams, Call returns an answer or an
// error, and never panics.
func FuzzStream(f *testing.F) {
	for _, name := range []string{"text.sse", "tool_calls.sse", "reasoning.sse", "error_midstream.sse", "malformed.sse"} {
		b, err := os.ReadFile(filepath.Join(wiretest.Root(), "testdata", "providers", "openai", name))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		p := mustNew(New(provider.Config{Model: "m", BaseURL: "http://fuzz.invalid", APIKey: "k"},
			wire.Options{HTTP: &http.Client{Transport: wiretest.BodyTransport(data)}}))
		resp, err := p.Call(context.Background(), hello(), &wiretest.Sink{})
		if (resp == nil) == (err == nil) {
			t.Fatalf("resp %v, err %v: want exactly one", resp, err)
		}
	})
}
