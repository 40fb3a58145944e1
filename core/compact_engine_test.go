package core

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/tidwall/gjson"

	"trail/core/chat"
	"trail/core/errs"
	"trail/core/provider"
	"trail/core/settings"
)

func (b *bench) compact(id string, keepLast int, instructions string) (*CompactResult, error) {
	b.t.Helper()
	return b.e.Compact(context.Background(), CompactOptions{Step: b.opts([]func(*StepOptions){func(o *StepOptions) {
		o.Ref = SessionRef{Ref: id, Cwd: b.cwd}
	}}), KeepLast: keepLast, Instructions: instructions})
}

// twoTurns is a session of two prompts, the second with a tool round:
// system user assistant user assistant(call) tool assistant.
func twoTurns(t *testing.T) (*bench, string) {
	b := newBench(t, say("first answer"), use(call("call_1", "Read", "filePath", "x.txt")), say("second answer"))
	id := b.mustRun("first")
	if _, err := b.resume(id, "second"); err != nil {
		t.Fatal(err)
	}
	b.wantRoles(id, "system user assistant user assistant tool assistant")
	return b, id
}

// trail compact: the conversation becomes [system, summary]; the log
// keeps everything and replays to the new list.
func TestCompactReplacesTheConversationWithASummary(t *testing.T) {
	b, id := twoTurns(t)
	b.p.then(say("  the summary  "))
	res, err := b.compact(id, 0, "focus on files")
	if err != nil {
		t.Fatal(err)
	}
	// Before: the last answer's usage (Robota's estimator); after: the
	// serialized length of what is left.
	if res.Summary != "the summary" || res.SessionID != id || res.Before.UsedTokens != 15 || res.After.UsedTokens == 15 || res.After.MaxTokens != chat.DefaultContextWindow {
		t.Fatalf("result %+v", res)
	}
	msgs := b.messages(id)
	if len(msgs) != 2 || msgs[0].Role != chat.RoleSystem || msgs[1].Content != SummaryPrefix+"the summary" {
		t.Fatalf("messages %+v", msgs)
	}
	// The summary request is one user message holding the conversation.
	req := b.p.reqs[len(b.p.reqs)-1]
	if len(req.Messages) != 1 || !strings.Contains(req.Messages[0].Content, "Additional focus:\nfocus on files") ||
		!strings.Contains(req.Messages[0].Content, "user: second") || len(req.Tools) != 0 {
		t.Fatalf("summary request %+v", req)
	}
	if n := len(b.logEvents(id, "context_compact")); n != 1 {
		t.Fatalf("%d context_compact lines", n)
	}
	rec := b.record(id)
	if !bytes.Contains(rec.History[len(rec.History)-2], []byte(`"compaction"`)) {
		t.Fatalf("no compaction history entry: %s", rec.History[len(rec.History)-2])
	}
	if rec.Usage == nil || rec.Usage.InputTokens != 30 {
		t.Fatalf("usage %+v: the summary's tokens are counted", rec.Usage)
	}
	b.consistent(id)
	// The next step starts from the summary.
	b.p.then(say("after"))
	if _, err := b.resume(id, "go on"); err != nil {
		t.Fatal(err)
	}
	b.wantRoles(id, "system assistant user assistant")
	b.consistent(id)
}

// --keep-last keeps the tail, never starting it with a tool result whose
// call would be summarised away.
func TestCompactKeepsTheTailWithItsToolCall(t *testing.T) {
	b, id := twoTurns(t)
	b.p.then(say("sum"))
	if _, err := b.compact(id, 2, ""); err != nil {
		t.Fatal(err)
	}
	b.wantRoles(id, "system assistant assistant tool assistant")
	b.consistent(id)
}

// The kept messages' usage measured the context the compaction replaced:
// the estimate after --keep-last is the new context's, not the old one's
// again, and the next answer's usage counts once it comes.
func TestCompactKeepLastEstimatesTheNewContext(t *testing.T) {
	b, id := twoTurns(t)
	b.p.then(say("sum"))
	res, err := b.compact(id, 2, "")
	if err != nil {
		t.Fatal(err)
	}
	want := chat.EstimateTokens(b.messages(id)[:2]) // the system message and the summary alone: no usage
	if res.Before.UsedTokens != 15 || res.After.UsedTokens == res.Before.UsedTokens || res.After.UsedTokens < want {
		t.Fatalf("before %d, after %d (the summary alone estimates %d)", res.Before.UsedTokens, res.After.UsedTokens, want)
	}
	msgs := b.messages(id)
	if got := gjson.GetBytes(msgs[1].Metadata, "compaction.keptMessages").Int(); got != 3 {
		t.Errorf("summary metadata %s, want keptMessages 3", msgs[1].Metadata)
	}
	b.p.then(say("after"))
	if _, err := b.resume(id, "go on"); err != nil {
		t.Fatal(err)
	}
	if got := chat.EstimateTokens(b.messages(id)); got != 15 {
		t.Errorf("after the next answer the estimate is %d, want its usage 15", got)
	}
	b.consistent(id)
}

