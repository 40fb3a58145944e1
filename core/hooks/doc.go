// Package hooks runs the hook commands of the settings (SPEC 5.5, with the
// contract of Claude Code's hooks reference) and reads their answers: each
// hook is `sh -c COMMAND` (or COMMAND ARGS... without a shell) in the
// session's folder with its JSON input on stdin; exit 0 hands over its
// stdout (a JSON decision, or plain text), exit 2 blocks with the JSON's
// reason or stderr, any other exit is a non-blocking error shown to the
// user unless a JSON answer on stdout decides.
//
// Invariants:
//   - Hooks of one event run one after the other, in settings order, each
//     command once, and stop at the first that blocks; every hook is
//     awaited before Run returns, and one past its timeout is killed with
//     its whole process group.
//   - Only what a hook may decide is taken from it: exit 2 blocks only the
//     events that can be stopped (blockable); several PreToolUse answers
//     fold deny over defer over ask over allow; StopFailure's answer is
//     ignored.
//   - Plain stdout (Outcome.Plain) and additionalContext (Outcome.Context)
//     are kept apart: the engine hands plain text to the model only for
//     UserPromptSubmit and SessionStart.
//   - What the user should read (errors, timeouts, systemMessage) goes to
//     OnMessage, what ran to OnRun; the runner writes no file and no log.
package hooks
