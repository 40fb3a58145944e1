package permission

// A hook's "if" field (Claude Code's hooks reference) holds one permission
// rule; the hook runs only when the tool call matches it. It is a filter,
// not a gate, and fails open:
//
//   - a Bash pattern is tried on every command of the call, past leading
//     assignments and wrappers, and on the commands inside $(...) and
//     backquotes: Bash(git *) runs for "npm test && git push", Bash(rm *)
//     for "echo $(rm -rf /)";
//   - a command named by an expansion ($R a, $(echo rm) a) runs the hook,
//     as Claude Code's does: it could be any command;
//   - so do eval, sh -c, sudo, env and find -exec: the command they run is
//     tried too (bash_parts.go);
//   - a pattern that names more than the command (Bash(git push *)) runs
//     anyway when the command holds $(...), backquotes or $VAR, which could
//     hide it;
//   - a command that does not parse (a quote never closed), or a rule that
//     does not parse, runs the hook;
//   - a path pattern is anchored as an allow rule's is: Edit(src/**) is the
//     working directory's src only.

import "encoding/json"

// MatchIf reports whether a hook whose "if" is rule runs for a call of
// tool with args (the tools' own parameter names). err is set for a rule
// that does not parse; the hook runs then.
func MatchIf(rule, tool string, args json.RawMessage, cwd, home string) (bool, error) {
	r, err := parseRule(rule, false, cwd)
	if err != nil {
		return true, err
	}
	if !r.covers(tool) {
		return false, nil
	}
	if r.kind == kindTool {
		return true, nil
	}
	p := &Policy{Cwd: cwd, Home: home}
	value, known := p.argument(tool, args)
	if !known {
		return true, nil
	}
	if r.kind != kindBash {
		return p.matches(r, tool, value, true, false), nil
	}
	parts, _ := splitCommand(value)
	for _, part := range parts {
		if _, broken := tokens(part); broken {
			return true, nil
		}
	}
	if r.matchValue(value) {
		return true, nil
	}
	for _, part := range bashParts(value, p.Cwd) {
		if r.matchValue(part) {
			return true, nil
		}
	}
	// A command word the shell expands ($R a) could be any command.
	return opaqueCommand(value, p.Cwd) != "" || (r.words > 1 && hasExpansion(value)), nil
}
