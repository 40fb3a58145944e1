package hooks

// Matchers, as Claude Code's hooks reference evaluates them:
//
//	"", "*"                       every occurrence
//	only letters, digits, _, -,   one exact name, or a list of exact names
//	spaces, "," and "|"           split at "|" or ",", spaces around them
//	                              ignored: "Edit|Write" and "Edit, Write"
//	anything else                 an unanchored regular expression:
//	                              "Edit.*" matches NotebookEdit, "^Bash$" Bash
//
// StopFailure matchers keep the narrower exact set of Claude Code (letters,
// digits, _ and | only). A regular expression that does not compile (Go's
// RE2 lacks JavaScript's lookarounds) is compared as exact text.

import (
	"regexp"
	"strings"

	"trail/lazy"
)

// Compiled on first use: most runs have no hooks.
var (
	exactList       = lazy.Regexp{Expr: `^[A-Za-z0-9_, |-]+$`}
	exactListNarrow = lazy.Regexp{Expr: `^[A-Za-z0-9_|]+$`}
)

// matcherAccepts reports whether a group's matcher accepts target.
func matcherAccepts(event, matcher, target string) bool {
	if matcher == "" || matcher == "*" {
		return true
	}
	exact := &exactList
	if event == StopFailure {
		exact = &exactListNarrow
	}
	if exact.Get().MatchString(matcher) {
		for _, name := range strings.FieldsFunc(matcher, func(r rune) bool { return r == '|' || r == ',' }) {
			if strings.TrimSpace(name) == target {
				return true
			}
		}
		return false
	}
	re, err := regexp.Compile(matcher)
	if err != nil {
		return matcher == target
	}
	return re.MatchString(target)
}
