package permission

// The permission decision for one tool call (SPEC 5.2, in Claude Code's
// order: "deny, then ask, then allow; the first match wins"):
//
//  1. a matching deny rule denies, whatever the mode; a Bash command that
//     reads a file a Read deny rule covers (cat .env), or writes one an
//     Edit or Read deny rule covers (echo x > .env), is denied too;
//  2. a matching ask rule (permissions.ask) asks, whatever the mode and
//     the allow rules (plan and dontAsk deny instead);
//  3. a matching allow rule allows;
//  4. a read-only Bash command (bash_readonly.go) is allowed in every mode;
//  5. the mode table decides: allow, ask or deny.
//
// A Bash command is split on its unquoted control operators (; & && | ||
// newline): a deny or ask rule matching any part, or a command inside a
// substitution, covers the whole; an allow rule with a pattern allows only
// when every part is allowed, so Bash(echo *) does not let "echo hi; rm -rf
// ." through. A command with $(...), `...` or process substitution cannot
// be seen into: only a bare Bash (or Bash(*)) rule allows it. Assignments
// and wrappers in front of a command are seen through (bash_words.go).

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"strconv"
	"strings"
	"unicode"

	"trail/core/chat"
	"trail/core/settings"
)

// Permission modes. manual and auto are accepted for Claude Code's sake
// and run as default (ResolveMode).
const (
	ModeDefault     = "default"
	ModePlan        = "plan"
	ModeAcceptEdits = "acceptEdits"
	ModeBypass      = "bypassPermissions"
	ModeDontAsk     = "dontAsk"
	ModeAuto        = "auto"
	ModeManual      = "manual"
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

// ReadOnlyRule names what allowed a read-only Bash command in a Verdict.
const ReadOnlyRule = "read-only command"

// ValidMode reports whether m is a permission mode trail accepts.
func ValidMode(m string) bool {
	switch m {
	case ModeDefault, ModePlan, ModeAcceptEdits, ModeBypass, ModeDontAsk, ModeAuto, ModeManual:
		return true
	}
	return false
}

// ResolveMode is the mode trail runs for m, and a note for the user when
// that is not m itself: Claude Code's manual is default under another
// name; its auto mode (a classifier approving calls) has no equivalent, and
// its closest meaning is default (nothing runs unapproved that a rule, a
// hook or a person has not allowed); dontAsk runs as default with every
// question answered no.
func ResolveMode(m string) (mode, note string) {
	switch m {
	case ModeManual:
		return ModeDefault, "permission mode manual is default mode"
	case ModeAuto:
		return ModeDefault, "permission mode auto (a classifier approving calls) is not available in trail; running in default mode"
	case ModeDontAsk:
		return ModeDontAsk, "permission mode dontAsk runs as default mode with every question denied"
	}
	return m, ""
}

// Policy is the rules and the mode of one step.
type Policy struct {
	Mode  string
	Allow []Rule
	Ask   []Rule
	Deny  []Rule
	Cwd   string // relative path arguments and rules are anchored here
	Home  string // ~/ rules are anchored here
	// Env looks up the variables a Bash command's file words name
	// ($HOME/.ssh/id_rsa); nil knows none but Home.
	Env func(name string) string
	// Warnings are rules Build accepted but will not apply (an allow rule
	// glob Claude Code skips too), one sentence each.
	Warnings []string
}

// Verdict is the outcome of the rule and mode check.
type Verdict struct {
	Decision string
	Source   string // SourceRule or SourceMode
	Rule     string // the rule that decided (ReadOnlyRule for a read-only command)
	// Unseen names the rule ("deny rule R", "ask rule R") that made a
	// question of a command it cannot see into (an expansion runs it),
	// and UnseenWhy says what hides it ("its command $R is an expansion").
	Unseen, UnseenWhy string
}

// Check decides a call from the rules and the mode.
func (p *Policy) Check(tool string, args json.RawMessage) Verdict {
	value, known := p.argument(tool, args)
	for _, r := range p.Deny {
		if r.coversForDeny(tool) && p.matches(r, tool, value, known, true) {
			return Verdict{Decision: DecisionDeny, Source: SourceRule, Rule: r.Text}
		}
	}
	if tool == "Bash" && known {
		if r, ok := p.fileRule(p.Deny, value); ok {
			return Verdict{Decision: DecisionDeny, Source: SourceRule, Rule: r.Text}
		}
	}
	// A command named by an expansion ($R a) may be the one a deny rule
	// forbids: asked, never run unseen (nor denied outright: it may well
	// be harmless).
	if tool == "Bash" && known {
		if why := opaqueCommand(value, p.Cwd); why != "" {
			kind := "deny rule "
			r, ok := commandRule(p.Deny)
			if !ok {
				kind = "ask rule "
				r, ok = commandRule(p.Ask)
			}
			if ok {
				return Verdict{Decision: p.askUnless(), Source: SourceRule, Rule: r.Text, Unseen: kind + r.Text, UnseenWhy: why}
			}
		}
	}
	// A deny rule scoped to an argument this tool does not have cannot be
	// evaluated; "cannot tell" must not turn into an allow (Robota's CORE-030).
	if !known {
		for _, r := range p.Deny {
			if r.coversForDeny(tool) && r.Pattern != "" && r.kind != kindTool {
				return Verdict{Decision: p.askUnless(), Source: SourceRule, Rule: r.Text}
			}
		}
	}
	for _, r := range p.Ask {
		if r.coversForDeny(tool) && (p.matches(r, tool, value, known, true) || (!known && r.kind != kindTool)) {
			return Verdict{Decision: p.askUnless(), Source: SourceRule, Rule: r.Text}
		}
	}
	if tool == "Bash" && known {
		if r, ok := p.fileRule(p.Ask, value); ok {
			return Verdict{Decision: p.askUnless(), Source: SourceRule, Rule: r.Text}
		}
	}
	if r, ok := p.allowedBy(tool, value, known); ok {
		return Verdict{Decision: DecisionAllow, Source: SourceRule, Rule: r}
	}
	if tool == "Bash" && known && p.readOnly(value) {
		return Verdict{Decision: DecisionAllow, Source: SourceMode, Rule: ReadOnlyRule}
	}
	return Verdict{Decision: ModeDecision(p.Mode, tool), Source: SourceMode}
}

// askUnless is what an ask rule decides: a question, except in the modes
// that never ask (plan, dontAsk), where it denies.
func (p *Policy) askUnless() string {
	if p.Mode == ModePlan || p.Mode == ModeDontAsk {
		return DecisionDeny
	}
	return DecisionAsk
}

// ModeDecision is the mode table of SPEC 5.2, with dontAsk denying what
// default would ask.
func ModeDecision(mode, tool string) string {
	switch mode {
	case ModeBypass:
		return DecisionAllow
	}
	d := DecisionAsk
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
	default:
		if mode == ModePlan {
			return DecisionDeny
		}
	}
	if mode == ModeDontAsk {
		return DecisionDeny
	}
	return d
}

