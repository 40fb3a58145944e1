package permission

// Permission rules (SPEC 5.2), in Claude Code's syntax and with the meaning
// its permissions documentation gives them:
//
//	Tool              every call of Tool; Bash(*) is the same as Bash
//	Tool(pattern)     calls whose main argument matches pattern
//	mcp__server       every tool of an MCP server (mcp__server__*)
//	*, mcp__*         tool-name globs: deny and ask rules only (an allow rule
//	                  may glob only after a literal mcp__<server>__)
//
// The main argument is command for Bash, filePath for Read/Write/Edit and
// pattern for Glob/Grep. Bash patterns: "*" matches any run of characters,
// spaces included, anywhere in the pattern; a trailing " *" (or its legacy
// spelling ":*") needs a word boundary and also matches the bare command,
// so Bash(ls *) covers "ls" and "ls -la" but not "lsof", and Bash(npm run
// test:*) does not cover "npm run testing". Path patterns are gitignore
// patterns (path_rule.go). Other tools' patterns: "*" any run, "**" any
// non-empty run, anchored. As in Claude Code, Edit rules also govern Write,
// a Read deny rule also guards Edit and Write, and Read deny rules keep
// their files out of Grep, Glob and the file commands of Bash (bash_files.go).

import (
	"fmt"
	"regexp"
	"strings"

	"trail/core/errs"
	"trail/lazy"
	"trail/store"
)

type ruleKind int

const (
	kindTool ruleKind = iota // no pattern: every call of the tool
	kindBash                 // a Bash command pattern
	kindPath                 // a Read/Write/Edit path (gitignore)
	kindGlob                 // another tool's main argument
)

// Rule is one parsed permission rule.
type Rule struct {
	Text    string // as written, for messages and the log
	Tool    string
	Pattern string // the pattern; "" when the rule names the tool only
	Prefix  bool   // the legacy "prefix:*" form

	kind   ruleKind
	toolRE *regexp.Regexp // a tool-name glob (mcp__*, *)
	re     *regexp.Regexp // Bash and glob patterns
	path   *pathPattern
	words  int // Bash: the words of the pattern before its first wildcard
}

// Compiled on first use: a run without rules never needs it.
var toolNameRE = lazy.Regexp{Expr: `^[A-Za-z_*][A-Za-z0-9_.*-]*$`}

// ParseRule reads one rule, with path patterns anchored as an allow rule
// from the command line would be. Errors say what is wrong with it.
func ParseRule(s string) (Rule, error) { return parseRule(s, false, "") }

// parseRule reads one rule; deny is true for deny and ask rules, and
// sourceRoot anchors its "/path" patterns.
func parseRule(s string, deny bool, sourceRoot string) (Rule, error) {
	text := strings.TrimSpace(s)
	r := Rule{Text: text}
	open := strings.IndexByte(text, '(')
	if open < 0 {
		if strings.ContainsRune(text, ')') {
			return r, fmt.Errorf("unbalanced parenthesis")
		}
		if !toolNameRE.Get().MatchString(text) {
			return r, fmt.Errorf("a rule is Tool or Tool(pattern), like Bash(git diff *)")
		}
		r.Tool = text
		return r, r.compileTool()
	}
	r.Tool = strings.TrimSpace(text[:open])
	if !toolNameRE.Get().MatchString(r.Tool) {
		return r, fmt.Errorf("%s is not a tool name", store.QuoteInput(r.Tool))
	}
	if err := r.compileTool(); err != nil {
		return r, err
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
	} else {
		r.Pattern = pat
	}
	var err error
	switch {
	case r.Tool == "Bash":
		r.kind = kindBash
		if pat == "*" {
			r.kind, r.Pattern = kindTool, ""
			return r, nil
		}
		glob := r.Pattern
		if r.Prefix {
			glob += " *"
		}
		r.words = len(strings.Fields(strings.SplitN(glob, "*", 2)[0]))
		r.re, err = regexp.Compile(bashRegexp(glob))
	case pathTool(r.Tool):
		r.kind = kindPath
		r.path, err = compilePath(r.Pattern, deny, sourceRoot)
	default:
		r.kind = kindGlob
		pattern := r.Pattern
		if r.Prefix {
			pattern += "*"
		}
		r.re, err = regexp.Compile(globRegexp(pattern))
	}
	if err != nil {
		return r, fmt.Errorf("pattern %s: %w", store.QuoteInput(pat), err)
	}
	return r, nil
}