// A compaction that cannot be done leaves the record as it was.
func TestCompactFailuresLeaveTheRecord(t *testing.T) {
	tests := []struct {
		name     string
		answer   answer
		keepLast int
		hooks    map[string][]settings.HookMatcher
		check    func(t *testing.T, err error)
	}{
		{"nothing a summary would replace", nil, 50, nil, func(t *testing.T, err error) {
			if !errors.Is(err, ErrNothingToCompact) {
				t.Fatalf("err = %v", err)
			}
		}},
		{"an empty summary", say(" \n"), 0, nil, func(t *testing.T, err error) {
			var pe *errs.ProviderError
			if !errors.As(err, &pe) || !strings.Contains(err.Error(), "came back empty") {
				t.Fatalf("err = %v", err)
			}
		}},
		{"the provider fails", fail(&errs.ProviderError{Provider: "scripted", Status: 529, Message: "overloaded"}), 0, nil, func(t *testing.T, err error) {
			var pe *errs.ProviderError
			if !errors.As(err, &pe) || pe.Status != 529 {
				t.Fatalf("err = %v", err)
			}
		}},
		{"a PreCompact hook blocks", nil, 0, map[string][]settings.HookMatcher{
			"PreCompact": {{Hooks: []settings.HookCommand{{Type: "command", Command: "echo not now >&2; exit 2"}}}},
		}, func(t *testing.T, err error) {
			var hb *errs.HookBlockedError
			if !errors.As(err, &hb) || hb.Event != "PreCompact" || hb.Reason != "not now" {
				t.Fatalf("err = %v", err)
			}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b, id := twoTurns(t)
			b.settings.Hooks = tt.hooks
			if tt.answer != nil {
				b.p.then(tt.answer)
			}
			before := b.recordBytes(id)
			_, err := b.compact(id, tt.keepLast, "")
			tt.check(t, err)
			if !bytes.Equal(b.recordBytes(id), before) {
				t.Fatal("the record changed")
			}
			b.consistent(id)
		})
	}
}

func TestCompactRefusesAPausedSessionAndANegativeKeepLast(t *testing.T) {
	b := newBench(t, use(call("call_1", "Bash", "command", "true")))
	id := b.mustRunPaused("go")
	var ra *errs.RequiresActionError
	if _, err := b.compact(id, 0, ""); !errors.As(err, &ra) {
		t.Fatalf("paused: err = %v", err)
	}
	var ue *errs.UsageError
	if _, err := b.compact(id, -1, ""); !errors.As(err, &ue) {
		t.Fatalf("--keep-last -1: err = %v", err)
	}
}

// A prompt that finds the context fuller than the threshold compacts
// first; the record says so before the prompt's first call.
func TestAutoCompactionRunsBeforeThePrompt(t *testing.T) {
	b, id := twoTurns(t)
	b.p.then(say("sum"), say("fresh answer"))
	res, err := b.resume(id, "third", func(o *StepOptions) { o.AutoCompact = 0.0001 })
	if err != nil {
		t.Fatal(err)
	}
	if res.Text != "fresh answer" || !b.saw(EvCompacted, "sum") {
		t.Fatalf("result %+v", res)
	}
	b.wantRoles(id, "system assistant user assistant")
	if ev := b.logEvents(id, "context_compact"); len(ev) != 1 || ev[0]["trigger"] != TriggerAuto {
		t.Fatalf("context_compact %v", ev)
	}
	b.consistent(id)
}

// A failed auto-compaction is a warning: the prompt runs on the whole
// conversation.
func TestAutoCompactionFailureStillRunsThePrompt(t *testing.T) {
	b, id := twoTurns(t)
	b.p.then(fail(&errs.ProviderError{Provider: "scripted", Message: "down"}), say("answer anyway"))
	res, err := b.resume(id, "third", func(o *StepOptions) { o.AutoCompact = 0.0001 })
	if err != nil || res.Text != "answer anyway" {
		t.Fatalf("res %+v err %v", res, err)
	}
	if !b.saw(EvWarning, "auto-compaction failed") {
		t.Fatal("no warning")
	}
	b.wantRoles(id, "system user assistant user assistant tool assistant user assistant")
	b.consistent(id)
}

// The settings' threshold applies when no flag is given, and their false
// turns compaction off.
func TestAutoCompactionFollowsTheSettings(t *testing.T) {
	low := 0.0001
	for _, tt := range []struct {
		name  string
		s     settings.Settings
		calls int // provider calls the prompt makes
	}{
		{"a threshold", settings.Settings{AutoCompactThreshold: &low}, 2},
		{"false", settings.Settings{AutoCompactOff: true}, 1},
	} {
		t.Run(tt.name, func(t *testing.T) {
			b, id := twoTurns(t)
			*b.settings = tt.s
			before := len(b.p.reqs)
			b.p.then(say("a"), say("b"))
			if _, err := b.resume(id, "third"); err != nil {
				t.Fatal(err)
			}
			if n := len(b.p.reqs) - before; n != tt.calls {
				t.Fatalf("%d provider calls, want %d", n, tt.calls)
			}
		})
	}
}

// The compaction's own call is not the answer: its text never streams to
// the user.
func TestCompactionTextIsNotShownAsTheAnswer(t *testing.T) {
	b, id := twoTurns(t)
	b.p.then(func(_ context.Context, _ *provider.Request, sink provider.Sink) (*provider.Response, error) {
		sink.TextDelta("secret summary")
		return &provider.Response{Text: "secret summary"}, nil
	})
	b.events = nil
	if _, err := b.compact(id, 0, ""); err != nil {
		t.Fatal(err)
	}
	for _, e := range b.events {
		if e.Kind == EvTextDelta {
			t.Fatalf("summary streamed as answer text: %+v", e)
		}
	}
}
