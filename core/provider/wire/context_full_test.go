package wire

import (
	"os"
	"path/filepath"
	"testing"
)

func TestContextFullIsReadInEveryAPIsWords(t *testing.T) {
	file := func(name string) string {
		b, err := os.ReadFile(filepath.Join("..", "..", "..", "testdata", "providers", name))
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	tests := []struct {
		name, body string
		full       bool
		window     int64
	}{
		{"OpenAI", file("openai/RECONSTRUCTED_400_context_length_exceeded.json"), true, 0},
		{"Anthropic", file("anthropic/RECONSTRUCTED_400_prompt_too_long.json"), true, 0},
		{"llama-server, n_ctx stated", file("llamacpp/400_exceed_context_size.json"), true, 8192},
		{"vLLM's bare message", `{"object":"error","message":"This model's maximum context length is 4096 tokens. However, you requested 5000 tokens.","type":"BadRequestError","code":400}`, true, 0},
		{"a rate limit", file("openai/429.json"), false, 0},
		{"not JSON", "prompt is too long", false, 0},
	}
	for _, tt := range tests {
		if full, window := contextFull([]byte(tt.body)); full != tt.full || window != tt.window {
			t.Errorf("%s: full %v window %d, want %v %d", tt.name, full, window, tt.full, tt.window)
		}
	}
}
