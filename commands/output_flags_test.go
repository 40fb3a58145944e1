package commands

import (
	"context"
	"strings"
	"testing"
)

// --thinking takes its value only when it is a number right after it or
// after "=": a prompt after it stays the prompt.
func TestThinkingTakesAnOptionalValue(t *testing.T) {
	tests := []struct {
		args, want, prompt string
		wantErr            string
	}{
		{"trail run --thinking explain this", "on", "explain this", ""},
		{"trail run explain this --thinking", "on", "explain this", ""},
		{"trail run --thinking 8000 explain", "8000", "explain", ""},
		{"trail run --thinking=8000 explain", "8000", "explain", ""},
		{"trail run --thinking=off explain", "off", "explain", ""},
		{"trail run explain", "", "explain", ""},
		{"trail run --thinking -- 8000", "on", "8000", ""},
		{"trail run --thinking=lots explain", "", "", `invalid value "lots" for --thinking`},
	}
	for _, tt := range tests {
		t.Run(tt.args, func(t *testing.T) {
			ios, _, _, _ := TestIO()
			d := testDeps(t, ios)
			var got *RunOptions
			app := newApp(d, "")
			for _, c := range app.Commands {
				if c.Name == "run" {
					*c = *newRunCmd(d, func(_ context.Context, o *RunOptions) error { got = o; return nil })
					c.OnUsageError = onUsageError
				}
			}
			args := strings.Fields(tt.args)
			args, _, err := reorderArgs(app, joinOptionalValues(args))
			if err == nil {
				err = app.Run(args)
			}
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err = %v, want %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got.Step.Thinking != tt.want || strings.Join(got.Args, " ") != tt.prompt {
				t.Errorf("thinking %q, prompt %q; want %q and %q", got.Step.Thinking, got.Args, tt.want, tt.prompt)
			}
		})
	}
}

func TestMaxTokensMustBePositive(t *testing.T) {
	ios, _, _, errOut := TestIO()
	d := testDeps(t, ios)
	if code := Main(context.Background(), strings.Fields("trail run --provider echo --max-tokens 0 hi"), d); code != ExitUsage ||
		!strings.Contains(errOut.String(), "--max-tokens must be 1 or more") {
		t.Errorf("exit %d, stderr %q", code, errOut.String())
	}
}
