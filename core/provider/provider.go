package provider

import (
	"context"
	"time"

	"trail/core/chat"
)

// Provider is a model API. Call sends one request and streams what comes back
// to sink while it arrives; it returns the normalized assistant answer.
// Contract: Call retries only before the first streamed byte; it reports
// every raw payload through sink.RawPayload; it returns a *ProviderError for
// failures the user should see; it returns ctx.Err() (possibly wrapped) when
// ctx is cancelled, after handing every delta received so far to sink.
type Provider interface {
	// Name is the provider's name as stored in the record ("anthropic", "echo", ...).
	Name() string
	// APISurface names the wire protocol for the log ("messages", "chat.completions", "echo").
	APISurface() string
	Call(ctx context.Context, req *Request, sink Sink) (*Response, error)
}

// Request is one provider call.
type Request struct {
	Model     string
	Messages  []chat.Message // system message(s) included, interrupted notes applied
	Tools     []chat.ToolSchema
	MaxTokens int
	// MaxTokensSet says the user chose MaxTokens (--max-tokens or the
	// settings): the openai provider sends a cap only then, since the
	// servers it speaks to know their models' limits better than trail.
	MaxTokensSet bool
	// Thinking turns on Anthropic's extended thinking; nil leaves it off.
	Thinking *Thinking
	// NoStreamOptions: the server rejects stream_options (remembered for
	// the session, or turned off in the settings).
	NoStreamOptions bool
	// NoCache turns prompt caching off (Anthropic's cache_control breakpoints).
	NoCache bool
	// CallIndex is the session's providerCalls before this call (0-based); the
	// script provider answers with its CallIndex-th response.
	CallIndex int
}

// Thinking is how a model is asked to think before it answers: Adaptive
// lets the model decide how much ({"type": "adaptive"}, newer Claude
// models); else Budget tokens ({"type": "enabled", "budget_tokens"}).
type Thinking struct {
	Adaptive bool
	Budget   int
}

// Stop reasons the engine acts on, as the providers normalize them
// (Response.Stop).
const (
	StopMaxTokens = "max_tokens" // the answer hit the output cap: Anthropic max_tokens, OpenAI length
	StopRefusal   = "refusal"    // the model declined: Anthropic refusal, OpenAI refusal text or content_filter
	StopPauseTurn = "pause_turn" // a server-tool loop paused: send the turn back to let it go on
	// StopContextFull: the answer filled the model's context window
	// (Anthropic's model_context_window_exceeded); it is cut like max_tokens.
	StopContextFull = "model_context_window_exceeded"
)

// NormalStop reports whether a provider's own stop reason is one the APIs
// trail speaks use for an answer that ended as the model meant it to (the
// stops the engine acts on aside): Anthropic's end_turn, stop_sequence and
// tool_use; OpenAI's stop, tool_calls and function_call; end_turn and eos
// from compatible servers (LiteLLM, older TGI and llama.cpp).
func NormalStop(reason string) bool {
	switch reason {
	case "end_turn", "stop_sequence", "tool_use", "stop", "tool_calls", "function_call", "eos", StopPauseTurn:
		return true
	}
	return false
}

// Response is the normalized answer of one call.
type Response struct {
	Text       string
	Thinking   string
	ToolCalls  []chat.ToolCall
	Usage      chat.Usage
	HasUsage   bool
	StopReason string // provider's own stop reason ("end_turn", "tool_use", "stop", "length", ...)
	// Stop is StopReason in trail's terms when it is one the engine acts
	// on (StopMaxTokens, StopRefusal, StopPauseTurn, StopContextFull), else "".
	Stop string
	// Refusal says why the model refused, in its words when it gave any
	// (OpenAI's refusal text, Anthropic's stop_details explanation).
	Refusal string
	Model   string
	// ProviderData is what this provider needs back on later requests
	// (chat.Message.ProviderData), nil when nothing.
	ProviderData []byte
	// NotStreamed: the server ignored "stream": true and sent the whole
	// answer as one JSON body, read as the answer all the same.
	NotStreamed bool
	// StreamOptionsRejected: the server refused stream_options and the
	// call was sent again without it; later calls should leave it out.
	StreamOptionsRejected bool
}

// Sink receives a call's stream as it arrives. Implementations must be cheap:
// they run on the provider's read loop.
type Sink interface {
	TextDelta(text string)
	ThinkingDelta(text string)
	// ToolCallStarted reports a tool call's id and name as soon as they are known.
	ToolCallStarted(index int, id, name string)
	// RawPayload reports a provider-native payload: kind is "request",
	// "response" or "stream_event".
	RawPayload(kind string, payload any)
	// Retry reports a retried attempt before it waits.
	Retry(attempt int, wait time.Duration, reason error)
}

// ToolInputSink is a Sink that also takes a tool call's arguments as they
// stream, piece by piece (index as in ToolCallStarted). It is optional:
// providers that stream arguments check for it, so that the log can redact
// a key split across the stream events that carried them.
type ToolInputSink interface {
	ToolInputDelta(index int, piece string)
}
