package hooks

import (
	"encoding/json"

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
}

// Hook events (SPEC 5.5).
const (
	SessionStart     = "SessionStart"
	UserPromptSubmit = "UserPromptSubmit"
	PreToolUse       = "PreToolUse"
	PostToolUse      = "PostToolUse"
	Stop             = "Stop"
	StopFailure      = "StopFailure"
	SessionEnd       = "SessionEnd"
	PreCompact       = "PreCompact"
	PostCompact      = "PostCompact"
)

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

func PreToolUseInput(name, id string, args json.RawMessage) Input {
	return targeted(name,
		logfmt.F("tool_name", name),
		logfmt.F("tool_input", toolInput(args)),
		logfmt.F("tool_use_id", id))
}

func PostToolUseInput(name, id string, args json.RawMessage, response json.RawMessage) Input {
	return targeted(name,
		logfmt.F("tool_name", name),
		logfmt.F("tool_input", toolInput(args)),
		logfmt.F("tool_response", response),
		logfmt.F("tool_use_id", id))
}

func UserPromptSubmitInput(prompt string) Input {
	return Input{Fields: []logfmt.Field{logfmt.F("prompt", prompt)}}
}

// stopResponseLen is how much of the answer Robota puts in Stop's response.
const stopResponseLen = 500

func StopInput(answer string, active bool) Input {
	r := []rune(answer)
	short := answer
	if len(r) > stopResponseLen {
		short = string(r[:stopResponseLen])
	}
	return Input{Fields: []logfmt.Field{
		logfmt.F("response", short),
		logfmt.F("last_assistant_message", answer),
		logfmt.F("stop_hook_active", active),
	}}
}

func StopFailureInput(reason string) Input {
	return Input{Fields: []logfmt.Field{logfmt.F("reason", reason), logfmt.F("stop_hook_active", false)}}
}

func SessionStartInput(source string) Input {
	return targeted(source, logfmt.F("source", source))
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
