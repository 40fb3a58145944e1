package provider

import (
	"strings"

	"trail/core/chat"
	"trail/lazy"
)

// The model table: what trail knows of each model without asking its API.
// MaxOutput is the default --max-tokens (a request over it is a 400, and a
// lower one cuts long answers short); Price turns usage into cost
// (total_cost_usd); Thinking says which form of extended thinking the model
// takes. A row matches its own id, that id with a date after it
// ("claude-sonnet-4-5-20250929", "gpt-4o-2024-08-06",
// "claude-sonnet-4-5@20250929") or "-latest"; the longest such row wins.
// Nothing else matches: "gpt-5.2" or "claude-opus-4-9" are not "gpt-5" or
// "claude-opus-4", whose prices and limits may differ.
//
// Sources, checked on PricesChecked (testdata/providers/README.md lists the
// files): Anthropic's pricing and models pages (limits, prices, the 1.25x
// 5-minute cache write and 0.1x cache read); OpenAI's prices from LiteLLM's
// machine-readable table (model_prices_and_context_window.json, mirror
// synced 2026-07-24), cross-checked with third-party copies of OpenAI's
// pricing page, and their output limits from the API's own 400 messages;
// DeepSeek's and Gemini's from LiteLLM's table. Prices change: an unknown
// model has no price and its cost is null, never a guess.

// PricesChecked is when the prices below were last compared with their sources.
const PricesChecked = "2026-11-24"

// Price is USD per million tokens.
type Price struct {
	Input, Output float64
	// CacheWrite is a prompt-cache write (Anthropic's 5-minute ephemeral
	// cache: 1.25x input); 0 means the same as Input (OpenAI has no
	// surcharge).
	CacheWrite float64
	CacheRead  float64
}

// Thinking forms (Model.Thinking).
const (
	ThinkBudget       = iota // {"type":"enabled","budget_tokens":N} only
	ThinkAdaptive            // {"type":"adaptive"} preferred; a budget still works (deprecated)
	ThinkAdaptiveOnly        // {"type":"adaptive"} only: a budget is a 400
)

// Model is one row of the table.
type Model struct {
	Prefix    string
	MaxOutput int
	Price     *Price // nil: unknown, the cost is null
	Thinking  int
}

// anthropicPrice builds an Anthropic row's price from input and output:
// cache writes at 1.25x, reads at 0.1x (the pricing page's multipliers).
func anthropicPrice(in, out float64) *Price {
	return &Price{Input: in, Output: out, CacheWrite: in * 1.25, CacheRead: in / 10}
}

// models is built on first use: its prices are computed (anthropicPrice).
var models = lazy.Value[[]Model]{New: func() []Model {
	return []Model{
		// Anthropic (platform.claude.com pricing and models overview).
		{"claude-3-haiku", 4096, &Price{0.25, 1.25, 0.30, 0.03}, ThinkBudget},
		{"claude-3-opus", 4096, anthropicPrice(15, 75), ThinkBudget},
		{"claude-3-sonnet", 4096, anthropicPrice(3, 15), ThinkBudget},
		{"claude-3-5-sonnet", 8192, anthropicPrice(3, 15), ThinkBudget},
		{"claude-3-5-haiku", 8192, &Price{0.80, 4, 1, 0.08}, ThinkBudget},
		{"claude-3-7-sonnet", 64000, anthropicPrice(3, 15), ThinkBudget},
		{"claude-opus-4", 32000, anthropicPrice(15, 75), ThinkBudget}, // claude-opus-4-20250514
		{"claude-opus-4-1", 32000, anthropicPrice(15, 75), ThinkBudget},
		{"claude-opus-4-5", 64000, anthropicPrice(5, 25), ThinkBudget},
		{"claude-opus-4-6", 128000, anthropicPrice(5, 25), ThinkAdaptive},
		{"claude-opus-4-7", 128000, anthropicPrice(5, 25), ThinkAdaptiveOnly},
		{"claude-opus-4-8", 128000, anthropicPrice(5, 25), ThinkAdaptiveOnly},
		{"claude-sonnet-4", 64000, anthropicPrice(3, 15), ThinkBudget}, // claude-sonnet-4-20250514
		{"claude-sonnet-4-5", 64000, anthropicPrice(3, 15), ThinkBudget},
		{"claude-sonnet-4-6", 64000, anthropicPrice(3, 15), ThinkAdaptive}, // docs say 128K, LiteLLM 64K: the lower is safe
		{"claude-haiku-4-5", 64000, anthropicPrice(1, 5), ThinkBudget},
		{"claude-opus-5", 128000, anthropicPrice(5, 25), ThinkAdaptiveOnly},
		{"claude-sonnet-5", 128000, anthropicPrice(2, 10), ThinkAdaptiveOnly},
		{"claude-fable-5", 128000, anthropicPrice(10, 50), ThinkAdaptiveOnly},
		{"claude-mythos-5", 128000, anthropicPrice(10, 50), ThinkAdaptiveOnly},

		// OpenAI (prices: LiteLLM's table; limits: the API's 400 messages).
		{"gpt-4o", 16384, &Price{Input: 2.50, Output: 10, CacheRead: 1.25}, ThinkBudget},
		{"gpt-4o-2024-05-13", 4096, nil, ThinkBudget},
		{"gpt-4o-mini", 16384, &Price{Input: 0.15, Output: 0.60, CacheRead: 0.075}, ThinkBudget},
		{"gpt-4-turbo", 4096, nil, ThinkBudget},
		{"gpt-4.1", 32768, &Price{Input: 2, Output: 8, CacheRead: 0.50}, ThinkBudget},
		{"gpt-4.1-mini", 32768, &Price{Input: 0.40, Output: 1.60, CacheRead: 0.10}, ThinkBudget},
		{"gpt-4.1-nano", 32768, &Price{Input: 0.10, Output: 0.40, CacheRead: 0.025}, ThinkBudget},
		{"o3", 100000, &Price{Input: 2, Output: 8, CacheRead: 0.50}, ThinkBudget},
		{"o3-mini", 100000, &Price{Input: 1.10, Output: 4.40, CacheRead: 0.55}, ThinkBudget},
		{"o4-mini", 100000, &Price{Input: 1.10, Output: 4.40, CacheRead: 0.275}, ThinkBudget},
		{"gpt-5", 128000, &Price{Input: 1.25, Output: 10, CacheRead: 0.125}, ThinkBudget},
		{"gpt-5-mini", 128000, &Price{Input: 0.25, Output: 2, CacheRead: 0.025}, ThinkBudget},
		{"gpt-5-nano", 128000, &Price{Input: 0.05, Output: 0.40, CacheRead: 0.005}, ThinkBudget},
		{"gpt-5.1", 128000, &Price{Input: 1.25, Output: 10, CacheRead: 0.125}, ThinkBudget},
		{"gpt-5.2", 128000, &Price{Input: 1.75, Output: 14, CacheRead: 0.175}, ThinkBudget},

		// DeepSeek and Gemini (LiteLLM's table).
		{"deepseek-chat", 8192, &Price{Input: 0.28, Output: 0.42, CacheRead: 0.028}, ThinkBudget},
		{"deepseek-reasoner", 65536, &Price{Input: 0.28, Output: 0.42, CacheRead: 0.028}, ThinkBudget},
		{"gemini-2.5-pro", 65535, nil, ThinkBudget}, // priced by prompt length: not in this table
		{"gemini-2.5-flash", 65535, &Price{Input: 0.30, Output: 2.50, CacheRead: 0.03}, ThinkBudget},
	}
}}

