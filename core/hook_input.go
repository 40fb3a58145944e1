package core

import (
	"encoding/json"

	"trail/logfmt"
)

// HookInput is the event-specific part of a hook's stdin JSON; the runner
// adds the common keys (session_id, transcript_path, cwd, hook_event_name,
// permission_mode) in front.
type HookInput struct {
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
	HookSessionStart     = "SessionStart"
	HookUserPromptSubmit = "UserPromptSubmit"
	HookPreToolUse       = "PreToolUse"
	HookPostToolUse      = "PostToolUse"
	HookStop             = "Stop"
	HookStopFailure      = "StopFailure"
	HookSessionEnd       = "SessionEnd"
	HookPreCompact       = "PreCompact"
	HookPostCompact      = "PostCompact"
)

func targeted(target string, fields ...logfmt.Field) HookInput {
	return HookInput{Target: target, Fields: fields, hasTarget: true}
}

// toolInput is a call's arguments as hooks see them: the object, or the
// text the model sent when it was not JSON.
func toolInput(args json.RawMessage) any {
	if len(args) == 0 {
		return logfmt.Object{}
	}
	return args
}

func preToolUseInput(name, id string, args json.RawMessage) HookInput {
	return targeted(name,
		logfmt.F("tool_name", name),
		logfmt.F("tool_input", toolInput(args)),
		logfmt.F("tool_use_id", id))
}

func postToolUseInput(name, id string, args json.RawMessage, response json.RawMessage) HookInput {
	return targeted(name,
		logfmt.F("tool_name", name),
		logfmt.F("tool_input", toolInput(args)),
		logfmt.F("tool_response", response),
		logfmt.F("tool_use_id", id))
}

func userPromptSubmitInput(prompt string) HookInput {
	return HookInput{Fields: []logfmt.Field{logfmt.F("prompt", prompt)}}
}

// stopResponseLen is how much of the answer Robota puts in Stop's response.
const stopResponseLen = 500

func stopInput(answer string, active bool) HookInput {
	r := []rune(answer)
	short := answer
	if len(r) > stopResponseLen {
		short = string(r[:stopResponseLen])
	}
	return HookInput{Fields: []logfmt.Field{
		logfmt.F("response", short),
		logfmt.F("last_assistant_message", answer),
		logfmt.F("stop_hook_active", active),
	}}
}

func stopFailureInput(reason string) HookInput {
	return HookInput{Fields: []logfmt.Field{logfmt.F("reason", reason), logfmt.F("stop_hook_active", false)}}
}

func sessionStartInput(source string) HookInput {
	return targeted(source, logfmt.F("source", source))
}

func sessionEndInput(reason string) HookInput {
	return targeted(reason, logfmt.F("reason", reason))
}

// PreCompactInput is the input of PreCompact hooks; trigger is "manual" or "auto".
func PreCompactInput(trigger, instructions string) HookInput {
	return targeted(trigger, logfmt.F("trigger", trigger), logfmt.F("custom_instructions", instructions))
}

// PostCompactInput is the input of PostCompact hooks.
func PostCompactInput(trigger, summary string) HookInput {
	return targeted(trigger, logfmt.F("trigger", trigger), logfmt.F("compact_summary", summary))
}
