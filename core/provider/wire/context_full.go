package wire

import (
	"strings"

	"github.com/tidwall/gjson"

	"trail/core/errs"
)

// A request longer than the model's context window is refused in each
// API's own words, and the fix is the same for all: compact the session.
//
//	{"error":{"code":"context_length_exceeded","message":"This model's maximum context length is …"}}  OpenAI
//	"This model's maximum context length is 4096 tokens. However, you requested …"                   vLLM
//	{"type":"error","error":{"type":"invalid_request_error","message":"prompt is too long: …"}}      Anthropic
//	{"error":{"type":"exceed_context_size_error","message":"request (…) exceeds the available context size (8192 tokens)…","n_ctx":8192}}  llama-server

// contextFull reads whether an error body says the request did not fit
// the context window, and the window's size when the server stated it
// (llama-server's n_ctx; 0 when none).
func contextFull(body []byte) (full bool, window int64) {
	if !gjson.ValidBytes(body) {
		return false, 0
	}
	v := gjson.ParseBytes(body)
	kind, msg := errorIn(v, 0)
	low := strings.ToLower(msg)
	switch {
	case kind == "exceed_context_size_error":
		return true, max(v.Get("error.n_ctx").Int(), 0)
	case kind == "context_length_exceeded",
		strings.HasPrefix(low, "prompt is too long"),
		strings.Contains(low, "maximum context length is"):
		return true, 0
	}
	return false, 0
}

// markContextFull gives pe the context hint when body says the request
// did not fit.
func markContextFull(pe *errs.ProviderError, body []byte) {
	if full, window := contextFull(body); full {
		pe.ContextFull, pe.ContextWindow = true, window
		pe.Fix = errs.ContextFullFix("", window)
	}
}
