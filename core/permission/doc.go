// Package permission decides whether a tool call may run from the rules
// and the mode alone (SPEC 5.2, with the rule meanings of Claude Code's
// permissions documentation): deny rules, then ask rules, then allow
// rules, then read-only Bash commands, then the mode table. Hooks and the
// person at the terminal come on top of it, in the engine
// (core/approval.go). It also evaluates a hook's "if" filter (MatchIf).
//
// Invariants:
//   - A deny or ask rule that cannot be evaluated (the tool has no argument
//     it names) never turns into an allow.
//   - A Bash command is judged part by part, split at its unquoted control
//     operators (splitCommand): a deny rule matching any part, or a command
//     inside a substitution, covers the whole, past assignments and
//     wrappers (timeout, nice, nohup...); an allow rule with a pattern must
//     cover every part, and sees past known-safe assignments only; a
//     command holding a substitution is allowed by a bare Bash rule only.
//   - A Read deny rule also stops the file commands of Bash that read the
//     file (cat, head, grep, < redirections...), and guards writes to it;
//     an Edit deny rule stops writes through Bash (> and >>, tee, cp...).
//     This holds in every mode.
//   - A path rule is a gitignore pattern anchored as Claude Code anchors it
//     (//, ~/, /, relative); it judges the path as written and the file
//     symlinks lead to: a deny rule matches if either does, an allow rule
//     only if both do, so a rule cannot be stepped around by spelling the
//     path another way or through a link.
//   - An invalid rule is a usage error naming the rule and where it came
//     from (a settings file or a flag); a rule Claude Code accepts but
//     ignores (an unanchored allow glob) is a warning, never an error.
package permission
