package hooks

import (
	"encoding/json"
	"time"

	"trail/logfmt"
)

// Input is the event-specific part of a hook's stdin JSON; the runner
// adds the common keys (session_id, transcript_path, cwd, hook_event_name,
// permission_mode) in front.
type Input struct {
	// Target is what matchers test: the tool name (PreToolUse, PostToolUse),
	// the source (SessionStart), the reason (SessionEnd) or the trigger
	// (PreCompact, PostCompact). Events without a target run every group.
	Target string
	Fields []logfmt.Field
	// hasTarget is set for events whose matchers apply.
	hasTarget bool
	// tool and args are the call a tool event is about, in the tools' own
	// parameter names, for the "if" filter.
	tool string
	args json.RawMessage
}

// Hook events (SPEC 5.5).
const (
	SessionStart     = "SessionStart"
	UserPromptSubmit = "UserPromptSubmit"
	PreToolUse       = "PreToolUse"
	PostToolUse      = "PostToolUse"
	// PostToolUseFailure runs instead of PostToolUse after a call that
	// failed (a Bash command that exited non-zero included).
	PostToolUseFailure = "PostToolUseFailure"
	Stop               = "Stop"
	StopFailure        = "StopFailure"
	SessionEnd         = "SessionEnd"
	PreCompact         = "PreCompact"
	PostCompact        = "PostCompact"
	// Notification tells the user's notifier (a desktop toast, ntfy, a
	// Slack webhook) that a person is needed: trail sends Claude Code's
	// permission_prompt when a call waits for approval.
	Notification = "Notification"
)

// NotificationPermission is Claude Code's notification_type for a tool
// call waiting for the user's approval.
const NotificationPermission = "permission_prompt"

func targeted(target string, fields ...logfmt.Field) Input {
	return Input{Target: target, Fields: fields, hasTarget: true}
}

// toolInput is a call's arguments as hooks see them: the object, or the
// text the model sent when it was not JSON.
func toolInput(args json.RawMessage) any {
	if len(args) == 0 {
		return logfmt.Object{}
	}
	return args
}

// Call is the tool call a tool event is about.
type Call struct {
	Name, ID string
	// Input is the arguments as hooks see them: Claude Code's parameter
	// names, file_path absolute.
	Input json.RawMessage
	// Args is the arguments in the tools' own names, for "if" rules.
	Args json.RawMessage
}

func toolTargeted(c Call, fields ...logfmt.Field) Input {
	in := targeted(c.Name, fields...)
	in.tool, in.args = c.Name, c.Args
	return in
}

func PreToolUseInput(c Call) Input {
	return toolTargeted(c,
		logfmt.F("tool_name", c.Name),
		logfmt.F("tool_input", toolInput(c.Input)),
		logfmt.F("tool_use_id", c.ID))
}

// PostToolUseInput: response is the result in Claude Code's shape of the
// tool's output (Bash {stdout, stderr, interrupted, isImage}...).
func PostToolUseInput(c Call, response any, duration time.Duration) Input {
	return toolTargeted(c,
		logfmt.F("tool_name", c.Name),
		logfmt.F("tool_input", toolInput(c.Input)),
		logfmt.F("tool_response", response),
		logfmt.F("tool_use_id", c.ID),
		logfmt.F("duration_ms", duration.Milliseconds()))
}

// PostToolUseFailureInput: errText is what failed ("Exit code 1\n<output>"
// for a command), interrupted whether it was stopped rather than failing.
func PostToolUseFailureInput(c Call, errText string, interrupted bool, duration time.Duration) Input {
	return toolTargeted(c,
		logfmt.F("tool_name", c.Name),
		logfmt.F("tool_input", toolInput(c.Input)),
		logfmt.F("tool_use_id", c.ID),
		logfmt.F("error", errText),
		logfmt.F("is_interrupt", interrupted),
		logfmt.F("duration_ms", duration.Milliseconds()))
}

func UserPromptSubmitInput(prompt string) Input {
	return Input{Fields: []logfmt.Field{logfmt.F("prompt", prompt)}}
}

// stopResponseLen is how much of the answer Robota puts in Stop's response.
const stopResponseLen = 500

// StopInput is Claude Code's Stop input (stop_hook_active,
// last_assistant_message, and background_tasks and session_crons, empty:
// trail runs nothing in the background) plus Robota's response.
func StopInput(answer string, active bool) Input {
	r := []rune(answer)
	short := answer
	if len(r) > stopResponseLen {
		short = string(r[:stopResponseLen])
	}
	return Input{Fields: []logfmt.Field{
		logfmt.F("stop_hook_active", active),
		logfmt.F("last_assistant_message", answer),
		logfmt.F("background_tasks", []any{}),
		logfmt.F("session_crons", []any{}),
		logfmt.F("response", short),
	}}
}

// StopFailure error types (Claude Code's, what StopFailure matchers test).
const (
	ErrRateLimit      = "rate_limit"
	ErrOverloaded     = "overloaded"
	ErrAuthentication = "authentication_failed"
	ErrBilling        = "billing_error"
	ErrInvalidRequest = "invalid_request"
	ErrModelNotFound  = "model_not_found"
	ErrServer         = "server_error"
	ErrMaxTokens      = "max_output_tokens"
	ErrUnknown        = "unknown"
)

// StopFailureInput is Claude Code's StopFailure input: the error type, its
// details, and last_assistant_message holding the error itself; trail
// keeps its own reason (the whole error) beside them.
func StopFailureInput(errType, details, reason string) Input {
	return targeted(errType,
		logfmt.F("error", errType),
		logfmt.F("error_details", details),
		logfmt.F("last_assistant_message", "API Error: "+reason),
		logfmt.F("reason", reason),
		logfmt.F("stop_hook_active", false))
}

// SessionStartInput: model is the model the session uses (only SessionStart
// gets it, as in Claude Code).
func SessionStartInput(source, model string) Input {
	return targeted(source, logfmt.F("source", source), logfmt.F("model", model))
}

func SessionEndInput(reason string) Input {
	return targeted(reason, logfmt.F("reason", reason))
}

// PreCompactInput is the input of PreCompact hooks; trigger is "manual" or "auto".
func PreCompactInput(trigger, instructions string) Input {
	return targeted(trigger, logfmt.F("trigger", trigger), logfmt.F("custom_instructions", instructions))
}

// PostCompactInput is the input of PostCompact hooks.
func PostCompactInput(trigger, summary string) Input {
	return targeted(trigger, logfmt.F("trigger", trigger), logfmt.F("compact_summary", summary))
}

// NotificationInput is a Notification's input; matchers test its type
// (Claude Code's "permission_prompt", "idle_prompt"...).
func NotificationInput(kind, message string) Input {
	return targeted(kind, logfmt.F("message", message), logfmt.F("title", "trail"), logfmt.F("notification_type", kind))
}