// matches reports whether a rule covers a call's argument. deny is true
// for deny and ask rules: a Bash rule then matches any part of the command
// or of its substitutions, past any assignment; a path rule the link or its
// target.
func (p *Policy) matches(r Rule, tool, value string, known, deny bool) bool {
	switch {
	case r.kind == kindTool:
		return true
	case !known:
		return false
	case r.kind == kindPath:
		return p.matchPath(r.path, value, deny)
	case r.kind == kindBash && tool == "Bash":
		if r.matchValue(value) {
			return true
		}
		for _, part := range bashParts(value, p.Cwd) {
			if r.matchValue(part) {
				return true
			}
		}
		return false
	}
	return r.matchValue(value)
}

// allowedBy returns the allow rule(s) that cover the call.
func (p *Policy) allowedBy(tool, value string, known bool) (string, bool) {
	var scoped []Rule
	for _, r := range p.Allow {
		if !r.covers(tool) {
			continue
		}
		if r.kind == kindTool {
			return r.Text, true
		}
		scoped = append(scoped, r)
	}
	if len(scoped) == 0 || !known || value == "" {
		return "", false
	}
	if tool != "Bash" {
		for _, r := range scoped {
			if p.matches(r, tool, value, true, false) {
				return r.Text, true
			}
		}
		return "", false
	}
	for _, r := range scoped {
		if r.exact() && r.matchValue(value) {
			return r.Text, true
		}
	}
	parts, opaque := splitCommand(value)
	if opaque || len(parts) == 0 {
		return "", false
	}
	var used []string
	for _, part := range parts {
		bare := stripPrefix(part, false)
		found := ""
		for _, r := range scoped {
			if r.kind == kindBash && (r.matchValue(part) || r.matchValue(bare)) {
				found = r.Text
				break
			}
		}
		if found == "" && p.readOnly(part) {
			// A read-only part runs without a question on its own, so it
			// needs no rule inside a compound either: Bash(touch *)
			// allows "touch b.txt; echo hello".
			found = ReadOnlyRule
		}
		if found == "" {
			return "", false
		}
		used = appendUnique(used, found)
	}
	if len(used) == 1 && used[0] == ReadOnlyRule {
		return "", false // read-only as a whole: Check says so itself
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

// splitCommand cuts a shell command at its unquoted control operators;
// here-document bodies are left out, or split too when a shell runs them
// (heredoc.go).
// opaque is true when the command holds a substitution whose inside a rule
// cannot see ($(...), backquotes, <(...), >(...)).
func splitCommand(cmd string) (parts []string, opaque bool) {
	cmd, scripts := stripHeredocs(cmd)
	for _, script := range scripts {
		inner, innerOpaque := splitCommand(script)
		parts, opaque = append(parts, inner...), opaque || innerOpaque
	}
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
		case c == '|' && i > 0 && cmd[i-1] == '>':
			// >| is a redirection (past noclobber), not a pipe
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

// Build parses the rules of the settings files and the flags. An invalid
// rule is a usage error naming it and where it came from. cwd is where
// trail runs: rules of the project's .claude and .trail settings and of
// the flags anchor their "/path" patterns there.
func Build(mode string, s *settings.Settings, allowFlags, denyFlags []string, cwd string) (*Policy, error) {
	p := &Policy{Mode: mode, Cwd: cwd}
	add := func(list *[]Rule, deny bool, rules, files []string, flag string) error {
		for i, text := range rules {
			source, root := flag, cwd
			if flag == "" {
				source = ruleFile(s, text, files, i)
				root = sourceRoot(source, cwd)
			}
			r, err := parseRule(text, deny, root)
			if err != nil {
				return ruleError(text, cmpOr(source, "settings"), err)
			}
			if !deny && !r.allowGlobOK() {
				p.Warnings = append(p.Warnings, fmt.Sprintf("allow rule %s in %s is skipped: an allow rule may use * in the tool name only after mcp__<server>__", r.Text, cmpOr(source, "settings")))
				continue
			}
			*list = append(*list, r)
		}
		return nil
	}
	perms := s.Permissions
	if err := add(&p.Deny, true, perms.Deny, perms.DenyFrom, ""); err != nil {
		return nil, err
	}
	if err := add(&p.Ask, true, perms.Ask, perms.AskFrom, ""); err != nil {
		return nil, err
	}
	if err := add(&p.Allow, false, perms.Allow, perms.AllowFrom, ""); err != nil {
		return nil, err
	}
	if err := add(&p.Deny, true, denyFlags, nil, "--deny-tool"); err != nil {
		return nil, err
	}
	if err := add(&p.Allow, false, allowFlags, nil, "--allow-tool"); err != nil {
		return nil, err
	}
	return p, nil
}

// ruleFile names the settings file rule i of a list came from.
func ruleFile(s *settings.Settings, text string, files []string, i int) string {
	if i < len(files) && files[i] != "" {
		return files[i]
	}
	return s.Permissions.Sources[text]
}

// sourceRoot is where a settings file's "/path" rules are anchored (Claude
// Code's table): a project's .claude or .trail settings at the project root
// (trail's working directory), any other file at its own folder
// (~/.claude/settings.json at ~/.claude, --settings FILE at FILE's folder);
// inline --settings JSON, like the flags, at the working directory.
func sourceRoot(file, cwd string) string {
	if file == "" || file == settings.InlineName { // inline --settings: as the flags
		return cwd
	}
	dir := filepath.Dir(file)
	if b := filepath.Base(dir); (b == ".claude" || b == ".trail") && filepath.Dir(dir) == filepath.Clean(cwd) {
		return filepath.Dir(dir)
	}
	return dir
}

func cmpOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// DescribeCall is a call as people read it: Bash(go test ./...), Write(a.go),
// or the tool and its compact arguments (as ToolCall.Args gives them).
func DescribeCall(name string, args json.RawMessage) string {
	if key := argumentKey(name); key != "" {
		v, ok := argString(args, key)
		if !ok && key == "filePath" {
			v, ok = argString(args, "file_path") // Claude Code's name, as models send it
		}
		if ok {
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
	if !strings.ContainsFunc(short, unicode.IsControl) {
		return short
	}
	// escaped as Go writes them (\x1b, \a), as every other view of a
	// session shows them: a '?' could be the file name's own
	var b strings.Builder
	for _, r := range short {
		if unicode.IsControl(r) {
			q := strconv.QuoteRune(r)
			b.WriteString(q[1 : len(q)-1])
			continue
		}
		b.WriteRune(r)
	}
	return b.String()
}
