package core

import (
	"fmt"
	"net/http"
	"strings"

	"trail/core/errs"
)

// nameModelSource makes the hint of a provider error that says the model
// does not exist name where the model came from, when a settings file
// named it: the flag the generic hint suggests is not where the mistake is.
func (s *session) nameModelSource(pe *errs.ProviderError) {
	c := s.pcfg
	if c.ModelFrom == "" || !modelNotFound(pe) {
		return
	}
	written := fmt.Sprintf("%q", c.Model)
	if c.ModelAsWritten != "" {
		written = fmt.Sprintf("%q (resolved from %q)", c.Model, c.ModelAsWritten)
	}
	pe.Fix = fmt.Sprintf("the model %s comes from \"model\" in %s: set a model id the server knows there, or pass --model", written, c.ModelFrom)
}

// modelNotFound reports whether pe is a server refusing the model: a 404
// or 400 whose message is about the model (Anthropic's not_found_error
// "model: opus", OpenAI's and vLLM's "The model `x` does not exist",
// Ollama's "model 'x' not found"). A 404 about anything else is most
// often a wrong base URL, which the generic hint covers.
func modelNotFound(pe *errs.ProviderError) bool {
	m := strings.ToLower(pe.Message)
	if !strings.Contains(m, "model") {
		return false
	}
	switch pe.Status {
	case http.StatusNotFound:
		return true
	case http.StatusBadRequest:
		return strings.Contains(m, "not found") || strings.Contains(m, "does not exist")
	}
	return false
}
