// Package tools holds what a tool is to trail (Tool, Env, Result) and the
// built-in tools (SPEC 5.2): Read, Write, Edit, Bash, Glob and Grep, with
// Robota's names, parameters and descriptions. The engine offers them; they
// know nothing of it (no import of core, hooks or a provider), so the
// engine's own tests run the real ones.
//
// Invariants:
//   - A tool never panics and never returns a Go error: every failure is a
//     result with success false, so a bad call never aborts the step.
//   - Paths are resolved against the session's working directory, and the file
//     tools refuse paths whose canonical form (symlinks resolved) leaves it.
//     Bash is not contained: a command can cd anywhere, so a check on its
//     working directory would only look like a boundary. Its boundary is the
//     permission check that runs before it.
//   - Write and Edit change the file a symlink names (its canonical path, the
//     one the permission rules judged) and keep the link; a link to nothing
//     is refused. A rewritten file keeps its mode. The temp file beside it is
//     journaled through Env.NoteTemp before it exists, so a killed step's
//     leftover is removed by the next one.
//   - Grep and Glob skip what .gitignore, .ignore and .git/info/exclude
//     exclude, with ripgrep's precedence (ignore_files.go), unless the model
//     passes noIgnore; .git and node_modules are always skipped, hidden
//     files are searched.
//   - Patterns the model or the user's tree supply match in linear time: a
//     Glob pattern by a table over (pattern, path) positions, an ignore rule
//     as an RE2 expression.
//   - Output over 30,000 characters keeps its first and last 15,000 (the
//     model sees both ends of a long build log).
//   - A temp file's name has one form (TempName), and RemoveLeftover removes
//     only a regular file of that form reached through no symlink: a
//     journal line never deletes a user's file.
//   - Permission decisions are not made here: core decides before Run, and
//     tells the searching tools which files Read deny rules keep from the
//     model (Env.ReadDenied); Grep and Glob skip them.
package tools
