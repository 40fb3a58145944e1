package core

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"trail/core/chat"
	"trail/core/hooks"
	"trail/core/permission"
	"trail/core/settings"
	"trail/core/tools"
	"trail/store"
)

// fakeTerminal answers questions from a list; a nil list means no terminal.
type fakeTerminal struct {
	answers []string
	asked   []string
	block   bool // never answer (an interrupt must get the step out)
}

func (f *fakeTerminal) CanPrompt() bool { return f.answers != nil || f.block }
func (f *fakeTerminal) Ask(q string) (string, error) {
	f.asked = append(f.asked, q)
	if f.block {
		select {}
	}
	a := f.answers[0]
	f.answers = f.answers[1:]
	return a, nil
}

type fakeClock struct{}

func (fakeClock) Now() time.Time { return time.Unix(0, 0) }

func testSession(t *testing.T, term *fakeTerminal, onAsk, mode string, allow, deny []string, hookCfg map[string][]settings.HookMatcher) *session {
	t.Helper()
	p, err := permission.Build(mode, &settings.Settings{}, allow, deny, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	e := &Engine{Clock: fakeClock{}, NewID: func() (string, error) { n++; return "id" + string(rune('a'+n)), nil }}
	if term != nil {
		e.Terminal = term
	}
	return &session{
		e: e, opts: &StepOptions{OnAsk: onAsk, Settings: &settings.Settings{}}, obs: nopObserver{},
		perms: p, hooks: &hooks.Runner{Hooks: hookCfg, Cwd: p.Cwd}, rec: &store.Record{ID: "s1", Cwd: p.Cwd},
	}
}

type stubTool struct{ name string }

func (s stubTool) Schema() chat.ToolSchema { return chat.ToolSchema{Name: s.name} }
func (s stubTool) Run(context.Context, json.RawMessage, tools.Env) tools.Result {
	return tools.Result{Success: true}
}

func bashRun(cmd string) *toolRun {
	args, _ := json.Marshal(map[string]string{"command": cmd})
	return &toolRun{call: chat.ToolCall{ID: "c1", Name: "Bash", Arguments: string(args)}, args: args, tool: stubTool{"Bash"}}
}

func TestDecide(t *testing.T) {
	tests := []struct {
		name         string
		term         *fakeTerminal
		onAsk, mode  string
		allow, deny  []string
		hooks        map[string][]settings.HookMatcher
		wantDecision string
		wantSource   string
		wantAsked    int
		wantSession  bool
	}{
		{name: "y on a terminal allows once", term: &fakeTerminal{answers: []string{"y"}}, wantDecision: permission.DecisionAllow, wantSource: permission.SourcePrompt, wantAsked: 1},
		{name: "a allows for the session", term: &fakeTerminal{answers: []string{"a"}}, wantDecision: permission.DecisionAllow, wantSource: permission.SourcePrompt, wantAsked: 1, wantSession: true},
		{name: "n denies", term: &fakeTerminal{answers: []string{"n"}}, wantDecision: permission.DecisionDeny, wantSource: permission.SourcePrompt, wantAsked: 1},
		{name: "Enter denies", term: &fakeTerminal{answers: []string{""}}, wantDecision: permission.DecisionDeny, wantSource: permission.SourcePrompt, wantAsked: 1},
		{name: "anything else denies", term: &fakeTerminal{answers: []string{"sure"}}, wantDecision: permission.DecisionDeny, wantSource: permission.SourcePrompt, wantAsked: 1},
		{name: "no terminal denies by default", onAsk: OnAskDeny, wantDecision: permission.DecisionDeny, wantSource: permission.SourceNoTerminal},
		{name: "no terminal pauses with --on-ask pause", onAsk: OnAskPause, wantDecision: permission.DecisionAsk, wantSource: permission.SourceNoTerminal},
		{name: "an allow rule needs no question", term: &fakeTerminal{answers: []string{}}, allow: []string{"Bash(make*)"}, wantDecision: permission.DecisionAllow, wantSource: permission.SourceRule},
		{name: "a hook's ask asks even in bypassPermissions", term: &fakeTerminal{answers: []string{"n"}}, mode: permission.ModeBypass,
			hooks:        map[string][]settings.HookMatcher{hooks.PreToolUse: {{Hooks: []settings.HookCommand{{Command: `echo '{"hookSpecificOutput":{"permissionDecision":"ask","permissionDecisionReason":"check"}}'`}}}}},
			wantDecision: permission.DecisionDeny, wantSource: permission.SourcePrompt, wantAsked: 1},
		{name: "a hook's allow needs no question", term: &fakeTerminal{answers: []string{}},
			hooks:        map[string][]settings.HookMatcher{hooks.PreToolUse: {{Hooks: []settings.HookCommand{{Command: `echo '{"hookSpecificOutput":{"permissionDecision":"allow"}}'`}}}}},
			wantDecision: permission.DecisionAllow, wantSource: permission.SourceHook},
		{name: "a blocking hook beats bypassPermissions", mode: permission.ModeBypass,
			hooks:        map[string][]settings.HookMatcher{hooks.PreToolUse: {{Hooks: []settings.HookCommand{{Command: "echo nope >&2; exit 2"}}}}},
			wantDecision: permission.DecisionDeny, wantSource: permission.SourceHook},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			mode := tt.mode
			if mode == "" {
				mode = permission.ModeDefault
			}
			s := testSession(t, tt.term, tt.onAsk, mode, tt.allow, tt.deny, tt.hooks)
			r := bashRun("make build") // not read-only: it needs a decision
			s.decide(context.Background(), 1, r)
			if r.decision != tt.wantDecision || r.source != tt.wantSource {
				t.Fatalf("decision %s/%s, want %s/%s (reason %q)", r.decision, r.source, tt.wantDecision, tt.wantSource, r.reason)
			}
			asked := 0
			if tt.term != nil {
				asked = len(tt.term.asked)
				if asked > 0 && !strings.Contains(tt.term.asked[0], "allow Bash(make build)?") {
					t.Errorf("question = %q", tt.term.asked[0])
				}
			}
			if asked != tt.wantAsked {
				t.Errorf("asked %d times, want %d", asked, tt.wantAsked)
			}
			if s.sessionAllows("Bash") != tt.wantSession {
				t.Errorf("session allows Bash = %v", s.sessionAllows("Bash"))
			}
			if (r.decision == permission.DecisionDeny) != (len(s.denials) == 1) {
				t.Errorf("denials = %v", s.denials)
			}
		})
	}
}

