// Package peer reads and writes the session files of other agents: Claude
// Code (~/.claude/projects/…/<id>.jsonl), Codex (rollout-*.jsonl), Gemini
// CLI (chats/session-*.jsonl) and pi (sessions/…/<ts>_<id>.jsonl). Read
// turns one of them into a Conversation of trail messages; WriteClaude and
// WriteMarkdown turn trail messages back into Claude Code's JSONL and a
// readable transcript.
//
// Invariants Read keeps:
//   - Nothing is dropped in silence: every entry, or part of an entry
//     (a thinking block, an image), that does not become part of a message
//     or of the session's record is a Skip naming its line and why.
//   - Every line must be a JSON object: a line that is not (a torn tail, a
//     file of another kind) is a *LineError naming it; the file is not
//     half-imported.
//   - Every tool call is answered: a call the source recorded no result
//     for gets a result trail adds (success false, Synthetic), right after
//     its round, and a result that answers no call of its round is skipped.
//     A provider then accepts the conversation, and trail's own rule (an
//     assistant message with calls is followed by all of their results)
//     holds.
//   - Content the harness of the other agent injected (Claude Code's
//     isMeta lines, Codex developer messages and environment context,
//     Gemini CLI's session context) is kept where it was, as a message with
//     metadata synthetic: true and the source's type, since the model saw it.
//   - Tool names and arguments stay as they were; the original ids go into
//     each message's metadata (importedId).
//   - Each line is checked (behind logfmt's nesting bound) before any field
//     of it is read; no input panics or hangs (FuzzRead).
//
// The writers are pure functions of the messages they are given: the same
// session exports to the same bytes.
//
// peer imports chat (the messages) and logfmt (its JSONL reader and JSON
// writer); it knows nothing of sessions on disk.
package peer
