package permission

// Permission rules (SPEC 5.2), Claude Code's syntax:
//
//	Tool            every call of Tool
//	Tool(glob)      calls whose main argument matches glob, anchored:
//	                "*" any run of characters (empty too), "**" any non-empty run;
//	                a trailing " *" also matches nothing at all, as in Claude
//	                Code, so Bash(git push *) covers a bare "git push" too
//	Tool(prefix:*)  calls whose main argument starts with prefix (Claude's legacy form)
//
// The main argument is command for Bash, filePath for Read/Write/Edit and
// pattern for Glob/Grep. Nothing else in a glob is special. As in Claude
// Code, Edit rules also govern Write, and Read deny rules keep their files
// out of Grep and Glob.

import (
	"fmt"
	"regexp"
	"strings"

	"trail/core/errs"
	"trail/store"
)

// Rule is one parsed permission rule.
type Rule struct {
	Text    string // as written, for messages and the log
	Tool    string
	Pattern string // the glob or prefix; "" when the rule names the tool only
	Prefix  bool   // the "prefix:*" form
	re      *regexp.Regexp
}

var toolNameRE = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_.-]*$`)

// ParseRule reads one rule. Errors say what is wrong with it.
func ParseRule(s string) (Rule, error) {
	text := strings.TrimSpace(s)
	r := Rule{Text: text}
	open := strings.IndexByte(text, '(')
	if open < 0 {
		if strings.ContainsRune(text, ')') {
			return r, fmt.Errorf("unbalanced parenthesis")
		}
		if !toolNameRE.MatchString(text) {
			return r, fmt.Errorf("a rule is Tool or Tool(pattern), like Bash(git diff *)")
		}
		r.Tool = text
		return r, nil
	}
	r.Tool = strings.TrimSpace(text[:open])
	if !toolNameRE.MatchString(r.Tool) {
		return r, fmt.Errorf("%s is not a tool name", store.QuoteInput(r.Tool))
	}
	if !strings.HasSuffix(text, ")") {
		return r, fmt.Errorf("the pattern must end with )")
	}
	pat := text[open+1 : len(text)-1]
	if strings.TrimSpace(pat) == "" {
		return r, fmt.Errorf("empty pattern: write %s to match every call", r.Tool)
	}
	if p, ok := strings.CutSuffix(pat, ":*"); ok && p != "" {
		r.Pattern, r.Prefix = p, true
		return r, nil
	}
	r.Pattern = pat
	re, err := regexp.Compile(globRegexp(pat))
	if err != nil {
		return r, fmt.Errorf("pattern %s: %w", store.QuoteInput(pat), err)
	}
	r.re = re
	return r, nil
}

// globRegexp turns a rule glob into an anchored regular expression that
// also matches across newlines (a command may span lines).
func globRegexp(glob string) string {
	var b strings.Builder
	b.WriteString(`(?s)^`)
	// "git push *" must also match "git push": a deny rule written for the
	// command with arguments would otherwise let it run without them.
	glob, optionalArgs := strings.CutSuffix(glob, " *")
	for i := 0; i < len(glob); {
		switch {
		case strings.HasPrefix(glob[i:], "**"):
			b.WriteString(`.+`)
			i += 2
		case glob[i] == '*':
			b.WriteString(`.*`)
			i++
		default:
			j := i
			for j < len(glob) && glob[j] != '*' {
				j++
			}
			b.WriteString(regexp.QuoteMeta(glob[i:j]))
			i = j
		}
	}
	if optionalArgs {
		b.WriteString(`( .*)?`)
	}
	b.WriteString(`$`)
	return b.String()
}

// matchValue tests the rule's pattern against one argument value.
func (r Rule) matchValue(v string) bool {
	switch {
	case r.Pattern == "":
		return true
	case r.Prefix:
		return strings.HasPrefix(v, r.Pattern)
	default:
		return r.re.MatchString(v)
	}
}

// covers reports whether the rule governs calls of tool: its own tool and,
// as in Claude Code, for Edit rules every built-in tool that edits files.
func (r Rule) covers(tool string) bool {
	return r.Tool == tool || (r.Tool == "Edit" && tool == "Write")
}

// exact reports whether the rule names one value only (no wildcard).
func (r Rule) exact() bool {
	return r.Pattern != "" && !r.Prefix && !strings.Contains(r.Pattern, "*")
}

// ruleError is an invalid rule, named with where it came from (exit 2).
func ruleError(rule, source string, err error) error {
	return &errs.UsageError{
		Msg: fmt.Sprintf("invalid permission rule %s in %s", store.QuoteInput(rule), source),
		Err: err,
		Fix: "rules look like Bash, Bash(git diff *), Bash(npm run test:*) or Read(src/**)",
	}
}
