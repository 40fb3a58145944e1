// Package core runs one step of a trail session: it loads or creates the
// session record, holds the session lock, sends the prompt through the
// provider, appends every event to the JSONL log, and saves.
//
// Invariants this package keeps:
//   - A record is only written while the session lock is held, and only
//     through Store.Save (atomic replace). A record that does not parse is
//     never written.
//   - Messages are committed whole: an assistant message with tool calls is
//     appended together with all of its tool results, or not at all. The one
//     exception is a paused round (status requires_action): the record then
//     ends with the assistant message and its calls are in pendingToolCalls,
//     until resume --approve/--deny commits their results.
//   - Every tool call is decided (hooks, rules, mode, a person) before any
//     call of its round runs, and every decision is logged with its source.
//   - Every hook is awaited before the step returns.
//   - Every message appended to the record is also logged as a
//     history_mutation, so replaying the log yields the record's messages;
//     a message the record would not keep yet (a prompt awaiting its
//     answer, calls awaiting their results) is logged only once it would,
//     so a killed step leaves log and record at the same round. What a
//     failed save, a kill between log and save, or another program still
//     sets apart, the next step that opens the session puts back in line
//     before appending (log_sync.go): the record is the truth.
//   - Hooks meet Claude Code's contract: a tool call reaches them in Claude
//     Code's parameter names (tools.ClaudeInput) and the tools, the rules
//     and the log in Robota's (tools.Normalize); the transcript they read
//     (transcript.go) is written, redacted, before a hook runs, never
//     otherwise; CLAUDE_ENV_FILE (env_file.go) lives only as long as the step.
//   - API keys come from the environment only. The record is scrubbed with
//     the log's redaction and the same secrets in use (record_scrub.go), so
//     no secret reaches either and the two hold the same strings; streamed
//     text is logged redacted on the joined text (stream_log.go).
//
// core knows nothing of flags or terminals: commands turns flags into
// StepOptions and renders the Observer events it receives. It owns the
// engine only: open (session_open.go), the loop and its rounds (loop.go,
// tool_round.go, provider_call.go), approval and pause (approval.go,
// pending.go), compaction (compact.go), the options' precedence
// (options.go), its ports (ports.go: Store, Logger, Clock, Terminal) and
// its result. What the engine speaks and uses lives beside it, each
// package one idea importing only downward (layering_test.go): chat (the
// messages), errs (the typed errors), settings, permission, hooks, tools
// and provider (with its implementations under it), none of which imports
// the engine.
package core
