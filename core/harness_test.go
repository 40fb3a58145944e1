package core

// The engine's test bench: a provider scripted call by call, the real
// store in a temp folder, a clock and ids that only move when asked, the
// real built-in tools in a temp project folder, and an observer that keeps
// every event. Engine behaviour (pause, resume of pending calls,
// compaction, fork, rebuild, interrupt) is tested here, in-process; the
// end-to-end tests keep what only a process shows.

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"trail/core/chat"
	"trail/core/provider"
	"trail/core/settings"
	"trail/core/tools"
	"trail/logfmt"
	"trail/store"
)

// answer is what the scripted provider does for one call.
type answer func(ctx context.Context, req *provider.Request, sink provider.Sink) (*provider.Response, error)

// say answers text, streamed as one delta, with usage.
func say(text string) answer {
	return func(_ context.Context, _ *provider.Request, sink provider.Sink) (*provider.Response, error) {
		sink.TextDelta(text)
		return &provider.Response{Text: text, Usage: chat.Usage{InputTokens: 10, OutputTokens: 5}, HasUsage: true, StopReason: "end_turn"}, nil
	}
}

// use answers with tool calls, named call_1, call_2, ... in the order given.
func use(calls ...chat.ToolCall) answer {
	return func(_ context.Context, _ *provider.Request, sink provider.Sink) (*provider.Response, error) {
		for i, c := range calls {
			sink.ToolCallStarted(i, c.ID, c.Name)
		}
		return &provider.Response{ToolCalls: calls, StopReason: "tool_use"}, nil
	}
}

// fail answers with err.
func fail(err error) answer {
	return func(context.Context, *provider.Request, provider.Sink) (*provider.Response, error) { return nil, err }
}

// call is a tool call with JSON arguments built from key, value pairs.
func call(id, name string, kv ...string) chat.ToolCall {
	args := map[string]string{}
	for i := 0; i+1 < len(kv); i += 2 {
		args[kv[i]] = kv[i+1]
	}
	b, _ := json.Marshal(args)
	return chat.ToolCall{ID: id, Type: "function", Name: name, Arguments: string(b)}
}

// scripted answers call i with answers[i]; a call past the script fails
// the test. It keeps every request.
type scripted struct {
	t       *testing.T
	mu      sync.Mutex
	answers []answer
	reqs    []*provider.Request
}

func (*scripted) Name() string       { return "scripted" }
func (*scripted) APISurface() string { return "scripted" }
func (p *scripted) Call(ctx context.Context, req *provider.Request, sink provider.Sink) (*provider.Response, error) {
	p.mu.Lock()
	n := len(p.reqs)
	p.reqs = append(p.reqs, req)
	p.mu.Unlock()
	if n >= len(p.answers) {
		p.t.Errorf("provider call %d: the script has %d answers", n+1, len(p.answers))
		return nil, errors.New("script exhausted")
	}
	return p.answers[n](ctx, req, sink)
}

// then adds answers for the calls to come.
func (p *scripted) then(answers ...answer) { p.answers = append(p.answers, answers...) }

// stepClock moves one second each time it is read: durations are exact.
type stepClock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *stepClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(time.Second)
	return c.t
}

type bench struct {
	t      *testing.T
	e      *Engine
	st     *store.FS
	p      *scripted
	cwd    string
	term   *fakeTerminal
	mu     sync.Mutex
	events []StepEvent
	// settings every step of this bench runs with.
	settings *settings.Settings
}

func newBench(t *testing.T, answers ...answer) *bench {
	t.Helper()
	cwd, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	b := &bench{t: t, st: store.New(filepath.Join(t.TempDir(), "home")), p: &scripted{t: t, answers: answers}, cwd: cwd, settings: &settings.Settings{}}
	n := 0
	b.e = &Engine{
		Store: b.st,
		OpenLog: func(id string, secrets []string) (Logger, error) {
			return logfmt.OpenWriter(b.st.LogPath(id), logfmt.Options{SessionID: id, Secrets: secrets})
		},
		NewProvider: func(provider.Config) (provider.Provider, error) { return b.p, nil },
		Clock:       &stepClock{t: time.Date(2026, 11, 21, 12, 0, 0, 0, time.UTC)},
		NewID:       func() (string, error) { n++; return fmt.Sprintf("id-%04d", n), nil },
		Env:         func(string) string { return "" },
		Tools:       tools.All(),
	}
	return b
}

// opts is a step in the bench's folder with the echo provider's name (the
// engine builds the scripted one whatever the name).
func (b *bench) opts(mut []func(*StepOptions)) StepOptions {
	o := StepOptions{Cwd: b.cwd, Provider: provider.Flags{Name: provider.Echo}, Settings: b.settings,
		Observer: ObserverFunc(func(e StepEvent) { b.mu.Lock(); b.events = append(b.events, e); b.mu.Unlock() })}
	for _, m := range mut {
		m(&o)
	}
	return o
}

