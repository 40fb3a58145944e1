package commands

// Claude Code's flags, for the habits of its users (its CLI reference):
//
//	trail -c "next" / --continue      resume the latest session of this folder
//	trail -r ID "next" / --resume ID  resume that session
//	--allowedTools, --allowed-tools   allow rules      (run, resume)
//	--disallowedTools, --disallowed-tools  deny rules  (run, resume)
//	--dangerously-skip-permissions    --permission-mode bypassPermissions
//	--system-prompt, --system-prompt-file, --append-system-prompt (run)
//	--output-format                   already trail's own (-o)
//
// A rule list is one value or several: "Bash,Read,Edit", "Bash(git log *)
// Read", or, as Claude Code's documentation writes it, several words after
// one flag (--allowedTools "Bash(git log *)" "Bash(git diff *)" Read): the
// words that follow and look like rules (a capitalised tool name or
// mcp__..., with an optional pattern) belong to the flag, up to the first
// that does not. Commas and spaces split a value, except inside a rule's
// parentheses.

import (
	"errors"
	"strings"

	"github.com/urfave/cli/v2"

	"trail/lazy"
)

// isListFlag reports whether name, as typed after "--", is a rule-list flag.
func isListFlag(name string) bool {
	switch name {
	case "allowedTools", "allowed-tools", "disallowedTools", "disallowed-tools":
		return true
	}
	return false
}

// ruleWord is a word that reads as one or more permission rules.
var ruleWord = lazy.Regexp{Expr: `^\s*(mcp__[\w.*-]*|[A-Z][\w.*-]*)(\(.*\))?(\s*[, ]\s*(mcp__[\w.*-]*|[A-Z][\w.*-]*)(\(.*\))?)*\s*$`}

// claudeArgs rewrites Claude Code's top-level habits into trail's commands
// before the usual parsing: -c/--continue becomes resume --last, -r/--resume
// ID becomes resume ID, and the extra words of a rule-list flag each get
// the flag in front of them.
func claudeArgs(app *cli.App, args []string) []string {
	if len(args) < 2 {
		return args
	}
	globals := flagTable(app.Flags)
	out := []string{args[0]}
	i := 1
	for i < len(args) && isOption(args[i]) && args[i] != "--" {
		switch name, value, hasValue := strings.Cut(strings.TrimLeft(args[i], "-"), "="); {
		case name == "c" || name == "continue":
			out = append(out, "resume", "--last")
			i++
			return append(out, expandRuleLists(args[i:])...)
		case name == "r" || name == "resume":
			out = append(out, "resume")
			i++
			if hasValue {
				out = append(out, value)
			}
			return append(out, expandRuleLists(args[i:])...)
		}
		out = append(out, args[i])
		if globals.takesValue(args[i]) && i+1 < len(args) {
			out = append(out, args[i+1])
			i++
		}
		i++
	}
	return append(out, expandRuleLists(args[i:])...)
}

// expandRuleLists gives each extra word of a rule-list flag its own flag:
// --allowedTools A B -> --allowedTools A --allowedTools B.
func expandRuleLists(args []string) []string {
	out := make([]string, 0, len(args))
	for i := 0; i < len(args); i++ {
		a := args[i]
		out = append(out, a)
		if a == "--" {
			return append(out, args[i+1:]...)
		}
		name := strings.TrimLeft(a, "-")
		if !strings.HasPrefix(a, "--") || !isListFlag(name) || i+1 >= len(args) {
			continue
		}
		out = append(out, args[i+1])
		i++
		for i+1 < len(args) && !isOption(args[i+1]) && ruleWord.Get().MatchString(args[i+1]) {
			out = append(out, a, args[i+1])
			i++
		}
	}
	return out
}

// splitRules cuts a rule-list value at its commas and spaces, outside
// parentheses: "Bash(git log *), Read" is two rules.
func splitRules(v string) []string {
	var out []string
	depth, start := 0, 0
	flush := func(end int) {
		if s := strings.TrimSpace(v[start:end]); s != "" {
			out = append(out, s)
		}
	}
	for i := 0; i < len(v); i++ {
		switch c := v[i]; {
		case c == '(':
			depth++
		case c == ')' && depth > 0:
			depth--
		case depth == 0 && (c == ',' || c == ' ' || c == '\t' || c == '\n'):
			flush(i)
			start = i + 1
		}
	}
	flush(len(v))
	return out
}

// listFlag collects a repeatable rule-list flag, each value split into rules.
type listFlag struct{ rules []string }

func (f *listFlag) Set(v string) error {
	if len(splitRules(v)) == 0 {
		// --disallowedTools "$DENY" with DENY unset would run with no
		// deny rule at all
		return errors.New("it is empty (an unset variable?)")
	}
	f.rules = append(f.rules, splitRules(v)...)
	return nil
}

func (f *listFlag) String() string { return strings.Join(f.rules, " ") }

func listValues(c *cli.Context, name string) []string {
	if f, ok := c.Generic(name).(*listFlag); ok && f != nil {
		return append([]string(nil), f.rules...)
	}
	return nil
}

// claudeStepFlags are the Claude Code spellings run and resume accept.
func claudeStepFlags() []cli.Flag {
	return []cli.Flag{
		&cli.GenericFlag{Name: "allowedTools", Aliases: []string{"allowed-tools"}, Value: &listFlag{}, Usage: "Claude Code's spelling: allow rules, comma- or space-separated (like --allow-tool)"},
		&cli.GenericFlag{Name: "disallowedTools", Aliases: []string{"disallowed-tools"}, Value: &listFlag{}, Usage: "Claude Code's spelling: deny rules, comma- or space-separated (like --deny-tool)"},
		&cli.BoolFlag{Name: "dangerously-skip-permissions", Usage: "Claude Code's spelling of --permission-mode bypassPermissions"},
	}
}
