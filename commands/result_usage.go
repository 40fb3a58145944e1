package commands

import (
	"trail/core"
	"trail/core/chat"
	"trail/logfmt"
)

// The result's usage and cost, in claude -p's shape (SPEC 6, issue 13):
// usage gains cache_creation_input_tokens and cache_read_input_tokens
// (input_tokens keeps trail's meaning: every prompt token, cached ones
// included); total_cost_usd is the step's cost in USD, null when a model's
// price is unknown; modelUsage has one entry per model that answered, as
// Claude Code writes it: inputTokens are the uncached ones there, so that
// inputTokens, cacheReadInputTokens and cacheCreationInputTokens add up
// to what was sent, each at its own price.

func usageObject(u chat.Usage) logfmt.Object {
	return logfmt.Object{
		logfmt.F("input_tokens", u.InputTokens),
		logfmt.F("output_tokens", u.OutputTokens),
		logfmt.F("cache_creation_input_tokens", u.CacheCreationTokens),
		logfmt.F("cache_read_input_tokens", u.CacheReadTokens),
	}
}

func modelUsageObject(list []core.ModelUsage) logfmt.Object {
	o := logfmt.Object{}
	for _, mu := range list {
		u := mu.Usage
		o = append(o, logfmt.F(mu.Model, logfmt.Object{
			logfmt.F("inputTokens", max(u.InputTokens-u.CacheReadTokens-u.CacheCreationTokens, 0)),
			logfmt.F("outputTokens", u.OutputTokens),
			logfmt.F("cacheReadInputTokens", u.CacheReadTokens),
			logfmt.F("cacheCreationInputTokens", u.CacheCreationTokens),
			logfmt.F("costUSD", costValue(priced(mu))),
			logfmt.F("contextWindow", mu.ContextWindow),
			logfmt.F("maxOutputTokens", mu.MaxOutput),
		}))
	}
	return o
}

func priced(mu core.ModelUsage) *float64 {
	if !mu.Priced {
		return nil
	}
	c := mu.CostUSD
	return &c
}

// costValue is a cost for JSON: the number, or null when unknown.
func costValue(c *float64) any {
	if c == nil {
		return nil
	}
	return *c
}

func nullIfEmpty(s string) any {
	if s == "" {
		return nil
	}
	return s
}