func (b *bench) run(prompt string, mut ...func(*StepOptions)) (*Result, error) {
	b.t.Helper()
	o := b.opts(mut)
	o.Prompt = prompt
	if b.term != nil {
		b.e.Terminal = b.term
	}
	return b.e.Step(context.Background(), o)
}

func (b *bench) resume(id, prompt string, mut ...func(*StepOptions)) (*Result, error) {
	b.t.Helper()
	o := b.opts(mut)
	o.Resume, o.Ref, o.Prompt = true, SessionRef{Ref: id, Cwd: b.cwd}, prompt
	return b.e.Step(context.Background(), o)
}

// mustRun runs a step that must succeed and returns its session id.
func (b *bench) mustRun(prompt string, mut ...func(*StepOptions)) string {
	b.t.Helper()
	res, err := b.run(prompt, mut...)
	if err != nil {
		b.t.Fatalf("run %q: %v", prompt, err)
	}
	return res.SessionID
}

func (b *bench) record(id string) *store.Record {
	b.t.Helper()
	r, err := b.st.Load(id)
	if err != nil {
		b.t.Fatal(err)
	}
	return r
}

func (b *bench) recordBytes(id string) []byte {
	b.t.Helper()
	raw, err := os.ReadFile(b.st.RecordPath(id))
	if err != nil {
		b.t.Fatal(err)
	}
	return raw
}

func (b *bench) messages(id string) []chat.Message {
	b.t.Helper()
	msgs, err := chat.DecodeMessages(b.record(id).Messages)
	if err != nil {
		b.t.Fatal(err)
	}
	return msgs
}

// roles is the conversation as "system user assistant tool ...".
func (b *bench) roles(id string) string {
	var rs []string
	for _, m := range b.messages(id) {
		rs = append(rs, m.Role)
	}
	return strings.Join(rs, " ")
}

// wantRoles fails the test unless the conversation's roles are want.
func (b *bench) wantRoles(id, want string) {
	b.t.Helper()
	if got := b.roles(id); got != want {
		b.t.Fatalf("messages %s, want %s", got, want)
	}
}

// consistent checks the two invariants every step keeps: the log
// validates, and it replays to the record's messages.
func (b *bench) consistent(id string) {
	b.t.Helper()
	rep, err := logfmt.ValidateFile(b.st.LogPath(id), logfmt.ValidateOptions{})
	if err != nil {
		b.t.Fatal(err)
	}
	if !rep.Valid() {
		b.t.Fatalf("log of %s does not validate: %+v", id, rep.Issues)
	}
	replay, err := logfmt.ReplayFile(b.st.LogPath(id), logfmt.ReplayOptions{SessionID: id})
	if err != nil {
		b.t.Fatal(err)
	}
	rec := b.record(id)
	if len(replay.Messages) != len(rec.Messages) {
		b.t.Fatalf("log replays to %d messages, the record has %d", len(replay.Messages), len(rec.Messages))
	}
	for i := range rec.Messages {
		if !bytes.Equal(replay.Messages[i], chat.CompactBytes(rec.Messages[i])) {
			b.t.Fatalf("message %d:\nlog    %s\nrecord %s", i, replay.Messages[i], chat.CompactBytes(rec.Messages[i]))
		}
	}
}

// logEvents are the log's lines of event, decoded.
func (b *bench) logEvents(id, event string) []map[string]any {
	b.t.Helper()
	var out []map[string]any
	for _, e := range events(b.t, b.st, id) {
		if e["event"] == event {
			out = append(out, e)
		}
	}
	return out
}

// saw reports whether the observer got an event of kind whose text holds s.
func (b *bench) saw(kind StepEventKind, s string) bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	return slices.ContainsFunc(b.events, func(e StepEvent) bool { return e.Kind == kind && strings.Contains(e.Text, s) })
}

// file reads a file of the project folder ("" when it does not exist).
func (b *bench) file(name string) string {
	raw, err := os.ReadFile(filepath.Join(b.cwd, name))
	if err != nil {
		return ""
	}
	return string(raw)
}

// toolContent is the tool message answering call id in the conversation.
func (b *bench) toolContent(id, callID string) string {
	b.t.Helper()
	for _, m := range b.messages(id) {
		if m.Role == chat.RoleTool && m.ToolCallID == callID {
			return m.Content
		}
	}
	b.t.Fatalf("no result for %s", callID)
	return ""
}

func pause(o *StepOptions)                  { o.OnAsk = OnAskPause }
func approve(ids string) func(*StepOptions) { return func(o *StepOptions) { o.Approve = ids } }
func deny(ids string) func(*StepOptions)    { return func(o *StepOptions) { o.Deny = ids } }
