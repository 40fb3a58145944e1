package core

import (
	"encoding/json"

	"trail/core/chat"
)

// Result subtypes (Claude Code's result shape, SPEC 6).
const (
	SubtypeSuccess        = "success"
	SubtypeMaxTurns       = "error_max_turns"
	SubtypeError          = "error_during_execution"
	SubtypeRequiresAction = "requires_action"
	SubtypeInterrupted    = "interrupted"
	// SubtypeMaxTokens: the answer hit the output cap (max_tokens, or
	// length) and is cut short.
	SubtypeMaxTokens = "error_max_tokens"
	// SubtypeRefusal: the model declined to answer.
	SubtypeRefusal = "error_refusal"
)

// Stop reasons stored in the record.
const (
	StopEndTurn        = "end_turn"
	StopMaxTurns       = "max_turns"
	StopRequiresAction = "requires_action"
	StopError          = "error"
	StopInterrupted    = "interrupted"
	StopMaxTokens      = "max_tokens" // the answer hit the output cap
	StopRefusal        = "refusal"    // the model refused
)

// Statuses stored in the record.
const (
	StatusIdle           = "idle"
	StatusRunning        = "running"
	StatusRequiresAction = "requires_action"
	StatusTerminated     = "terminated"
)

// Result is what a step produced; commands renders it (-o text|json|stream-json).
type Result struct {
	SessionID         string
	Subtype           string
	IsError           bool
	Text              string // the final assistant text
	NumTurns          int    // provider rounds in this step
	DurationMS        int64
	DurationAPIMS     int64
	Usage             chat.Usage
	PermissionDenials []PermissionDenial
	PendingToolCalls  []PendingToolCall
	Provider          string
	Model             string
	StopReason        string
	// ModelStopReason is the last answer's stop reason as its provider
	// said it ("end_turn", "stop", "length", "max_tokens", "refusal"...).
	ModelStopReason string
	Refusal         string // why the model refused, when it did
	MaxTokens       int    // the cap each answer had; 0: none was sent (the server's own limit held)
	ModelUsage      []ModelUsage
	CostUSD         *float64 // nil: a model's price is unknown
	ErrorMessage    string
	// TerminalReason is why the step ended, in Claude Code's words
	// (completed, max_turns, tool_deferred, aborted_streaming, hook_stopped,
	// api_error...).
	TerminalReason string
	// Deferred is the call a PreToolUse hook deferred (Claude Code's
	// deferred_tool_use): the step stopped with it pending.
	Deferred *DeferredToolUse
}

// DeferredToolUse is a call a PreToolUse hook answered "defer": its input
// in Claude Code's parameter names.
type DeferredToolUse struct {
	ID    string          `json:"id"`
	Name  string          `json:"name"`
	Input json.RawMessage `json:"input"`
}

// Terminal reasons (Claude Code's TerminalReason values trail produces).
const (
	TerminalCompleted        = "completed"
	TerminalMaxTurns         = "max_turns"
	TerminalToolDeferred     = "tool_deferred"
	TerminalAbortedStreaming = "aborted_streaming"
	TerminalAbortedTools     = "aborted_tools"
	TerminalHookStopped      = "hook_stopped"
	TerminalAPIError         = "api_error"
	TerminalModelError       = "model_error"
)

// PermissionDenial is a tool call the user or a rule did not allow;
// ToolInput is in Claude Code's parameter names (file_path, old_string...).
type PermissionDenial struct {
	ToolName  string          `json:"tool_name"`
	ToolUseID string          `json:"tool_use_id"`
	ToolInput json.RawMessage `json:"tool_input"`
}

// PendingToolCall is a tool call waiting for approval (SPEC 5.4).
type PendingToolCall struct {
	ID        string          `json:"id"`
	Name      string          `json:"name"`
	Arguments json.RawMessage `json:"arguments"`
	Decision  string          `json:"decision,omitempty"` // allow, deny or ask (known so far)
	Source    string          `json:"source,omitempty"`   // what decided: rule, mode, hook, session...
	Reason    string          `json:"reason,omitempty"`
	// Deferred: a PreToolUse hook answered defer. resume without
	// --approve/--deny asks the hooks again.
	Deferred bool `json:"deferred,omitempty"`
}
