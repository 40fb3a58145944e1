package tools

import (
	"context"
	"encoding/json"

	"trail/core/chat"
)

// Tool is a built-in tool the model may call.
type Tool interface {
	Schema() chat.ToolSchema
	// Run executes one call. It never panics and reports failures in the
	// result: a tool error never aborts the step.
	Run(ctx context.Context, args json.RawMessage, env Env) Result
}

// Env is where a tool runs.
type Env struct {
	Cwd string
	// Dirs are further working directories, absolute (--add-dir,
	// permissions.additionalDirectories): the file tools reach them as
	// they reach Cwd.
	Dirs []string
	Env  []string // extra KEY=VALUE pairs from settings
	// ReadDenied, when set, tells the tools that search (Grep, Glob) which
	// files a Read deny rule keeps from the model: they skip them.
	ReadDenied func(abs string) bool
	// NoteTemp, when set, must be called with the path of every temp file a
	// tool is about to create in the user's folders (named by TempName),
	// before creating it. The engine journals the path under the session
	// lock, and the next step removes the file if this process was killed
	// before renaming or removing it. An error means: do not create it.
	NoteTemp func(path string) error
	// LastSeen, when set, returns how a tool last saw the file at a
	// canonical path in this session (FileSeen): Write refuses to replace
	// a file the model has not seen as it is now.
	LastSeen func(path string) (FileSeen, bool)
	// EnvFile, when set, names a shell script Bash runs before each
	// command in the same shell (Claude Code's CLAUDE_ENV_FILE, written by
	// SessionStart hooks), so the variables it exports reach the command.
	EnvFile string
}

// Result is Robota's tool result, sent to the model as a JSON string
// {success, output, error?, exitCode?} plus any extra keys.
type Result struct {
	Success  bool
	Output   string
	Error    string
	ExitCode *int
	Extra    []ResultField
	// Response is the result in Claude Code's tool output shape (Bash
	// {stdout, stderr, interrupted, isImage}, Write {type, filePath, ...}),
	// what hooks get as tool_response. It is not sent to the model; nil
	// when the call failed.
	Response any
	// Interrupted: the call was stopped (a timeout or an abort), not finished.
	Interrupted bool
	// Seen is the file a Read read or an Edit or Write wrote, as it is
	// after the call; nil for other calls.
	Seen *FileSeen
}

// ResultField is an extra key of a tool result (errorCode, availableTools...).
type ResultField struct {
	Key   string
	Value any
}
