package permission

// The permission decision for one tool call (SPEC 5.2, Robota's order):
//
//  1. a matching deny rule denies, whatever the mode;
//  2. a matching ask rule (Claude Code's permissions.ask) asks, whatever
//     the mode and the allow rules (plan denies);
//  3. a matching allow rule allows;
//  4. the mode table decides: allow, ask or deny.
//
// A Bash command is split on its unquoted control operators (; & && | ||
// newline): a deny or ask rule matching any part covers the whole, and an allow
// rule with a pattern allows only when every part is allowed, so
// Bash(echo *) does not let "echo hi; rm -rf ." through. A command with
// $(...), `...` or process substitution cannot be seen into: only a bare
// Bash rule allows it.

import (
	"encoding/json"
	"fmt"
	"strings"
	"unicode"

	"trail/core/chat"
	"trail/core/settings"
)

// Permission modes.
const (
	ModeDefault     = "default"
	ModePlan        = "plan"
	ModeAcceptEdits = "acceptEdits"
	ModeBypass      = "bypassPermissions"
)

// Decisions.
const (
	DecisionAllow = "allow"
	DecisionDeny  = "deny"
	DecisionAsk   = "ask"
)

// Decision sources, as logged in permission_decision.
const (
	SourceRule       = "rule"
	SourceMode       = "mode"
	SourceSession    = "session"
	SourcePrompt     = "prompt"
	SourceHook       = "hook"
	SourceNoTerminal = "no_terminal"
	SourceFlag       = "flag"
)

// ValidMode reports whether m is a permission mode.
func ValidMode(m string) bool {
	switch m {
	case ModeDefault, ModePlan, ModeAcceptEdits, ModeBypass:
		return true
	}
	return false
}

// Policy is the rules and the mode of one step.
type Policy struct {
	Mode  string
	Allow []Rule
	Ask   []Rule
	Deny  []Rule
	Cwd   string // path arguments are also matched relative to it
}

// Verdict is the outcome of the rule and mode check.
type Verdict struct {
	Decision string
	Source   string // SourceRule or SourceMode
	Rule     string // the rule that decided, when Source is SourceRule
}

// Check decides a call from the rules and the mode.
func (p *Policy) Check(tool string, args json.RawMessage) Verdict {
	values, known := p.argumentValues(tool, args)
	for _, r := range p.Deny {
		if r.covers(tool) && matchesAnyPart(r, tool, values, known) {
			return Verdict{Decision: DecisionDeny, Source: SourceRule, Rule: r.Text}
		}
	}
	// A deny rule scoped to an argument this tool does not have cannot be
	// evaluated; "cannot tell" must not turn into an allow (Robota's CORE-030).
	if !known {
		for _, r := range p.Deny {
			if r.covers(tool) && r.Pattern != "" {
				return Verdict{Decision: p.askUnlessPlan(), Source: SourceRule, Rule: r.Text}
			}
		}
	}
	for _, r := range p.Ask {
		if r.covers(tool) && (matchesAnyPart(r, tool, values, known) || (!known && r.Pattern != "")) {
			return Verdict{Decision: p.askUnlessPlan(), Source: SourceRule, Rule: r.Text}
		}
	}
	if r, ok := p.allowedBy(tool, values, known); ok {
		return Verdict{Decision: DecisionAllow, Source: SourceRule, Rule: r}
	}
	return Verdict{Decision: ModeDecision(p.Mode, tool), Source: SourceMode}
}

func (p *Policy) askUnlessPlan() string {
	if p.Mode == ModePlan {
		return DecisionDeny
	}
	return DecisionAsk
}

// ModeDecision is the mode table of SPEC 5.2.
func ModeDecision(mode, tool string) string {
	switch mode {
	case ModeBypass:
		return DecisionAllow
	}
	switch tool {
	case "Read", "Glob", "Grep":
		return DecisionAllow
	case "Write", "Edit":
		switch mode {
		case ModePlan:
			return DecisionDeny
		case ModeAcceptEdits:
			return DecisionAllow
		}
		return DecisionAsk
	}
	if mode == ModePlan {
		return DecisionDeny
	}
	return DecisionAsk
}

// matchesAnyPart reports whether a deny or ask rule covers the call: its
// argument, or for Bash any part of the command.
func matchesAnyPart(r Rule, tool string, values []string, known bool) bool {
	if r.Pattern == "" {
		return true
	}
	if !known {
		return false
	}
	for _, v := range values {
		if r.matchValue(v) {
			return true
		}
		if tool == "Bash" {
			parts, _ := splitCommand(v)
			for _, part := range parts {
				if r.matchValue(part) {
					return true
				}
			}
		}
	}
	return false
}

