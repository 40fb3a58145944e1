package core

import (
	"encoding/json"
	"time"

	"trail/core/chat"
)

// StepEventKind names what happened in a step, for Observer.
type StepEventKind int

const (
	// EvSession: the session is open (SessionID, Resumed, Provider, Model,
	// Cwd, PermissionMode, Tools).
	EvSession StepEventKind = iota
	// EvUserMessage: the user message was appended (Message).
	EvUserMessage
	// EvProviderWaiting: a provider call was sent and nothing has arrived yet (Round).
	EvProviderWaiting
	// EvTextDelta: answer text arrived (Round, Text).
	EvTextDelta
	// EvThinkingDelta: reasoning text arrived (Round, Text).
	EvThinkingDelta
	// EvToolCallStreaming: the model began a tool call (Round, ToolCall with ID and Name).
	EvToolCallStreaming
	// EvAssistantMessage: an assistant message was committed (Round, Message, Usage).
	EvAssistantMessage
	// EvToolStarted: a tool call is about to run (Round, ToolCall).
	EvToolStarted
	// EvToolFinished: a tool call ended (Round, ToolCall, Tool).
	EvToolFinished
	// EvRetry: a provider call is retried after Wait (Round, Attempt of
	// Of, Text = the reason, Brief = the reason in a few words).
	EvRetry
	// EvWarning: something the user should know that does not fail the step (Text).
	EvWarning
	// EvCompacted: the conversation was compacted (Text = summary).
	EvCompacted
	// EvNotice: a message for the user on stderr: a hook's systemMessage,
	// a hook that failed or timed out (Text).
	EvNotice
	// EvToolResult: a tool result message was appended (Round, Message).
	EvToolResult
)

// StepEvent is one observed event; which fields are set depends on Kind.
type StepEvent struct {
	Kind      StepEventKind
	SessionID string
	Resumed   bool
	Provider  string
	Model     string
	Round     int
	Text      string
	Message   *chat.Message
	ToolCall  *chat.ToolCall
	Tool      *ToolOutcome
	Usage     chat.Usage
	Attempt   int
	Of        int // EvRetry: the retries allowed (--max-retries)
	Wait      time.Duration
	Brief     string // EvRetry: "anthropic: 429 rate_limit_error"
	// EvSession: where the session runs, its mode and the tools offered,
	// and whether text is to stream even into a pipe (--stream, settings).
	Cwd            string
	PermissionMode string
	Tools          []string
	Stream         bool
}

// ToolOutcome is how a tool call ended, for rendering.
type ToolOutcome struct {
	Success  bool
	Denied   bool
	Summary  string // one line: the error or the denial reason
	Result   string // the tool message content
	ExitCode *int   // Bash: the command's exit code
	// Response is the result in Claude Code's tool output shape (what
	// hooks get as tool_response); nil when the call failed or did not run.
	Response any
	// IsError: the call failed, was denied, or (Bash) exited non-zero, as
	// Claude Code's tool_result is_error says.
	IsError bool
	// Source, Rule and Mode say who decided a denied call: the decision
	// source (permission.Source*), the deny rule, the permission mode.
	Source, Rule, Mode string
	// Rewritten holds the arguments that were judged and run when a
	// PreToolUse hook's updatedInput replaced the model's; nil otherwise.
	Rewritten json.RawMessage
	// AskedBy names what made the call a question that no allow rule or
	// flag answers ("ask rule Bash", "a PreToolUse hook"); "" otherwise.
	AskedBy string
}
