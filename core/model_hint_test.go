package core

import (
	"testing"

	"trail/core/errs"
	"trail/core/provider"
)

func TestAModelNotFoundNamesTheSettingsFile(t *testing.T) {
	const generic = "check --model and --base-url"
	tests := []struct {
		name    string
		cfg     provider.Config
		pe      errs.ProviderError
		wantFix string
	}{
		{"anthropic's 404 for a model a file named", provider.Config{Model: "claude-x", ModelFrom: "/p/.claude/settings.json"},
			errs.ProviderError{Status: 404, Message: "not_found_error: model: claude-x", Fix: generic},
			`the model "claude-x" comes from "model" in /p/.claude/settings.json: set a model id the server knows there, or pass --model`},
		{"an alias's id says what it was resolved from", provider.Config{Model: "claude-opus-5", ModelAsWritten: "opus", ModelFrom: "/u/.claude/settings.json"},
			errs.ProviderError{Status: 404, Message: "model: claude-opus-5", Fix: generic},
			`the model "claude-opus-5" (resolved from "opus") comes from "model" in /u/.claude/settings.json: set a model id the server knows there, or pass --model`},
		{"a 400 saying the model does not exist", provider.Config{Model: "m", ModelFrom: "/s.json"},
			errs.ProviderError{Status: 400, Message: "The model `m` does not exist", Fix: generic},
			`the model "m" comes from "model" in /s.json: set a model id the server knows there, or pass --model`},
		{"a 404 about something else is a base URL", provider.Config{Model: "m", ModelFrom: "/s.json"},
			errs.ProviderError{Status: 404, Message: "404 page not found", Fix: generic}, generic},
		{"a model from the command line keeps the generic hint", provider.Config{Model: "m"},
			errs.ProviderError{Status: 404, Message: "model: m", Fix: generic}, generic},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := &session{pcfg: tt.cfg}
			pe := tt.pe
			s.nameModelSource(&pe)
			if pe.Fix != tt.wantFix {
				t.Errorf("hint = %q\nwant   %q", pe.Fix, tt.wantFix)
			}
		})
	}
}
