package settings

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"trail/core/errs"
)

// Claude Code reads some of what trail keeps as settings keys from
// variables (its env-vars page): DISABLE_PROMPT_CACHING,
// CLAUDE_CODE_MAX_OUTPUT_TOKENS, MAX_THINKING_TOKENS and API_TIMEOUT_MS. A
// user's environment or settings' env block that sets them means the same
// to trail, where no settings file names trail's own key (promptCaching,
// maxTokens, thinking, timeout); flags come after and win as ever.
// API_TIMEOUT_MS bounds the wait for a response's headers in Claude Code
// (its SDK's timeout), trail's timeout any silence of the server: the
// gateways' guides that set it (600000, 3000000) ask for patience with a
// slow model, and get it. Its Bash tool's
// limits, BASH_DEFAULT_TIMEOUT_MS and BASH_MAX_TIMEOUT_MS, have no key of
// trail's: the variables are the setting, as there.

// ClaudeCodeVars are the variables ApplyClaudeCodeVars reads that stand
// for a key of trail's, with the key.
var ClaudeCodeVars = [...][2]string{
	{"DISABLE_PROMPT_CACHING", "promptCaching"},
	{"CLAUDE_CODE_MAX_OUTPUT_TOKENS", "maxTokens"},
	{"MAX_THINKING_TOKENS", "thinking"},
	{"API_TIMEOUT_MS", "timeout"},
}

// claudeVar is one variable: apply sets what it means in s, unless a
// settings file already did, and fails on a value that is no value of it.
type claudeVar struct {
	name  string
	apply func(s *Settings, v string) error
}

// claudeVars, in the order they are applied: a value that is no number is
// a usage error naming the variable, where Claude Code ignores it; taken
// as unset it would be a cap, a budget or a time limit silently not
// applied (a user who set a limit for a long build would meet the 2
// minutes unwarned).
var claudeVars = [...]claudeVar{
	{"DISABLE_PROMPT_CACHING", func(s *Settings, v string) error {
		switch strings.ToLower(v) { // it can only turn caching off
		case "1", "true", "yes", "on":
			s.PromptCachingOff = true
		}
		return nil
	}},
	// A bad value is refused even where a settings file's key (or a
	// flag) would win: whatever wins today, the variable says something
	// else than its user meant.
	{"CLAUDE_CODE_MAX_OUTPUT_TOKENS", func(s *Settings, v string) error {
		n, err := strconv.Atoi(v)
		switch {
		case err != nil || n < 1:
			return errs.Usagef("a number of tokens, 1 or more (or unset it)", "CLAUDE_CODE_MAX_OUTPUT_TOKENS %s is no number of tokens", strconv.Quote(v))
		case s.MaxTokens == 0: // else a settings file's maxTokens stands
			s.MaxTokens = n
		}
		return nil
	}},
	{"MAX_THINKING_TOKENS", func(s *Settings, v string) error {
		n, err := strconv.Atoi(v)
		switch {
		case err != nil || n < 0:
			return errs.Usagef("a budget in tokens, or 0 for no thinking (or unset it)", "MAX_THINKING_TOKENS %s is no number of tokens", strconv.Quote(v))
		case s.Thinking != "": // a settings file's thinking stands
		case n == 0:
			s.Thinking = "off"
		default:
			s.Thinking = fmt.Sprint(n)
		}
		return nil
	}},
	{"API_TIMEOUT_MS", func(s *Settings, v string) error {
		d, err := milliseconds("API_TIMEOUT_MS", v)
		if err == nil && s.Timeout == 0 { // else a settings file's timeout stands
			s.Timeout = d
		}
		return err
	}},
	{"BASH_DEFAULT_TIMEOUT_MS", func(s *Settings, v string) (err error) {
		s.BashTimeout, err = milliseconds("BASH_DEFAULT_TIMEOUT_MS", v)
		return err
	}},
	{"BASH_MAX_TIMEOUT_MS", func(s *Settings, v string) (err error) {
		s.BashMaxTimeout, err = milliseconds("BASH_MAX_TIMEOUT_MS", v)
		return err
	}},
}

func milliseconds(name, v string) (time.Duration, error) {
	n, err := strconv.ParseInt(v, 10, 64)
	if err != nil || n < 1 || n > math.MaxInt32 {
		return 0, errs.Usagef(fmt.Sprintf("a time in milliseconds, from 1 to %d (or unset it)", math.MaxInt32), "%s %s is no time in milliseconds", name, strconv.Quote(v))
	}
	return time.Duration(n) * time.Millisecond, nil
}

// ApplyClaudeCodeVars applies them from env, else from the settings' env
// block.
func (s *Settings) ApplyClaudeCodeVars(env func(string) string) error {
	for _, cv := range claudeVars {
		v, from := strings.TrimSpace(env(cv.name)), ""
		if v == "" {
			v, from = strings.TrimSpace(s.Env[cv.name]), s.EnvFrom[cv.name]
		}
		if v == "" {
			continue
		}
		if err := cv.apply(s, v); err != nil {
			var ue *errs.UsageError
			if from != "" && errors.As(err, &ue) {
				// not the shell's: say where it is written
				ue.Msg += " (in the \"env\" of " + from + ")"
				ue.Fix = strings.Replace(ue.Fix, "(or unset it)", "(or remove it from that file)", 1)
			}
			return err
		}
	}
	return nil
}

// ClaudeCodeVarNames are the names of every variable ApplyClaudeCodeVars
// reads.
func ClaudeCodeVarNames() []string {
	out := make([]string, len(claudeVars))
	for i, cv := range claudeVars {
		out[i] = cv.name
	}
	return out
}

// CheckClaudeCodeVar is the error a step stops on for the variable name
// set to v where no settings file sets its key (config --check), nil for
// a good value or a variable that is none of Claude Code's read here.
func CheckClaudeCodeVar(name, v string) error {
	v = strings.TrimSpace(v)
	for _, cv := range claudeVars {
		if cv.name == name && v != "" {
			return cv.apply(&Settings{}, v)
		}
	}
	return nil
}
