package core

import (
	"strings"
	"testing"

	"trail/core/chat"
	"trail/core/errs"
	"trail/core/provider"
	"trail/core/settings"
)

func TestThousands(t *testing.T) {
	for n, want := range map[int64]string{0: "0", 999: "999", 1000: "1,000", 200_000: "200,000", 1_234_567: "1,234,567", -4500: "-4,500"} {
		if got := Thousands(n); got != want {
			t.Errorf("Thousands(%d) = %q, want %q", n, got, want)
		}
	}
}

func TestInputWindowKnowsTheModelBeforeTheSessionIsLoaded(t *testing.T) {
	noEnv := func(string) string { return "" }
	tests := []struct {
		name      string
		opts      StepOptions
		want      int64
		wantExact bool
	}{
		{"--context-window wins", StepOptions{ContextWindow: 1000, Provider: provider.Flags{Name: provider.OpenAI, Model: "gpt-4.1"}}, 1000, true},
		{"run: the flags' model", StepOptions{Provider: provider.Flags{Name: provider.Echo, Model: "gpt-4o"}}, 128_000, true},
		{"run: the settings' model", StepOptions{Provider: provider.Flags{Name: provider.Echo}, Settings: &settings.Settings{Model: "gpt-4.1"}}, 1_047_576, true},
		{"run: the provider's default model", StepOptions{Provider: provider.Flags{Name: provider.Echo}}, chat.DefaultContextWindow, true},
		{"run without a provider: the widest bound", StepOptions{}, chat.MaxContextWindow(), false},
		{"resume with -m", StepOptions{Resume: true, Provider: provider.Flags{Model: "gpt-4o"}}, 128_000, true},
		{"resume: the stored model is not known yet", StepOptions{Resume: true}, chat.MaxContextWindow(), false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, exact := InputWindow(&tt.opts, noEnv)
			if got != tt.want || exact != tt.wantExact {
				t.Errorf("InputWindow = %d, %v; want %d, %v", got, exact, tt.want, tt.wantExact)
			}
		})
	}
	if chat.MaxContextWindow() < 1_047_576 {
		t.Errorf("MaxContextWindow = %d", chat.MaxContextWindow())
	}
}

func TestCheckPromptSizeUsesTheEstimator(t *testing.T) {
	s := &session{opts: &StepOptions{ContextWindow: 100}, pcfg: provider.Config{Model: "echo"}}
	// 100 tokens hold about 400 bytes of JSON, the message's fields included.
	s.opts.Prompt = strings.Repeat("a", 200)
	if err := s.checkPromptSize(); err != nil {
		t.Errorf("200 bytes in a 100-token window: %v", err)
	}
	s.opts.Prompt = strings.Repeat("a", 400)
	err := s.checkPromptSize()
	if err == nil || !strings.HasPrefix(err.Error(), "prompt too large: ~1") || !strings.HasSuffix(err.Error(), "tokens, the model's context window is 100") {
		t.Fatalf("400 bytes in a 100-token window: %v", err)
	}
	if _, ok := err.(*errs.UsageError); !ok {
		t.Errorf("%T is not a usage error (exit 2)", err)
	}
	// Control characters take six bytes each in JSON: 100 of them are ~150 tokens.
	s.opts.Prompt = strings.Repeat("\x01", 100)
	if err := s.checkPromptSize(); err == nil {
		t.Error("100 control characters (600 bytes of JSON) fit a 100-token window")
	}
}
