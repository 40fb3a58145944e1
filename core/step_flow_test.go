package core

import (
	"errors"
	"os"
	"strings"
	"testing"
	"time"

	"trail/core/errs"
	"trail/core/settings"
	"trail/logfmt"
)

// Opening a session refuses, before it writes anything, what it cannot
// step: each row leaves no record and no log behind.
func TestOpenRefusesWhatItCannotStep(t *testing.T) {
	b := newBench(t, say("one"))
	id := b.mustRun("hi")
	term := b.record(id)
	term.ID, term.Status = "done-1", StatusTerminated
	if err := b.st.Save(term); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(b.st.LogPath("orphan"), []byte(`{"event":"x"}`+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		step func() error
		want string
		code any
	}{
		{"an id that is already taken", func() error { _, err := b.run("x", func(o *StepOptions) { o.SessionID = id }); return err }, "already exists", &errs.UsageError{}},
		{"an id that is not one", func() error { _, err := b.run("x", func(o *StepOptions) { o.SessionID = "../up" }); return err }, "--session-id", &errs.UsageError{}},
		{"an id whose log lost its record", func() error { _, err := b.run("x", func(o *StepOptions) { o.SessionID = "orphan" }); return err }, "has a log but no record", &errs.UsageError{}},
		{"a terminated session", func() error { _, err := b.resume("done-1", "x"); return err }, "is terminated", &errs.UsageError{}},
		{"a session that does not exist", func() error { _, err := b.resume("nope-nope", "x"); return err }, "not found", &errs.NotFoundError{}},
		{"a resume without a prompt or a decision", func() error { _, err := b.resume(id, " "); return err }, "no prompt", &errs.UsageError{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			before := b.recordBytes(id)
			err := tt.step()
			if err == nil || !strings.Contains(err.Error(), tt.want) || !errors.As(err, &tt.code) {
				t.Fatalf("err = %v (%T), want %T with %q", err, err, tt.code, tt.want)
			}
			if string(b.recordBytes(id)) != string(before) {
				t.Fatal("the session changed")
			}
		})
	}
	if _, err := os.Stat(b.st.RecordPath("orphan")); !os.IsNotExist(err) {
		t.Fatal("a record was made for the orphaned log")
	}
}

// The settings' maxTurns applies when the flag is not given.
func TestMaxTurnsComesFromTheSettings(t *testing.T) {
	b := newBench(t, use(call("call_1", "Read", "filePath", "a")))
	one := 1
	b.settings.MaxTurns = &one
	res, err := b.run("loop")
	if err != nil || res.Subtype != SubtypeMaxTurns || res.NumTurns != 1 {
		t.Fatalf("res %+v err %v", res, err)
	}
}

func hook(command string) []settings.HookMatcher {
	return []settings.HookMatcher{{Hooks: []settings.HookCommand{{Type: "command", Command: command}}}}
}

// A Stop hook that blocks sends its reason to the model, which goes on;
// the next Stop sees stop_hook_active (Claude Code's contract).
func TestStopHookSendsTheModelBackToWork(t *testing.T) {
	b := newBench(t, say("first try"), say("second try"))
	flag := b.cwd + "/stopped-once"
	b.settings.Hooks = map[string][]settings.HookMatcher{
		"Stop": hook(`if [ -e "` + flag + `" ]; then exit 0; fi; touch "` + flag + `"; echo "add tests" >&2; exit 2`),
	}
	res, err := b.run("work")
	if err != nil || res.Text != "second try" || res.NumTurns != 2 {
		t.Fatalf("res %+v err %v", res, err)
	}
	msgs := b.messages(res.SessionID)
	if fb := msgs[len(msgs)-2]; !strings.Contains(fb.Content, "Stop hook feedback:\nadd tests") {
		t.Fatalf("feedback %q", fb.Content)
	}
	b.consistent(res.SessionID)
}

// A Stop hook that always blocks cannot keep the model working forever.
func TestStopHookContinuationsAreBounded(t *testing.T) {
	var answers []answer
	for range maxStopContinuations + 1 {
		answers = append(answers, say("again"))
	}
	b := newBench(t, answers...)
	b.settings.Hooks = map[string][]settings.HookMatcher{"Stop": hook("echo more >&2; exit 2")}
	res, err := b.run("work")
	if err != nil || res.NumTurns != maxStopContinuations+1 || !b.saw(EvWarning, "Stop hooks kept the model working") {
		t.Fatalf("res %+v err %v", res, err)
	}
}

// UserPromptSubmit can refuse the prompt: nothing is appended.
func TestUserPromptSubmitHookRefusesThePrompt(t *testing.T) {
	b := newBench(t)
	b.settings.Hooks = map[string][]settings.HookMatcher{"UserPromptSubmit": hook("echo no secrets here >&2; exit 2")}
	res, err := b.run("my password is hunter2")
	var hb *errs.HookBlockedError
	if !errors.As(err, &hb) || hb.Reason != "no secrets here" || res.Subtype != SubtypeError {
		t.Fatalf("res %+v err %v", res, err)
	}
	b.wantRoles(res.SessionID, "system")
	b.consistent(res.SessionID)
}

// What SessionStart and UserPromptSubmit print reaches the model before
// the prompt, as Robota's system reminder.
func TestHookContextIsPutBeforeThePrompt(t *testing.T) {
	b := newBench(t, say("ok"))
	b.settings.Hooks = map[string][]settings.HookMatcher{
		"SessionStart":     hook("echo branch main"),
		"UserPromptSubmit": hook(`echo '{"hookSpecificOutput":{"additionalContext":"tests pass"}}'`),
	}
	id := b.mustRun("status?")
	user := b.messages(id)[1]
	if user.Content != "<system-reminder>\nbranch main\ntests pass\n</system-reminder>\nstatus?" {
		t.Fatalf("user message %q", user.Content)
	}
	if runs := b.logEvents(id, "hook_run"); len(runs) < 2 {
		t.Fatalf("hook_run lines %v", runs)
	}
}

// A PreToolUse hook answering continue: false ends the step once the
// round is committed.
func TestToolHookContinueFalseEndsTheStepAfterTheRound(t *testing.T) {
	b := newBench(t, use(call("call_1", "Read", "filePath", "a")))
	b.settings.Hooks = map[string][]settings.HookMatcher{"PreToolUse": hook(`echo '{"continue":false,"stopReason":"enough"}'`)}
	res, err := b.run("read")
	var hb *errs.HookBlockedError
	if !errors.As(err, &hb) || hb.Event != "PreToolUse" || hb.Reason != "enough" {
		t.Fatalf("res %+v err %v", res, err)
	}
	b.wantRoles(res.SessionID, "system user assistant tool")
	b.consistent(res.SessionID)
}

// The step's times come from the injected clock: the provider's time is
// what the clock says passed during the calls.
func TestDurationsComeFromTheInjectedClock(t *testing.T) {
	b := newBench(t, say("ok"))
	res, err := b.run("hi")
	if err != nil {
		t.Fatal(err)
	}
	// stepClock moves a second at every read; one call reads it twice.
	if res.DurationAPIMS != (time.Second).Milliseconds() || res.DurationMS <= res.DurationAPIMS {
		t.Fatalf("durations: api %d ms, step %d ms", res.DurationAPIMS, res.DurationMS)
	}
}

// The system prompt is --system, else the settings' systemPrompt, else
// the default; --append-system follows it.
func TestSystemPromptPrecedence(t *testing.T) {
	own := "be terse"
	tests := []struct {
		name     string
		mut      func(*StepOptions)
		settings string
		want     func(string) bool
	}{
		{"the default names the folder", func(*StepOptions) {}, "", func(sp string) bool { return strings.Contains(sp, "You are trail") }},
		{"the settings' prompt", func(*StepOptions) {}, "from settings", func(sp string) bool { return sp == "from settings" }},
		{"--system wins over the settings", func(o *StepOptions) { o.System = &own }, "from settings", func(sp string) bool { return sp == own }},
		{"--append-system follows", func(o *StepOptions) { o.System, o.AppendSystem = &own, "and kind" }, "", func(sp string) bool { return sp == own+"\n\nand kind" }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b := newBench(t, say("ok"))
			b.settings.SystemPrompt = tt.settings
			id := b.mustRun("hi", tt.mut)
			if sp := b.messages(id)[0].Content; !tt.want(sp) {
				t.Fatalf("system prompt %q", sp)
			}
			if sp := b.p.reqs[0].Messages[0].Content; !tt.want(sp) {
				t.Fatalf("sent system prompt %q", sp)
			}
		})
	}
}