// DefaultMaxTokens caps an answer when neither the user nor the table
// names a limit.
const DefaultMaxTokens = 8192

// ModelInfo is the table's row for model, ok false when no row matches.
// A gateway's spelling of a model id is the model: a router's
// "anthropic/claude-sonnet-4-5", Bedrock's
// "us.anthropic.claude-sonnet-4-5-20250929-v1:0".
func ModelInfo(model string) (Model, bool) {
	m := strings.ToLower(model)
	m = m[strings.LastIndexByte(m, '/')+1:]
	if i := strings.Index(m, "anthropic."); i >= 0 && !strings.Contains(m[:i], "-") {
		m = m[i+len("anthropic."):]
	}
	best, found := Model{}, false
	for _, r := range models.Get() {
		if rest, ok := strings.CutPrefix(m, r.Prefix); ok && versionSuffix(rest) && len(r.Prefix) > len(best.Prefix) {
			best, found = r, true
		}
	}
	return best, found
}

// versionSuffix reports whether rest, what follows a row's id in a model
// id, names a snapshot of that model: nothing, "-latest", or a date
// ("-20250929", "@20250929", "-2024-08-06"), whatever follows the date
// (Bedrock's "-v1:0").
func versionSuffix(rest string) bool {
	if rest == "" || rest == "-latest" {
		return true
	}
	if len(rest) < 9 || (rest[0] != '-' && rest[0] != '@') {
		return false
	}
	d := rest[1:]
	if len(d) >= 10 && d[4] == '-' && d[7] == '-' {
		d = d[:4] + d[5:7] + d[8:10] + d[10:]
	}
	if len(d) < 8 || strings.Trim(d[:8], "0123456789") != "" {
		return false
	}
	return len(d) == 8 || d[8] == '-' || d[8] == ':'
}

// MaxOutputFor is the output limit of model, else DefaultMaxTokens.
func MaxOutputFor(model string) int {
	if m, ok := ModelInfo(model); ok && m.MaxOutput > 0 {
		return m.MaxOutput
	}
	return DefaultMaxTokens
}

// Cost is what usage cost on model, in USD; ok is false when the model's
// price is unknown. Uncached input is InputTokens less the cache reads and
// writes it includes (chat.Usage counts every prompt token).
func Cost(model string, u chat.Usage) (usd float64, ok bool) {
	m, found := ModelInfo(model)
	if !found || m.Price == nil {
		return 0, false
	}
	p := m.Price
	write := p.CacheWrite
	if write == 0 {
		write = p.Input
	}
	read := p.CacheRead
	if read == 0 {
		read = p.Input
	}
	plain := max(u.InputTokens-u.CacheReadTokens-u.CacheCreationTokens, 0)
	usd = (float64(plain)*p.Input + float64(u.CacheCreationTokens)*write +
		float64(u.CacheReadTokens)*read + float64(u.OutputTokens)*p.Output) / 1e6
	return usd, true
}
