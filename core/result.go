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
	MaxTokens       int    // the cap each answer had
	ModelUsage      []ModelUsage
	CostUSD         *float64 // nil: a model's price is unknown
	ErrorMessage    string
}

// PermissionDenial is a tool call the user or a rule did not allow.
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
}