func TestSessionAllowedToolsSkipTheQuestion(t *testing.T) {
	term := &fakeTerminal{answers: []string{}}
	s := testSession(t, term, OnAskDeny, permission.ModeDefault, nil, nil, nil)
	s.sessionAllowed = []string{"Bash"}
	r := bashRun("rm -rf build")
	s.decide(context.Background(), 1, r)
	if r.decision != permission.DecisionAllow || r.source != permission.SourceSession || len(term.asked) != 0 {
		t.Fatalf("%s/%s asked %d", r.decision, r.source, len(term.asked))
	}
}

func TestAnInterruptAnswersAWaitingQuestion(t *testing.T) {
	term := &fakeTerminal{block: true}
	s := testSession(t, term, OnAskDeny, permission.ModeDefault, nil, nil, nil)
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(50*time.Millisecond, cancel)
	r := bashRun("make")
	done := make(chan struct{})
	go func() { s.decide(ctx, 1, r); close(done) }()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		t.Fatal("the question outlived the interrupt")
	}
	if r.decision != permission.DecisionDeny {
		t.Fatalf("decision = %s", r.decision)
	}
}

// A question shows what its answer approves: a Bash command whole, however
// long (a model could put "; touch HIDDEN" past a cut), and other calls'
// arguments with their start and their end.
func TestTheQuestionShowsTheWholeCommandAndTheEndOfOtherCalls(t *testing.T) {
	cmd := "echo " + strings.Repeat("checking-build-status ", 120) + "; touch HIDDEN_TAIL"
	args, _ := json.Marshal(map[string]string{"command": cmd})
	q := approvalQuestion(&toolRun{call: chat.ToolCall{Name: "Bash"}, args: args}, "")
	if !strings.Contains(q, "; touch HIDDEN_TAIL") || strings.Contains(q, "not shown") {
		t.Errorf("a long Bash command is not shown whole:\n%.300s…", q)
	}
	content := strings.Repeat("x", 10_000) + "\necho appended >> ~/.bashrc"
	args, _ = json.Marshal(map[string]string{"filePath": "notes.txt", "content": content})
	q = approvalQuestion(&toolRun{call: chat.ToolCall{Name: "Write"}, args: args}, "")
	if !strings.Contains(q, `echo appended`) || !strings.Contains(q, `"filePath":"notes.txt"}`) || !strings.Contains(q, `{"content":"xxx`) || !strings.Contains(q, "bytes not shown] …") || len(q) > 3000 {
		t.Errorf("a long Write is not cut to its start and end (%d bytes):\n%s", len(q), q)
	}
}