// pathTool: the tools whose rules are path patterns.
func pathTool(tool string) bool {
	return tool == "Read" || tool == "Write" || tool == "Edit"
}

// compileTool compiles a tool-name glob.
func (r *Rule) compileTool() error {
	if !strings.Contains(r.Tool, "*") {
		return nil
	}
	var b strings.Builder
	b.WriteString("^")
	for i, part := range strings.Split(r.Tool, "*") {
		if i > 0 {
			b.WriteString(".*")
		}
		b.WriteString(regexp.QuoteMeta(part))
	}
	b.WriteString("$")
	re, err := regexp.Compile(b.String())
	r.toolRE = re
	return err
}

// bashRegexp: "*" matches any run of characters (newlines too: a command
// may span lines); a trailing " *" also matches nothing at all, so a rule
// written for a command with arguments covers it without them.
func bashRegexp(glob string) string {
	var b strings.Builder
	b.WriteString(`(?s)^`)
	glob, optionalArgs := strings.CutSuffix(glob, " *")
	for _, part := range strings.SplitAfter(glob, "*") {
		lit, star := strings.CutSuffix(part, "*")
		b.WriteString(regexp.QuoteMeta(lit))
		if star {
			b.WriteString(`.*`)
		}
	}
	if optionalArgs {
		b.WriteString(`(?: .*)?`)
	}
	b.WriteString(`$`)
	return b.String()
}

// globRegexp turns another tool's rule glob into an anchored expression:
// "*" any run (empty too), "**" any non-empty run.
func globRegexp(glob string) string {
	var b strings.Builder
	b.WriteString(`(?s)^`)
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
	b.WriteString(`$`)
	return b.String()
}

// matchValue tests a Bash or glob pattern against one argument value.
func (r Rule) matchValue(v string) bool {
	switch {
	case r.kind == kindTool || r.Pattern == "":
		return true
	case r.re != nil:
		return r.re.MatchString(v)
	}
	return false
}

// covers reports whether the rule governs calls of tool: its own tool (a
// glob on the name, a whole MCP server) and, as in Claude Code, for Edit
// rules every built-in tool that edits files.
func (r Rule) covers(tool string) bool {
	switch {
	case r.toolRE != nil:
		return r.toolRE.MatchString(tool)
	case r.Tool == tool:
		return true
	case r.Tool == "Edit" && tool == "Write":
		return true
	case isMCPServer(r.Tool):
		return strings.HasPrefix(tool, r.Tool+"__")
	}
	return false
}

// coversForDeny adds what a deny or ask rule guards beyond covers: a Read
// deny rule keeps its files from Edit and Write too (Claude Code).
func (r Rule) coversForDeny(tool string) bool {
	return r.covers(tool) || (r.Tool == "Read" && r.kind == kindPath && (tool == "Edit" || tool == "Write"))
}

// isMCPServer: mcp__server, naming no tool of it.
func isMCPServer(name string) bool {
	rest, ok := strings.CutPrefix(name, "mcp__")
	return ok && rest != "" && !strings.Contains(rest, "__")
}

// allowGlobOK reports whether an allow rule's tool-name glob is one Claude
// Code honours: globbing only after a literal mcp__<server>__.
// AllowGlobOK reports whether r may be an allow rule: a * in the tool
// name only after mcp__<server>__. Otherwise a step skips it with a
// warning, and config --check reports it.
func (r Rule) AllowGlobOK() bool { return r.allowGlobOK() }

func (r Rule) allowGlobOK() bool {
	if r.toolRE == nil {
		return true
	}
	rest, ok := strings.CutPrefix(r.Tool, "mcp__")
	if !ok {
		return false
	}
	server, _, found := strings.Cut(rest, "__")
	return found && server != "" && !strings.Contains(server, "*")
}

// exact reports whether the rule names one command only (no wildcard).
func (r Rule) exact() bool {
	return r.kind == kindBash && !r.Prefix && !strings.Contains(r.Pattern, "*")
}

// ruleError is an invalid rule, named with where it came from (exit 2).
func ruleError(rule, source string, err error) error {
	return &errs.UsageError{
		Msg: fmt.Sprintf("invalid permission rule %s in %s", store.QuoteInput(rule), source),
		Err: err,
		Fix: "rules look like Bash, Bash(git diff *), Bash(npm run test:*) or Read(src/**)",
	}
}
