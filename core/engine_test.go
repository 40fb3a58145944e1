package core

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"trail/core/chat"
	"trail/core/errs"
	"trail/core/permission"
	"trail/core/provider"
	"trail/core/tools"
	"trail/logfmt"
	"trail/store"
)

// fakeProvider answers with a function of the request.
type fakeProvider struct {
	call func(ctx context.Context, req *provider.Request, sink provider.Sink) (*provider.Response, error)
	reqs []*provider.Request
}

func (*fakeProvider) Name() string       { return "fake" }
func (*fakeProvider) APISurface() string { return "fake" }
func (f *fakeProvider) Call(ctx context.Context, req *provider.Request, sink provider.Sink) (*provider.Response, error) {
	f.reqs = append(f.reqs, req)
	return f.call(ctx, req, sink)
}

type fixedClock struct{ t time.Time }

func (c *fixedClock) Now() time.Time { c.t = c.t.Add(time.Millisecond); return c.t }

func testEngine(t *testing.T, p *fakeProvider) (*Engine, *store.FS) {
	t.Helper()
	st := store.New(filepath.Join(t.TempDir(), "home"))
	n := 0
	return &Engine{
		Store: st,
		OpenLog: func(id string, secrets []string) (Logger, error) {
			return logfmt.OpenWriter(st.LogPath(id), logfmt.Options{SessionID: id, Secrets: secrets})
		},
		NewProvider: func(provider.Config) (provider.Provider, error) { return p, nil },
		Clock:       &fixedClock{t: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)},
		NewID:       func() (string, error) { n++; return fmt.Sprintf("id-%03d", n), nil },
		Env:         func(string) string { return "" },
	}, st
}

func events(t *testing.T, st *store.FS, id string) []map[string]any {
	t.Helper()
	b, err := os.ReadFile(st.LogPath(id))
	if err != nil {
		t.Fatal(err)
	}
	var out []map[string]any
	for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		var m map[string]any
		if err := json.Unmarshal([]byte(line), &m); err != nil {
			t.Fatalf("log line: %v", err)
		}
		out = append(out, m)
	}
	return out
}

// every provider_request must be paired with a native payload, a raw and a
// normalized response, so the log validates whatever happened.
func assertPaired(t *testing.T, evs []map[string]any) {
	t.Helper()
	seen := map[string]map[string]bool{}
	for _, e := range evs {
		ev, _ := e["event"].(string)
		if !strings.HasPrefix(ev, "provider_") || ev == "provider_retry" || ev == "provider_stream_raw_delta" {
			continue
		}
		key := fmt.Sprintf("%v:%v", e["executionId"], e["round"])
		if seen[key] == nil {
			seen[key] = map[string]bool{}
		}
		if ev == "provider_native_raw_payload" && e["payloadKind"] == "request" {
			continue
		}
		seen[key][ev] = true
	}
	for key, got := range seen {
		for _, want := range []string{"provider_request", "provider_native_raw_payload", "provider_response_raw", "provider_response_normalized"} {
			if !got[want] {
				t.Errorf("request %s has no %s", key, want)
			}
		}
	}
}

