package provider

import (
	"testing"

	"trail/core/chat"
)

func TestModelTableMatchesSnapshotsOnly(t *testing.T) {
	tests := []struct {
		model     string
		prefix    string // "" when no row may match
		maxOutput int
	}{
		{"claude-3-opus-20240229", "claude-3-opus", 4096},
		{"claude-3-haiku-20240307", "claude-3-haiku", 4096},
		{"claude-sonnet-4-5-20250929", "claude-sonnet-4-5", 64000},
		{"claude-sonnet-4-5@20250929", "claude-sonnet-4-5", 64000},
		{"claude-sonnet-4-5-20250929-v1:0", "claude-sonnet-4-5", 64000},
		{"claude-opus-4-20250514", "claude-opus-4", 32000},
		{"claude-opus-4-6", "claude-opus-4-6", 128000},
		{"claude-3-5-sonnet-latest", "claude-3-5-sonnet", 8192},
		{"gpt-4o-2024-08-06", "gpt-4o", 16384},
		{"gpt-4o-mini-2024-07-18", "gpt-4o-mini", 16384},
		{"GPT-4o", "gpt-4o", 16384},
		// gateways' spellings
		{"anthropic/claude-sonnet-4-5", "claude-sonnet-4-5", 64000},
		{"openai/gpt-4o-2024-08-06", "gpt-4o", 16384},
		{"us.anthropic.claude-sonnet-4-5-20250929-v1:0", "claude-sonnet-4-5", 64000},
		{"anthropic.claude-3-haiku-20240307-v1:0", "claude-3-haiku", 4096},
		{"my-anthropic.claude-3-haiku", "", DefaultMaxTokens},
		{"anthropic/llama3.2", "", DefaultMaxTokens},
		// not snapshots of a known row: unknown, whatever their prefix
		{"claude-opus-4-9", "", DefaultMaxTokens},
		{"gpt-5.6-luna", "", DefaultMaxTokens},
		{"o3-pro", "", DefaultMaxTokens},
		{"llama3.2", "", DefaultMaxTokens},
		{"gpt-4o-20", "", DefaultMaxTokens},
	}
	for _, tt := range tests {
		m, ok := ModelInfo(tt.model)
		if ok != (tt.prefix != "") || m.Prefix != tt.prefix {
			t.Errorf("%s: row %q (found %v), want %q", tt.model, m.Prefix, ok, tt.prefix)
		}
		if got := MaxOutputFor(tt.model); got != tt.maxOutput {
			t.Errorf("%s: max output %d, want %d", tt.model, got, tt.maxOutput)
		}
	}
}

// Hand-computed: claude-sonnet-4-5 at $3 in, $15 out, $3.75 cache write,
// $0.30 cache read per million tokens; input counts the cached tokens.
func TestCostIsTheHandComputedOne(t *testing.T) {
	u := chat.Usage{InputTokens: 12_000, OutputTokens: 500, CacheCreationTokens: 8_000, CacheReadTokens: 2_000}
	// plain 2,000 x 3 + 8,000 x 3.75 + 2,000 x 0.30 + 500 x 15 = 6,000 + 30,000 + 600 + 7,500 = 44,100 per million
	if got, ok := Cost("claude-sonnet-4-5-20250929", u); !ok || !near(got, 0.0441) {
		t.Errorf("cost = %v (%v), want 0.0441", got, ok)
	}
	// OpenAI has no cache-write surcharge; cached reads at $1.25 for gpt-4o
	u = chat.Usage{InputTokens: 10_000, OutputTokens: 1_000, CacheReadTokens: 4_000}
	// 6,000 x 2.50 + 4,000 x 1.25 + 1,000 x 10 = 15,000 + 5,000 + 10,000 = 30,000 per million
	if got, ok := Cost("gpt-4o", u); !ok || !near(got, 0.03) {
		t.Errorf("cost = %v (%v), want 0.03", got, ok)
	}
	if _, ok := Cost("llama3.2", u); ok {
		t.Error("an unknown model got a price")
	}
	if _, ok := Cost("gemini-2.5-pro", u); ok {
		t.Error("a model priced by prompt length got one price")
	}
}

func near(a, b float64) bool { return a-b < 1e-12 && b-a < 1e-12 }
