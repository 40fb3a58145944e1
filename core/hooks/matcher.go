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
	"fmt"
	"regexp"
	"strings"

	"trail/lazy"
)

// Compiled on first use: most runs have no hooks.
var (
	exactList       = lazy.Regexp{Expr: `^[A-Za-z0-9_, |-]+$`}
	exactListNarrow = lazy.Regexp{Expr: `^[A-Za-z0-9_|]+$`}
)

// ruleShaped is a matcher written as permission rules, Tool(pattern)
// joined by "|": a matcher names tools, so it matches none of them.
var ruleShaped = lazy.Regexp{Expr: `^\s*\w+\(.*\)\s*(\|\s*\w+\(.*\)\s*)*$`}

// MatcherProblem says why a matcher of event can never match what it
// seems to mean ("" when it can): a regular expression that does not
// compile (it is then compared as exact text), or permission-rule syntax,
// which belongs in the hook's "if". config --check reports it.
func MatcherProblem(event, matcher string) string {
	if matcher == "" || matcher == "*" {
		return ""
	}
	exact := &exactList
	if event == StopFailure {
		exact = &exactListNarrow
	}
	if exact.Get().MatchString(matcher) {
		return ""
	}
	if msg := expressionProblem(matcher); msg != "" {
		return msg
	}
	if ruleShaped.Get().MatchString(matcher) {
		first, _, _ := strings.Cut(matcher, "|")
		return fmt.Sprintf("matcher %q is permission-rule syntax, but a matcher names tools, so it matches none: match the tool (%q) and put the rule in the hook's \"if\" (\"if\": %q)",
			matcher, strings.TrimSpace(first[:strings.Index(first, "(")]), strings.TrimSpace(first))
	}
	if _, err := regexp.Compile(matcher); err != nil {
		return fmt.Sprintf("matcher %q is not a regular expression trail can read (%v), so it matches only a name written exactly so", matcher, err)
	}
	return ""
}

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
