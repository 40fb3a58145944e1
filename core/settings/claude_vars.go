package settings

import (
	"fmt"
	"strconv"
	"strings"

	"trail/core/errs"
)

// Claude Code reads some of what trail keeps as settings keys from
// variables (its env-vars page): DISABLE_PROMPT_CACHING,
// CLAUDE_CODE_MAX_OUTPUT_TOKENS and MAX_THINKING_TOKENS. A user's
// environment or settings' env block that sets them means the same to
// trail, where no settings file names trail's own key (promptCaching,
// maxTokens, thinking); flags come after and win as ever.

// ClaudeCodeVars are the variables ApplyClaudeCodeVars reads, with the key
// each stands for.
var ClaudeCodeVars = [...][2]string{
	{"DISABLE_PROMPT_CACHING", "promptCaching"},
	{"CLAUDE_CODE_MAX_OUTPUT_TOKENS", "maxTokens"},
	{"MAX_THINKING_TOKENS", "thinking"},
}

// ApplyClaudeCodeVars applies them from env, else from the settings' env
// block, where no settings file set the key (DISABLE_PROMPT_CACHING only
// turns caching off). A value that is no number is a usage error naming
// the variable: taken as unset, it would be a cap or a budget silently not
// applied.
func (s *Settings) ApplyClaudeCodeVars(env func(string) string) error {
	get := func(k string) string {
		if v := strings.TrimSpace(env(k)); v != "" {
			return v
		}
		return strings.TrimSpace(s.Env[k])
	}
	if v := get("DISABLE_PROMPT_CACHING"); v != "" { // it can only turn caching off
		switch strings.ToLower(v) {
		case "1", "true", "yes", "on":
			s.PromptCachingOff = true
		}
	}
	if v := get("CLAUDE_CODE_MAX_OUTPUT_TOKENS"); v != "" && s.MaxTokens == 0 {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 {
			return errs.Usagef("a number of tokens, 1 or more (or unset it)", "CLAUDE_CODE_MAX_OUTPUT_TOKENS %s is no number of tokens", strconv.Quote(v))
		}
		s.MaxTokens = n
	}
	if v := get("MAX_THINKING_TOKENS"); v != "" && s.Thinking == "" {
		n, err := strconv.Atoi(v)
		switch {
		case err != nil || n < 0:
			return errs.Usagef("a budget in tokens, or 0 for no thinking (or unset it)", "MAX_THINKING_TOKENS %s is no number of tokens", strconv.Quote(v))
		case n == 0:
			s.Thinking = "off"
		default:
			s.Thinking = fmt.Sprint(n)
		}
	}
	return nil
}
