// Package hooks runs the hook commands of the settings (SPEC 5.5, Claude
// Code's contract) and reads their answers: each hook is `sh -c COMMAND`
// in the session's folder with its JSON input on stdin; exit 0 hands over
// its stdout (a JSON decision, or plain text as context), exit 2 blocks
// with stderr as the reason, anything else is a non-blocking error shown
// to the user.
//
// Invariants:
//   - Hooks of one event run one after the other, in settings order, and
//     stop at the first that blocks; every hook is awaited before Run
//     returns, and one past its timeout is killed with its whole process
//     group.
//   - Only what a hook may decide is taken from it: exit 2 blocks only the
//     events that can be stopped (blockable); several PreToolUse answers
//     fold deny over ask over allow.
//   - What the user should read (errors, timeouts, systemMessage) goes to
//     OnMessage, what ran to OnRun; the runner writes no file and no log.
package hooks