// A provider failure keeps what the user saw: text that streamed before it
// is committed as an interrupted answer (as on Ctrl-C), nothing else of the
// round is; the step still fails with the provider's error.
func TestProviderFailureKeepsOnlyTheTextShown(t *testing.T) {
	for _, tt := range []struct {
		name     string
		streamed string
	}{
		{"after text streamed", "half an ans"},
		{"before any text", ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			p := &fakeProvider{call: func(_ context.Context, _ *provider.Request, sink provider.Sink) (*provider.Response, error) {
				sink.TextDelta(tt.streamed)
				sink.ToolCallStarted(0, "call_1", "Bash")
				return nil, &errs.ProviderError{Provider: "fake", Status: 500, Message: "boom"}
			}}
			e, st := testEngine(t, p)
			res, err := e.Step(context.Background(), StepOptions{Prompt: "hi", Cwd: "/w", Provider: provider.Flags{Name: "echo"}})
			var pe *errs.ProviderError
			if !errors.As(err, &pe) {
				t.Fatalf("err = %v", err)
			}
			if res == nil || res.Subtype != SubtypeError || !res.IsError || res.Text != tt.streamed {
				t.Fatalf("result = %+v", res)
			}
			rec, err := st.Load(res.SessionID)
			if err != nil {
				t.Fatal(err)
			}
			want := 2
			if tt.streamed != "" {
				want = 3
			}
			if len(rec.Messages) != want || rec.StopReason != StopError || rec.Status != StatusIdle {
				t.Fatalf("record: %d messages, stop %q status %q", len(rec.Messages), rec.StopReason, rec.Status)
			}
			if tt.streamed != "" {
				m, err := chat.DecodeMessage(rec.Messages[2])
				if err != nil || m.Role != chat.RoleAssistant || m.State != chat.StateInterrupted || m.Content != tt.streamed || len(m.ToolCalls) != 0 {
					t.Fatalf("saved answer = %+v, %v", m, err)
				}
			}
			evs := events(t, st, res.SessionID)
			assertPaired(t, evs)
			last := evs[len(evs)-1]
			if last["event"] != "session_shutdown" {
				t.Fatalf("last event = %v", last["event"])
			}
			var sawError bool
			mutations := 0
			for _, ev := range evs {
				if ev["event"] == "error" && strings.Contains(ev["message"].(string), "boom") {
					sawError = true
				}
				if ev["event"] == "history_mutation" {
					mutations++
				}
			}
			if !sawError {
				t.Fatal("no error event")
			}
			if mutations != want {
				t.Errorf("%d history_mutation lines for %d messages", mutations, want)
			}
		})
	}
}

func TestInterruptCommitsThePartialAnswer(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	p := &fakeProvider{call: func(ctx context.Context, _ *provider.Request, sink provider.Sink) (*provider.Response, error) {
		sink.TextDelta("partial ")
		sink.TextDelta("text")
		cancel()
		<-ctx.Done()
		return nil, ctx.Err()
	}}
	e, st := testEngine(t, p)
	res, err := e.Step(ctx, StepOptions{Prompt: "hi", Cwd: "/w", Provider: provider.Flags{Name: "echo"}})
	if !errors.Is(err, errs.ErrInterrupted) || res.Subtype != SubtypeInterrupted {
		t.Fatalf("err = %v, res = %+v", err, res)
	}
	rec, err := st.Load(res.SessionID)
	if err != nil {
		t.Fatal(err)
	}
	last, _ := chat.DecodeMessage(rec.Messages[len(rec.Messages)-1])
	if last.Role != chat.RoleAssistant || last.State != chat.StateInterrupted || last.Content != "partial text" || rec.StopReason != StopInterrupted {
		t.Fatalf("last message %+v, stop %q", last, rec.StopReason)
	}
	assertPaired(t, events(t, st, res.SessionID))

	// the next step sends the interrupted note
	p.call = func(_ context.Context, req *provider.Request, _ provider.Sink) (*provider.Response, error) {
		return &provider.Response{Text: "ok"}, nil
	}
	if _, err := e.Step(context.Background(), StepOptions{Resume: true, Ref: SessionRef{Ref: res.SessionID}, Prompt: "go on", Cwd: "/w"}); err != nil {
		t.Fatal(err)
	}
	sent := p.reqs[len(p.reqs)-1].Messages
	var found bool
	for _, m := range sent {
		if m.Role == chat.RoleAssistant && m.Content == "partial text"+chat.InterruptedNote {
			found = true
		}
	}
	if !found {
		t.Fatalf("the interrupted note was not sent: %+v", sent)
	}
	rec, _ = st.Load(res.SessionID)
	stored, _ := chat.DecodeMessage(rec.Messages[2])
	if stored.Content != "partial text" {
		t.Fatalf("the note must not be stored: %q", stored.Content)
	}
}

