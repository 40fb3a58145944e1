package core

// Token usage and what it cost. Every provider call's usage is added to
// the step's totals and to its model's share (modelUsage, as claude -p
// reports it), priced with the model table (provider.Cost). A model the
// table does not price has a null cost, and so has the step's total: a
// guess would be worse than no number. The record keeps the session's
// totals in usage, with costUSD while every call so far was priced; once
// one was not (or a record from before costs were kept gains usage), the
// session's cost is unknown and costUSD is left out for good. A call whose
// server sent no usage (a server that refused stream_options, say) makes
// its model's cost unknown too: zero would be a guess.

import (
	"math"

	"trail/core/chat"
	"trail/core/provider"
	"trail/store"
)

// ModelUsage is one model's share of a step.
type ModelUsage struct {
	Model         string
	Usage         chat.Usage
	CostUSD       float64
	Priced        bool // CostUSD is known
	ContextWindow int64
	MaxOutput     int
}

// account adds one call's usage, answered by model; known is false when
// the server sent none.
func (s *session) account(model string, u chat.Usage, known bool) {
	if model == "" {
		model = s.pcfg.Model
	}
	s.usage.Add(u)
	var mu *ModelUsage
	for i := range s.modelUsage {
		if s.modelUsage[i].Model == model {
			mu = &s.modelUsage[i]
		}
	}
	if mu == nil {
		s.modelUsage = append(s.modelUsage, ModelUsage{Model: model, Priced: true,
			ContextWindow: chat.ContextWindowFor(model), MaxOutput: provider.MaxOutputFor(model)})
		mu = &s.modelUsage[len(s.modelUsage)-1]
	}
	mu.Usage.Add(u)
	if !known {
		mu.Priced = false
		return
	}
	// Priced as the model that answered, which is what was billed: a
	// gateway's spelling of a known model is known (provider.ModelInfo),
	// and a server's own model ("llama3.2" answering a request for
	// gpt-4o) has no price, rather than the asked model's.
	cost, ok := provider.Cost(model, u)
	mu.CostUSD = roundUSD(mu.CostUSD + cost)
	mu.Priced = mu.Priced && ok
}

// stepCost is the step's total cost; ok is false when a model's price is
// unknown.
func (s *session) stepCost() (usd float64, ok bool) {
	for _, mu := range s.modelUsage {
		if !mu.Priced {
			return 0, false
		}
		usd += mu.CostUSD
	}
	return roundUSD(usd), true
}

// roundUSD keeps a cost to a billionth of a dollar, so sums print as the
// hand-computed figure (0.0105, not 0.010499999999999999).
func roundUSD(usd float64) float64 {
	return math.Round(usd*1e9) / 1e9
}

func (s *session) addUsageTotals() {
	u := s.usage
	cost, priced := s.stepCost()
	r := s.rec
	if u == (chat.Usage{}) {
		if !priced && r.Usage != nil {
			r.Usage.CostUSD = nil // a call without usage: the cost is not known
		}
		return
	}
	if r.Usage == nil {
		r.Usage = &store.Usage{}
		if priced {
			r.Usage.CostUSD = new(float64)
		}
	}
	had := r.Usage.InputTokens != 0 || r.Usage.OutputTokens != 0
	r.Usage.InputTokens += u.InputTokens
	r.Usage.OutputTokens += u.OutputTokens
	r.Usage.CacheReadInputTokens += u.CacheReadTokens
	r.Usage.CacheCreationInputTokens += u.CacheCreationTokens
	switch {
	case !priced:
		r.Usage.CostUSD = nil
	case r.Usage.CostUSD != nil:
		total := roundUSD(*r.Usage.CostUSD + cost)
		r.Usage.CostUSD = &total
	case !had:
		r.Usage.CostUSD = &cost
	}
}
