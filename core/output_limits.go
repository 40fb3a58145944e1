package core

// How long an answer may be and whether the model thinks first, decided
// once the step's model is known (setProvider), before anything is written.
//
//   - max_tokens: --max-tokens, else the settings' maxTokens, else the
//     model table's output limit (provider.MaxOutputFor), else 8192. A cap
//     over a model's limit is a 400 on every request, and one under it cuts
//     long answers short.
//   - thinking (Anthropic only): --thinking with no budget asks for
//     {"type": "adaptive"} on the models that take it (Opus 4.6 and later,
//     Sonnet 4.6, the Claude 5 models), else {"type": "enabled"} with a
//     budget of 10,000 tokens (less when max_tokens is smaller: the budget
//     must stay under it); --thinking N asks for a budget of N, at least
//     1024 and under max_tokens, which the adaptive-only models refuse.
//     "off" (flag or settings) turns it off. The settings' thinking (true,
//     false, a budget) and Claude Code's alwaysThinkingEnabled give the
//     default.

import (
	"cmp"
	"fmt"
	"strconv"

	"trail/core/errs"
	"trail/core/provider"
	"trail/store"
)

// Thinking budgets (Anthropic: "Must be ≥1024 and less than max_tokens").
const (
	defaultThinkingBudget = 10_000
	minThinkingBudget     = 1024
)

// sentCap is the output cap the requests carried: the openai provider
// sends one only when the user chose it, so without one the answer ran
// into the server's own limit, whatever trail's table says.
func (s *session) sentCap() int {
	if s.pcfg.Name == provider.OpenAI && !s.maxTokensSet {
		return 0
	}
	return s.maxTokens
}

// thinkingRoom is the most a default thinking budget takes of a cap: a
// quarter of it (at least 1,024 tokens) stays for the answer, so a model
// that thinks its whole budget still answers. A cap too small for both
// keeps the 1,024-token minimum budget and leaves the answer the rest.
func thinkingRoom(maxTokens int) int {
	room := maxTokens - max(minThinkingBudget, maxTokens/4)
	if room < minThinkingBudget && maxTokens > minThinkingBudget {
		return minThinkingBudget
	}
	return room
}

// resolveOutput sets the step's max tokens and thinking for its model.
func (s *session) resolveOutput() error {
	o := s.opts
	s.maxTokens, s.maxTokensSet = o.MaxTokens, o.MaxTokens > 0
	if !s.maxTokensSet {
		s.maxTokens = provider.MaxOutputFor(s.pcfg.Model)
	}
	s.thinking = nil
	mode := cmp.Or(o.Thinking, o.Settings.Thinking)
	if mode == "" || mode == "off" {
		return nil
	}
	switch s.pcfg.Name {
	case provider.Anthropic:
	case provider.OpenAI:
		if o.Thinking != "" {
			s.warnLater("--thinking turns on Anthropic's extended thinking; the openai provider ignores it")
		}
		return nil
	default:
		return nil
	}
	info, _ := provider.ModelInfo(s.pcfg.Model)
	if mode == "on" {
		if info.Thinking != provider.ThinkBudget {
			s.thinking = &provider.Thinking{Adaptive: true}
			return nil
		}
		budget := min(defaultThinkingBudget, thinkingRoom(s.maxTokens))
		if budget < minThinkingBudget {
			return errs.Usagef("raise --max-tokens above 1024, or leave thinking off",
				"thinking needs room: max_tokens %d leaves less than the 1024-token minimum budget", s.maxTokens)
		}
		s.thinking = &provider.Thinking{Budget: budget}
		return nil
	}
	n, err := strconv.Atoi(mode)
	switch {
	case err != nil:
		return errs.Usagef("give --thinking alone, --thinking=N (tokens, at least 1024) or --thinking=off", "thinking %s is not a budget", store.QuoteInput(mode))
	case info.Thinking == provider.ThinkAdaptiveOnly:
		return errs.Usagef("pass --thinking without a budget: the model decides how much to think",
			"%s takes no thinking budget (it only thinks adaptively)", s.pcfg.Model)
	case n < minThinkingBudget:
		return errs.Usagef("give at least 1024", "thinking budget %d is under the API's minimum of 1024 tokens", n)
	case n >= s.maxTokens:
		return errs.Usagef(fmt.Sprintf("lower the budget, or raise --max-tokens above %d", n),
			"thinking budget %d must be less than max_tokens (%d): the answer's cap includes its thinking", n, s.maxTokens)
	}
	s.thinking = &provider.Thinking{Budget: n}
	return nil
}