// What a PostToolUse hook says reaches the model with the result.
func TestPostToolUseFeedbackReachesTheModel(t *testing.T) {
	b := newBench(t, use(call("call_1", "Bash", "command", "echo hi")), say("ok"))
	b.settings.Hooks = map[string][]settings.HookMatcher{"PostToolUse": hook("echo check the path >&2; exit 2")}
	id := b.mustRun("read")
	if c := b.toolContent(id, "call_1"); !strings.Contains(c, `"hookFeedback":"check the path"`) {
		t.Fatalf("tool result %s", c)
	}
	b.consistent(id)
}

// "a" at the question allows the tool for the rest of the session: the
// next step runs it without asking.
func TestAllowForTheSessionOutlivesTheStep(t *testing.T) {
	b := newBench(t, use(call("call_1", "Bash", "command", "true")), say("one"))
	b.term = &fakeTerminal{answers: []string{"a"}}
	id := b.mustRun("go")
	b.p.then(use(call("call_2", "Bash", "command", "true")), say("two"))
	if _, err := b.resume(id, "again"); err != nil {
		t.Fatal(err)
	}
	if len(b.term.asked) != 1 {
		t.Fatalf("asked %d times", len(b.term.asked))
	}
	decisions := b.logEvents(id, "permission_decision")
	if d := decisions[len(decisions)-1]; d["source"] != "session" || d["decision"] != "allow" {
		t.Fatalf("last decision %v", d)
	}
}

// A log that cannot be written does not lose the answer: the record is
// saved, and the step ends with the failure (an I/O error, exit 1).
func TestALogThatCannotBeWrittenFailsTheStepAfterTheAnswer(t *testing.T) {
	b := newBench(t, say("kept"))
	b.e.OpenLog = func(string, []string) (Logger, error) { return brokenLog{}, nil }
	res, err := b.run("hi")
	var fail *errs.LogWriteError
	if !errors.As(err, &fail) || !strings.HasPrefix(err.Error(), "log not written: disk full") || res == nil || res.Text != "kept" {
		t.Fatalf("res %+v err %v", res, err)
	}
	b.wantRoles(res.SessionID, "system user assistant")
	if _, ok := b.record(res.SessionID).Fields.Get(fieldLogCheckpoint); ok {
		t.Fatal("a failed log vouched for the record")
	}
}

type brokenLog struct{}

func (brokenLog) Log(string, ...logfmt.Field) error { return errors.New("disk full") }
func (brokenLog) Sync() error                       { return errors.New("disk full") }
func (brokenLog) NextSeq() int64                    { return 0 }
func (brokenLog) Size() int64                       { return -1 }
func (brokenLog) Path() string                      { return "/nowhere" }
func (brokenLog) Encode(v any) ([]byte, error)      { return logfmt.Marshal(v) }
func (brokenLog) Close() error                      { return nil }