// allowedBy returns the allow rule that covers the call.
func (p *Policy) allowedBy(tool string, values []string, known bool) (string, bool) {
	var scoped []Rule
	for _, r := range p.Allow {
		if !r.covers(tool) {
			continue
		}
		if r.Pattern == "" {
			return r.Text, true
		}
		scoped = append(scoped, r)
	}
	if len(scoped) == 0 || !known || len(values) == 0 {
		return "", false
	}
	if tool != "Bash" {
		for _, r := range scoped {
			for _, v := range values {
				if r.matchValue(v) {
					return r.Text, true
				}
			}
		}
		return "", false
	}
	cmd := values[0]
	for _, r := range scoped {
		if r.exact() && r.matchValue(cmd) {
			return r.Text, true
		}
	}
	parts, opaque := splitCommand(cmd)
	if opaque || len(parts) == 0 {
		return "", false
	}
	var used []string
	for _, part := range parts {
		found := ""
		for _, r := range scoped {
			if r.matchValue(part) {
				found = r.Text
				break
			}
		}
		if found == "" {
			return "", false
		}
		used = appendUnique(used, found)
	}
	return strings.Join(used, ", "), true
}

func appendUnique(list []string, s string) []string {
	for _, x := range list {
		if x == s {
			return list
		}
	}
	return append(list, s)
}

// splitCommand cuts a shell command at its unquoted control operators.
// opaque is true when the command holds a substitution whose inside a rule
// cannot see ($(...), backquotes, <(...), >(...)).
func splitCommand(cmd string) (parts []string, opaque bool) {
	var cur strings.Builder
	flush := func() {
		if s := strings.TrimSpace(cur.String()); s != "" {
			parts = append(parts, s)
		}
		cur.Reset()
	}
	inSingle, inDouble := false, false
	for i := 0; i < len(cmd); i++ {
		c := cmd[i]
		switch {
		case inSingle:
			if c == '\'' {
				inSingle = false
			}
		case c == '\\' && i+1 < len(cmd):
			cur.WriteByte(c)
			i++
			c = cmd[i]
		case inDouble:
			if c == '"' {
				inDouble = false
			} else if c == '`' || (c == '$' && i+1 < len(cmd) && cmd[i+1] == '(') {
				opaque = true
			}
		case c == '\'':
			inSingle = true
		case c == '"':
			inDouble = true
		case c == '`', c == '$' && i+1 < len(cmd) && cmd[i+1] == '(':
			opaque = true
		case (c == '<' || c == '>') && i+1 < len(cmd) && cmd[i+1] == '(':
			opaque = true
		case c == ';' || c == '\n' || c == '|':
			flush()
			continue
		case c == '&':
			redirect := (i > 0 && (cmd[i-1] == '>' || cmd[i-1] == '<')) || (i+1 < len(cmd) && cmd[i+1] == '>')
			if !redirect {
				flush()
				continue
			}
		}
		cur.WriteByte(c)
	}
	flush()
	return parts, opaque
}

// Build parses the rules of the settings files and the flags.
// An invalid rule is a usage error naming it and where it came from.
func Build(mode string, settings *settings.Settings, allowFlags, denyFlags []string, cwd string) (*Policy, error) {
	p := &Policy{Mode: mode, Cwd: cwd}
	add := func(list *[]Rule, rules []string, source func(string) string) error {
		for _, text := range rules {
			r, err := ParseRule(text)
			if err != nil {
				return ruleError(text, source(text), err)
			}
			*list = append(*list, r)
		}
		return nil
	}
	fromFile := func(text string) string {
		if f := settings.Permissions.Sources[text]; f != "" {
			return f
		}
		return "settings"
	}
	if err := add(&p.Deny, settings.Permissions.Deny, fromFile); err != nil {
		return nil, err
	}
	if err := add(&p.Ask, settings.Permissions.Ask, fromFile); err != nil {
		return nil, err
	}
	if err := add(&p.Allow, settings.Permissions.Allow, fromFile); err != nil {
		return nil, err
	}
	if err := add(&p.Deny, denyFlags, func(string) string { return "--deny-tool" }); err != nil {
		return nil, err
	}
	if err := add(&p.Allow, allowFlags, func(string) string { return "--allow-tool" }); err != nil {
		return nil, err
	}
	return p, nil
}

// DescribeCall is a call as people read it: Bash(go test ./...), Write(a.go),
// or the tool and its compact arguments (as ToolCall.Args gives them).
func DescribeCall(name string, args json.RawMessage) string {
	if key := argumentKey(name); key != "" {
		if v, ok := argString(args, key); ok {
			return fmt.Sprintf("%s(%s)", name, shownValue(v))
		}
	}
	compact := strings.TrimSpace(string(args))
	if compact == "" || compact == "{}" {
		return name
	}
	return fmt.Sprintf("%s(%s)", name, chat.FirstLine(compact, 120))
}

// shownValue is an argument as the terminal shows it in a question or a
// tool line: its first line, marked when more follows (the question must not
// pass "echo hi\nrm -rf ~" off as "echo hi"), and no control characters
// (a model's escape sequence must not redraw the question).
func shownValue(v string) string {
	short := chat.FirstLine(v, 120)
	if len(short) < len(v) && !strings.HasSuffix(short, "…") {
		short += " …"
	}
	return strings.Map(func(r rune) rune {
		if unicode.IsControl(r) {
			return '?'
		}
		return r
	}, short)
}