func TestUnknownToolGetsAFailedResultAndTheLoopGoesOn(t *testing.T) {
	calls := 0
	p := &fakeProvider{call: func(_ context.Context, req *provider.Request, _ provider.Sink) (*provider.Response, error) {
		calls++
		if calls == 1 {
			return &provider.Response{ToolCalls: []chat.ToolCall{{ID: "c1", Name: "Teleport", Arguments: `{"to":"mars"}`}}}, nil
		}
		return &provider.Response{Text: "done"}, nil
	}}
	e, st := testEngine(t, p)
	res, err := e.Step(context.Background(), StepOptions{Prompt: "go", Cwd: "/w", Provider: provider.Flags{Name: "echo"}})
	if err != nil || res.Text != "done" || res.NumTurns != 2 {
		t.Fatalf("res %+v err %v", res, err)
	}
	rec, _ := st.Load(res.SessionID)
	tool, _ := chat.DecodeMessage(rec.Messages[3])
	if tool.Role != chat.RoleTool || tool.ToolCallID != "c1" || !strings.Contains(tool.Content, `"errorCode":"unknown_tool"`) || !strings.Contains(tool.Content, `"success":false`) {
		t.Fatalf("tool message = %+v", tool)
	}
}

type panickyTool struct{}

func (panickyTool) Schema() chat.ToolSchema { return chat.ToolSchema{Name: "Boom"} }
func (panickyTool) Run(context.Context, json.RawMessage, tools.Env) tools.Result {
	var m map[string]int
	m["x"] = 1 // a bug: writes to a nil map
	return tools.Result{}
}

func TestAToolThatPanicsFailsItsCallNotTheStep(t *testing.T) {
	calls := 0
	p := &fakeProvider{call: func(context.Context, *provider.Request, provider.Sink) (*provider.Response, error) {
		calls++
		if calls == 1 {
			return &provider.Response{ToolCalls: []chat.ToolCall{{ID: "c1", Name: "Boom", Arguments: `{}`}}}, nil
		}
		return &provider.Response{Text: "done"}, nil
	}}
	e, st := testEngine(t, p)
	e.Tools = []tools.Tool{panickyTool{}}
	res, err := e.Step(context.Background(), StepOptions{Prompt: "go", Cwd: "/w", PermissionMode: permission.ModeBypass, Provider: provider.Flags{Name: "echo"}})
	if err != nil || res.Text != "done" {
		t.Fatalf("res %+v err %v", res, err)
	}
	rec, _ := st.Load(res.SessionID)
	tool, _ := chat.DecodeMessage(rec.Messages[3])
	if tool.ToolCallID != "c1" || !strings.Contains(tool.Content, "internal error in Boom") {
		t.Fatalf("tool message = %+v", tool)
	}
}

func TestMaxTurnsStopsTheLoop(t *testing.T) {
	p := &fakeProvider{call: func(context.Context, *provider.Request, provider.Sink) (*provider.Response, error) {
		return &provider.Response{ToolCalls: []chat.ToolCall{{ID: "c", Name: "Nope", Arguments: `{}`}}}, nil
	}}
	e, st := testEngine(t, p)
	res, err := e.Step(context.Background(), StepOptions{Prompt: "go", Cwd: "/w", MaxTurns: 2, Provider: provider.Flags{Name: "echo"}})
	if err != nil || res.Subtype != SubtypeMaxTurns || res.NumTurns != 2 {
		t.Fatalf("res %+v err %v", res, err)
	}
	rec, _ := st.Load(res.SessionID)
	if rec.StopReason != StopMaxTurns || len(rec.Messages) != 6 {
		t.Fatalf("stop %q, %d messages", rec.StopReason, len(rec.Messages))
	}
}
