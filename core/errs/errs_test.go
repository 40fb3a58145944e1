package errs

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
)

// What each error says is what the user reads after "trail: ".
func TestErrorsReadAsOneSentence(t *testing.T) {
	cause := errors.New("bad value")
	tests := []struct {
		name string
		err  error
		want string
	}{
		{"a usage error with a cause", &UsageError{Msg: "--session-id", Err: cause}, "--session-id: bad value"},
		{"a usage error that is only its cause", &UsageError{Err: cause}, "bad value"},
		{"a usage error that is only its message", Usagef("hint", "no prompt"), "no prompt"},
		{"a provider error with a status", &ProviderError{Provider: "anthropic", Status: 429, Message: "rate_limit_error: slow down"}, "anthropic: 429 rate_limit_error: slow down"},
		{"a provider error without one", &ProviderError{Provider: "openai", Message: "connection refused"}, "openai: connection refused"},
		{"a plain-text page that starts with its status", &ProviderError{Provider: "openai", Status: 404, Message: "404 page not found"}, "openai: 404 page not found"},
		{"a message that only starts with digits", &ProviderError{Provider: "openai", Status: 404, Message: "4040 missing"}, "openai: 404 4040 missing"},
		{"invalid data names the file", &InvalidDataError{Path: "/h/s.json", Err: cause}, "/h/s.json: bad value"},
		{"an ambiguous reference is quoted and cut", &AmbiguousError{Ref: strings.Repeat("a", 300), Candidates: []Candidate{{ID: "a1"}, {ID: "a2"}}},
			`session "` + strings.Repeat("a", 200) + `"… (300 bytes) is ambiguous: it matches 2 sessions`},
		{"a paused session names its calls", &RequiresActionError{SessionID: "s1", Pending: []string{"c1 Bash(ls)"}}, "session s1 is waiting for approval of 1 tool call(s): c1 Bash(ls)"},
		{"a hook that blocks without a reason", &HookBlockedError{Event: "Stop"}, "Stop hook blocked the step"},
		{"a hook that gives one", &HookBlockedError{Event: "PreCompact", Reason: "not now"}, "PreCompact hook blocked the step: not now"},
		{"an interrupted wait", &InterruptedError{While: "reading standard input"}, "interrupted while reading standard input"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.err.Error(); got != tt.want {
				t.Errorf("got  %q\nwant %q", got, tt.want)
			}
		})
	}
}

// A retry line names the failure in a few words: provider, status, type.
func TestProviderErrorBrief(t *testing.T) {
	for _, tt := range []struct {
		err  *ProviderError
		want string
	}{
		{&ProviderError{Provider: "anthropic", Status: 429, Type: "rate_limit_error", Message: "long text"}, "anthropic: 429 rate_limit_error"},
		{&ProviderError{Provider: "openai", Type: "timeout", Message: "no data"}, "openai: timeout"},
		{&ProviderError{Provider: "openai", Status: 500, Message: "boom"}, "openai: 500 boom"},
	} {
		if got := tt.err.Brief(); got != tt.want {
			t.Errorf("Brief() = %q, want %q", got, tt.want)
		}
	}
}

// An interrupt is ErrInterrupted however it is wrapped; any other error
// passes through Interrupted untouched.
func TestInterruptedIsErrInterrupted(t *testing.T) {
	err := fmt.Errorf("lock: %w", Interrupted(context.Canceled, "waiting for session s1"))
	var ie *InterruptedError
	if !errors.Is(err, ErrInterrupted) || !errors.As(err, &ie) || ie.While != "waiting for session s1" {
		t.Fatalf("err = %v", err)
	}
	other := errors.New("disk full")
	if got := Interrupted(other, "x"); got != other {
		t.Fatalf("Interrupted changed %v into %v", other, got)
	}
}

func TestHintsGiveTheFix(t *testing.T) {
	for _, h := range []Hinter{
		&UsageError{Fix: "f"}, &NotFoundError{Fix: "f"}, &ProviderError{Fix: "f"}, &InvalidDataError{Fix: "f"},
	} {
		if h.Hint() != "f" {
			t.Errorf("%T: hint %q", h, h.Hint())
		}
	}
	if h := (&RequiresActionError{SessionID: "s1"}).Hint(); h != "approve with: trail resume s1 --approve all (or --deny all)" {
		t.Errorf("requires action hint %q", h)
	}
}
