// Package permission decides whether a tool call may run from the rules
// and the mode alone (SPEC 5.2): deny rules, then ask rules, then allow
// rules, then the mode table. Hooks and the person at the terminal come on
// top of it, in the engine (core/approval.go).
//
// Invariants:
//   - A deny or ask rule that cannot be evaluated (the tool has no argument
//     it names) never turns into an allow.
//   - A Bash command is judged part by part, split at its unquoted control
//     operators (splitCommand): a deny rule matching any part covers the
//     whole, an allow rule with a pattern must cover every part, and a
//     command holding a substitution ($(…), backquotes, <(…)) is allowed
//     by a bare Bash rule only.
//   - A file path is matched in every form that names the same file
//     (relative, ./, absolute, symlinks resolved by CanonicalPath, the
//     function the tools confine paths with), so a rule cannot be stepped
//     around by spelling the path another way.
//   - An invalid rule is a usage error naming the rule and where it came
//     from (a settings file or a flag).
package permission
