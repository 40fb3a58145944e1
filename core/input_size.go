package core

import (
	"strconv"

	"trail/core/chat"
	"trail/core/errs"
	"trail/core/provider"
)

// Input sized to the model: a prompt the model's context window cannot hold
// can only fail at the provider, after a record and a log of its size were
// written (200 MB of standard input once took a minute, 2.5 GB of memory
// and an 800 MB record). It is refused first, with exit 2: commands stops
// reading standard input past what the window could hold (InputWindow),
// and the step checks the prompt against the session's model before it
// writes anything (checkPromptSize).

// InputWindow is the context window a step's input must fit, as far as it
// is known before the session is loaded: --context-window, else the model
// that flags, environment or settings name (run) or that -m names (resume).
// A resume that names no model uses its stored one, known only once the
// record is loaded under the lock: it gets the largest known window, and
// exact false; the step judges the prompt again then.
func InputWindow(o *StepOptions, env func(string) string) (window int64, exact bool) {
	if o.ContextWindow > 0 {
		return o.ContextWindow, true
	}
	if o.Resume {
		if o.Provider.Model != "" {
			return chat.ContextWindowFor(o.Provider.Model), true
		}
		return chat.MaxContextWindow(), false
	}
	cfg, err := provider.Resolve(o.Provider, env, o.Settings, nil, o.Cwd)
	if err != nil {
		// The step reports the provider error; the input gets the widest bound.
		return chat.MaxContextWindow(), false
	}
	return chat.ContextWindowFor(cfg.Model), true
}

// PromptTokens is the estimator's count for a prompt sent as a user message.
func PromptTokens(prompt string) int64 {
	m := chat.Message{Role: chat.RoleUser, Content: prompt, State: chat.StateComplete}
	return chat.EstimateTokens([]chat.Message{m})
}

// PromptTooLarge is the usage error for a prompt of tokens over the window.
func PromptTooLarge(tokens, window int64, exact bool) error {
	return tooLarge("~"+Thousands(tokens)+" tokens", window, exact)
}

// StdinTooLarge is the usage error for standard input that went on past
// limit bytes: it was not read to its end, so its size is a lower bound.
func StdinTooLarge(limit, window int64, exact bool) error {
	return tooLarge("standard input is more than "+Thousands(limit)+" bytes (over ~"+Thousands(limit/chat.BytesPerToken)+" tokens)", window, exact)
}

func tooLarge(size string, window int64, exact bool) error {
	win := "the model's context window is " + Thousands(window)
	if !exact {
		win = "the largest context window of a known model is " + Thousands(window)
	}
	return &errs.UsageError{
		Msg: "prompt too large: " + size + ", " + win,
		Fix: "split the input into smaller prompts, or pass --context-window TOKENS if the model takes more",
	}
}

// checkPromptSize refuses a prompt the session's model cannot take. It runs
// once the provider is resolved and before anything is written.
func (s *session) checkPromptSize() error {
	p := s.opts.Prompt
	w := s.contextWindow()
	// JSON spells a byte in at most 6 (\u001f), so a prompt this short fits
	// without being encoded to count.
	if int64(len(p))*6+1024 < w*chat.BytesPerToken {
		return nil
	}
	if t := PromptTokens(p); t > w {
		return PromptTooLarge(t, w, true)
	}
	return nil
}

// Thousands writes n with comma separators: 1,048,576.
func Thousands(n int64) string {
	s := strconv.FormatInt(n, 10)
	neg := s[0] == '-'
	if neg {
		s = s[1:]
	}
	out := make([]byte, 0, len(s)+len(s)/3+1)
	if neg {
		out = append(out, '-')
	}
	for i := range len(s) {
		if i > 0 && (len(s)-i)%3 == 0 {
			out = append(out, ',')
		}
		out = append(out, s[i])
	}
	return string(out)
}
