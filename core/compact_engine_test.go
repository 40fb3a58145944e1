package core

import (
	"bytes"
	"context"
	"errors"
	"fmt"
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

// A compaction that cannot be done leaves the conversation as it was; a
// provider call it made is counted.
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
			after := b.recordBytes(id)
			for _, k := range []string{"messages", "history", "status", "stopReason", "name"} {
				if gjson.GetBytes(after, k).Raw != gjson.GetBytes(before, k).Raw {
					t.Errorf("the record's %s changed", k)
				}
			}
			// a call made is counted (SPEC 4.4), and only then is the record saved
			calls := gjson.GetBytes(before, "providerCalls").Int()
			if tt.answer != nil {
				calls++
			}
			if got := gjson.GetBytes(after, "providerCalls").Int(); got != calls {
				t.Errorf("providerCalls = %d, want %d", got, calls)
			}
			if tt.answer == nil && !bytes.Equal(after, before) {
				t.Error("the record was saved with no provider call made")
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

// A session that outgrew the window in one tool loop (the prompt, then
// round after round, then "prompt is too long") is compacted: the rounds
// are summarised, the prompt is kept after the summary with the last
// keepLast messages, and a resume without a prompt goes on with the task.
// Before, the whole owed turn was kept and there was "nothing to compact".
func TestCompactSummarisesTheToolRoundsOfAnUnansweredTurn(t *testing.T) {
	for _, tt := range []struct {
		keepLast int
		roles    string
	}{
		{0, "system assistant user"},
		{2, "system assistant user assistant tool"},
		{3, "system assistant user assistant tool assistant tool"}, // a result is never kept without its call
		{4, "system assistant user assistant tool assistant tool"},
	} {
		t.Run(fmt.Sprint("keep ", tt.keepLast), func(t *testing.T) {
			b := newBench(t, use(call("call_1", "Read", "filePath", "x.txt")), use(call("call_2", "Read", "filePath", "x.txt")),
				use(call("call_3", "Read", "filePath", "x.txt")), fail(&errs.ProviderError{Provider: "scripted", Status: 400, Message: "prompt is too long"}))
			if _, err := b.run("refactor everything"); err == nil {
				t.Fatal("the run did not fail")
			}
			ids, err := b.st.IDs()
			if err != nil || len(ids) != 1 {
				t.Fatalf("sessions %v %v", ids, err)
			}
			id := ids[0]
			b.wantRoles(id, "system user assistant tool assistant tool assistant tool")
			b.p.then(say("the summary"))
			if _, err := b.compact(id, tt.keepLast, ""); err != nil {
				t.Fatal(err)
			}
			b.wantRoles(id, tt.roles)
			msgs := b.messages(id)
			if msgs[2].Content != "refactor everything" {
				t.Errorf("the prompt is not kept after the summary: %+v", msgs[2])
			}
			req := b.p.reqs[len(b.p.reqs)-1]
			if !strings.Contains(req.Messages[0].Content, "user: refactor everything") || !strings.Contains(req.Messages[0].Content, "[tool call Read") {
				t.Errorf("the summary request does not cover the prompt and its rounds:\n%s", req.Messages[0].Content)
			}
			b.consistent(id)
			b.p.then(say("done"))
			if res, err := b.resume(id, ""); err != nil || res.Text != "done" {
				t.Fatalf("resume without a prompt after compacting: %+v %v", res, err)
			}
		})
	}
}

// A summary cut at the output limit, or refused, replaces nothing: the
// step says how it ended (exit 1), as it does for an answer.
func TestACutOrRefusedSummaryReplacesNothing(t *testing.T) {
	for _, tt := range []struct {
		name string
		resp *provider.Response
		want string
	}{
		{"cut", &provider.Response{Text: "Summary: the user asked to refactor; next: 1) rename fo", Stop: provider.StopMaxTokens, StopReason: "max_tokens"}, "hit its output limit"},
		{"refused", &provider.Response{Stop: provider.StopRefusal, StopReason: "refusal", Refusal: "I will not"}, "refused to summarise the conversation: I will not"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			b, id := twoTurns(t)
			before := b.recordBytes(id)
			b.p.then(func(context.Context, *provider.Request, provider.Sink) (*provider.Response, error) {
				return tt.resp, nil
			})
			_, err := b.compact(id, 0, "")
			var fe *errs.FailureError
			if !errors.As(err, &fe) || !strings.Contains(err.Error(), tt.want) || !strings.Contains(err.Error(), "the conversation was left as it was") {
				t.Fatalf("err = %v", err)
			}
			if gjson.GetBytes(b.recordBytes(id), "messages").Raw != gjson.GetBytes(before, "messages").Raw {
				t.Error("the conversation was replaced")
			}
			b.consistent(id)
		})
	}
}

// Instructions longer than half the room the summary request has leave
// no room for the conversation: refused, before any provider call.
func TestCompactRefusesInstructionsThatFillTheWindow(t *testing.T) {
	b, id := twoTurns(t)
	calls := len(b.p.reqs)
	_, err := b.e.Compact(context.Background(), CompactOptions{Step: b.opts([]func(*StepOptions){func(o *StepOptions) {
		o.Ref = SessionRef{Ref: id, Cwd: b.cwd}
		o.ContextWindow = 20000
	}}), Instructions: strings.Repeat("focus on the parser. ", 6000)})
	var ue *errs.UsageError
	if !errors.As(err, &ue) || !strings.Contains(err.Error(), "--instructions takes ~") {
		t.Fatalf("err = %v", err)
	}
	if len(b.p.reqs) != calls {
		t.Error("a provider call was made")
	}
	b.wantRoles(id, "system user assistant user assistant tool assistant")
}
