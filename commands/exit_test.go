package commands

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"trail/core"
	"trail/core/errs"
	"trail/logfmt"
	"trail/store"
)

// The exit-code table of SPEC 1.1 is frozen: each row is a promise to scripts.
func TestExitCodeTable(t *testing.T) {
	wrap := func(err error) error { return fmt.Errorf("load session x: %w", err) }
	tests := []struct {
		name string
		err  error
		want int
	}{
		{"success", nil, 0},
		{"an I/O error is a failure", errors.New("write record: no space left on device"), 1},
		{"a hook blocking the prompt is a failure", &errs.HookBlockedError{Event: "UserPromptSubmit", Reason: "no"}, 1},
		{"a usage error", errs.Usagef("", "no prompt"), 2},
		{"an invalid id", wrap(store.ErrInvalidID), 2},
		{"an unknown session", &errs.NotFoundError{What: "session x not found"}, 3},
		{"an ambiguous prefix", &errs.AmbiguousError{Ref: "abcd", Candidates: []errs.Candidate{{ID: "abcd1"}, {ID: "abcd2"}}}, 3},
		{"a record gone between lookup and load", wrap(store.ErrNotFound), 3},
		{"a paused session", &errs.RequiresActionError{SessionID: "x"}, 4},
		{"a busy session", wrap(&store.BusyError{ID: "x"}), 5},
		{"a provider failure", wrap(&errs.ProviderError{Provider: "anthropic", Status: 529, Message: "overloaded"}), 6},
		{"a corrupt record", wrap(&store.CorruptError{Path: "/h/sessions/x.json", Offset: 10, Err: errors.New("eof")}), 7},
		{"a settings file that does not parse", &errs.InvalidDataError{Path: "s.json", Err: errors.New("bad")}, 7},
		{"a record or lock that is a link", wrap(&store.NotRegularError{Path: "/h/sessions/x.json", Kind: "a symbolic link"}), 7},
		{"a log or payload folder that is a link", fmt.Errorf("open log: %w", &logfmt.NotRegularError{Path: "/h/logs/x.jsonl", Kind: "a symbolic link", Want: "a regular file"}), 7},
		{"an interrupt", wrap(errs.ErrInterrupted), 130},
		{"an interrupted wait for a lock", wrap(errs.Interrupted(context.Canceled, "waiting for session x")), 130},
		{"a signal's cancelled context, however wrapped", wrap(fmt.Errorf("lock session x: %w", context.Canceled)), 130},
		{"a prompt over the context window is a usage error", core.PromptTooLarge(300_000, 200_000, true), 2},
		{"an already reported failure keeps its code", &exitError{code: 7}, 7},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := ExitCode(tt.err); got != tt.want {
				t.Fatalf("ExitCode(%v) = %d, want %d", tt.err, got, tt.want)
			}
		})
	}
}

func TestReportErrorIsOneLineAndAHint(t *testing.T) {
	var buf bytes.Buffer
	reportError(&buf, &errs.UsageError{Msg: "no prompt\nsecond line", Fix: "give one"}, time.Time{})
	if got, want := buf.String(), "trail: no prompt second line\nhint: give one\n"; got != want {
		t.Fatalf("got %q, want %q", got, want)
	}
	buf.Reset()
	reportError(&buf, fmt.Errorf("resume: %w", &store.CorruptError{Path: "/h/sessions/abc.json", Offset: 3, Err: errors.New("unexpected end")}), time.Time{})
	if !bytes.Contains(buf.Bytes(), []byte("hint: the record was left untouched; rebuild it from the log with: trail replay abc --write-record")) {
		t.Fatalf("corrupt record hint missing: %q", buf.String())
	}
}

func TestMainMapsUsageErrorsToTwoWithoutHelpOnStdout(t *testing.T) {
	ios, _, out, errOut := TestIO()
	d := testDeps(t, ios)
	code := Main(context.Background(), []string{"trail", "list", "--frob"}, d)
	if code != ExitUsage {
		t.Fatalf("exit %d, want 2; stderr %q", code, errOut)
	}
	if out.Len() != 0 {
		t.Fatalf("usage error wrote to stdout: %q", out)
	}
	if errOut.String() != "trail: unknown option --frob\nhint: see trail list --help\n" {
		t.Fatalf("stderr = %q", errOut)
	}
}

func TestUsageErrorsNameTheHelpToRead(t *testing.T) {
	for _, tt := range []struct {
		args       []string
		wantStderr string
	}{
		{[]string{"--frob"}, "trail: unknown option --frob\nhint: see trail --help\n"},
		{[]string{"run", "-o"}, "trail: -o needs a value\nhint: see trail run --help\n"},
		{[]string{"run", "hi", "--home"}, "trail: --home needs a value\nhint: see trail --help\n"},
	} {
		ios, _, _, errOut := TestIO()
		if code := Main(context.Background(), append([]string{"trail"}, tt.args...), testDeps(t, ios)); code != ExitUsage {
			t.Errorf("%v: exit %d, want 2", tt.args, code)
		}
		if errOut.String() != tt.wantStderr {
			t.Errorf("%v: stderr %q, want %q", tt.args, errOut, tt.wantStderr)
		}
	}
}
