package core

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"trail/core/chat"
	"trail/core/errs"
	"trail/core/permission"
)

// A call that needs approval without a terminal (--on-ask pause) keeps
// its round as it is: nothing runs, the assistant message is the record's
// last, and the calls wait in pendingToolCalls (SPEC 5.4).
func TestPauseKeepsTheRoundUntilItIsDecided(t *testing.T) {
	b := newBench(t, use(call("call_1", "Write", "filePath", "a.txt", "content", "hello")))
	res, err := b.run("write it", pause)
	var ra *errs.RequiresActionError
	if !errors.As(err, &ra) || len(ra.Pending) != 1 || !strings.Contains(ra.Pending[0], "call_1 Write(a.txt)") {
		t.Fatalf("err = %v, want the call waiting for approval", err)
	}
	if res.Subtype != SubtypeRequiresAction || res.IsError || len(res.PendingToolCalls) != 1 || res.PendingToolCalls[0].Decision != permission.DecisionAsk {
		t.Fatalf("result = %+v", res)
	}
	if b.file("a.txt") != "" {
		t.Fatal("the paused call ran")
	}
	rec := b.record(res.SessionID)
	if rec.Status != StatusRequiresAction || rec.StopReason != StopRequiresAction {
		t.Fatalf("record status %q stop %q", rec.Status, rec.StopReason)
	}
	if _, ok := rec.Fields.Get(fieldPending); !ok {
		t.Fatal("no pendingToolCalls in the record")
	}
	b.wantRoles(res.SessionID, "system user assistant")
	if n := len(b.logEvents(res.SessionID, "requires_action")); n != 1 {
		t.Fatalf("%d requires_action lines", n)
	}
	b.consistent(res.SessionID)
}

func TestResumeApproveRunsThePausedRoundThenGoesOn(t *testing.T) {
	b := newBench(t, use(call("call_1", "Write", "filePath", "a.txt", "content", "hello")))
	id := b.mustRunPaused("write it")
	b.p.then(say("written"))
	res, err := b.resume(id, "", approve("all"))
	if err != nil {
		t.Fatal(err)
	}
	if res.Subtype != SubtypeSuccess || res.Text != "written" || res.NumTurns != 1 {
		t.Fatalf("result = %+v", res)
	}
	if b.file("a.txt") != "hello" {
		t.Fatalf("a.txt = %q", b.file("a.txt"))
	}
	b.wantRoles(id, "system user assistant tool assistant")
	if c := b.toolContent(id, "call_1"); !strings.Contains(c, `"success":true`) {
		t.Fatalf("tool result %s", c)
	}
	rec := b.record(id)
	if _, ok := rec.Fields.Get(fieldPending); ok || rec.Status != StatusIdle {
		t.Fatalf("record still paused: status %q", rec.Status)
	}
	// The model's next request carries the result.
	last := b.p.reqs[len(b.p.reqs)-1].Messages
	if m := last[len(last)-1]; m.Role != chat.RoleTool || m.ToolCallID != "call_1" {
		t.Fatalf("the provider saw %+v last", m)
	}
	decisions := b.logEvents(id, "permission_decision")
	if d := decisions[len(decisions)-1]; d["source"] != permission.SourceFlag || d["decision"] != permission.DecisionAllow {
		t.Fatalf("decision %v", d)
	}
	b.consistent(id)
}

func TestResumeDenyAnswersTheModelWithADenial(t *testing.T) {
	b := newBench(t, use(call("call_1", "Write", "filePath", "a.txt", "content", "hello")))
	id := b.mustRunPaused("write it")
	b.p.then(say("ok, not written"))
	res, err := b.resume(id, "", deny("all"))
	if err != nil {
		t.Fatal(err)
	}
	if b.file("a.txt") != "" {
		t.Fatal("a denied call ran")
	}
	if len(res.PermissionDenials) != 1 || res.PermissionDenials[0].ToolUseID != "call_1" {
		t.Fatalf("denials %+v", res.PermissionDenials)
	}
	if c := b.toolContent(id, "call_1"); !strings.Contains(c, deniedByPerson) {
		t.Fatalf("tool result %s", c)
	}
	b.consistent(id)
}

// --approve names the calls to run; every call it does not name is denied.
func TestResumeApprovesTheNamedCallsAndDeniesTheRest(t *testing.T) {
	b := newBench(t, use(
		call("call_1", "Write", "filePath", "a.txt", "content", "A"),
		call("call_2", "Write", "filePath", "b.txt", "content", "B"),
		call("call_3", "Read", "filePath", "seed.txt"),
		call("call_4", "Nope")))
	if err := os.WriteFile(filepath.Join(b.cwd, "seed.txt"), []byte("seeded"), 0o600); err != nil {
		t.Fatal(err)
	}
	id := b.mustRunPaused("write both")
	rec := b.record(id)
	raw, _ := rec.Fields.Get(fieldPending)
	raw = chat.CompactBytes(raw)
	// Known decisions are kept: Read is allowed by the mode, Nope unknown.
	if !bytes.Contains(raw, []byte(`"decision":"allow"`)) || !bytes.Contains(raw, []byte("Unknown tool: Nope")) {
		t.Fatalf("pendingToolCalls %s", raw)
	}
	b.p.then(say("one of two"))
	res, err := b.resume(id, "", approve("call_1"))
	if err != nil {
		t.Fatal(err)
	}
	if b.file("a.txt") != "A" || b.file("b.txt") != "" {
		t.Fatalf("a.txt %q b.txt %q", b.file("a.txt"), b.file("b.txt"))
	}
	if len(res.PermissionDenials) != 1 || res.PermissionDenials[0].ToolUseID != "call_2" {
		t.Fatalf("denials %+v", res.PermissionDenials)
	}
	if c := b.toolContent(id, "call_3"); !strings.Contains(c, "seeded") {
		t.Fatalf("Read result %s", c)
	}
	if c := b.toolContent(id, "call_4"); !strings.Contains(c, "unknown_tool") {
		t.Fatalf("unknown tool result %s", c)
	}
	b.consistent(id)
}

// Deciding and prompting in one resume: the decided round runs, then the
// new prompt.
func TestResumeDecidesThenRunsTheNewPrompt(t *testing.T) {
	b := newBench(t, use(call("call_1", "Write", "filePath", "a.txt", "content", "hello")))
	id := b.mustRunPaused("write it")
	b.p.then(say("written"), say("and the next"))
	res, err := b.resume(id, "next", approve("all"))
	if err != nil {
		t.Fatal(err)
	}
	if res.Text != "and the next" || res.NumTurns != 2 {
		t.Fatalf("result %+v", res)
	}
	b.wantRoles(id, "system user assistant tool assistant user assistant")
	b.consistent(id)
}

// A decided round that pauses again does not run the new prompt: the
// session stopped before it, and the user is told.
func TestResumeKeepsThePromptWhenTheDecidedRoundPausesAgain(t *testing.T) {
	b := newBench(t, use(call("call_1", "Write", "filePath", "a.txt", "content", "1")))
	id := b.mustRunPaused("write it")
	b.p.then(use(call("call_2", "Write", "filePath", "b.txt", "content", "2")))
	_, err := b.resume(id, "next", approve("all"), pause)
	var ra *errs.RequiresActionError
	if !errors.As(err, &ra) {
		t.Fatalf("err = %v, want a second pause", err)
	}
	if !b.saw(EvWarning, "the new prompt was not run") {
		t.Fatal("no warning that the prompt was not run")
	}
	b.wantRoles(id, "system user assistant tool assistant")
	b.consistent(id)
}

// Resuming a paused session without a decision names its calls (exit 4)
// and changes nothing: not the record, not the log.
func TestResumeWithoutADecisionChangesNothing(t *testing.T) {
	b := newBench(t, use(call("call_1", "Bash", "command", "echo hi > x")))
	id := b.mustRunPaused("go")
	before, logBefore := b.recordBytes(id), b.logSize(id)
	_, err := b.resume(id, "anything else")
	var ra *errs.RequiresActionError
	if !errors.As(err, &ra) || ra.SessionID != id || !strings.Contains(ra.Error(), "Bash(echo hi > x)") {
		t.Fatalf("err = %v", err)
	}
	if !bytes.Equal(b.recordBytes(id), before) || b.logSize(id) != logBefore {
		t.Fatal("the record or the log changed")
	}
}

func TestDecisionFlagsAreCheckedAgainstThePendingCalls(t *testing.T) {
	b := newBench(t, use(call("call_1", "Bash", "command", "true"), call("call_2", "Bash", "command", "false")))
	id := b.mustRunPaused("go")
	idle := b.mustRunWith(say("hi"))
	tests := []struct {
		name, id string
		mut      func(*StepOptions)
		want     string
	}{
		{"an id that is not pending", id, approve("call_9"), `tool call "call_9" is not pending`},
		{"one call both approved and denied", id, func(o *StepOptions) { o.Approve, o.Deny = "call_1", "call_1" }, "both approved and denied"},
		{"one call both named, beside all", id, func(o *StepOptions) { o.Approve, o.Deny = "all,call_1", "call_1" }, "both approved and denied"},
		{"--approve all and --deny all", id, func(o *StepOptions) { o.Approve, o.Deny = "all", "all" }, "--approve all and --deny all both given"},
		{"a session that waits for nothing", idle, approve("all"), "is not waiting for approval"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			before := b.recordBytes(tt.id)
			_, err := b.resume(tt.id, "", tt.mut)
			var ue *errs.UsageError
			if !errors.As(err, &ue) || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("err = %v, want a usage error with %q", err, tt.want)
			}
			if !bytes.Equal(b.recordBytes(tt.id), before) {
				t.Fatal("the record changed")
			}
		})
	}
}

// A record saying calls are pending while its last message made none is
// damaged: the step refuses it instead of guessing.
func TestPendingCallsWithoutTheirMessageAreInvalidData(t *testing.T) {
	b := newBench(t, say("hi"))
	id := b.mustRun("hi")
	rec := b.record(id)
	if err := rec.Fields.Set(fieldPending, []PendingToolCall{{ID: "c", Name: "Bash"}}); err != nil {
		t.Fatal(err)
	}
	if err := b.st.Save(rec); err != nil {
		t.Fatal(err)
	}
	_, err := b.resume(id, "", approve("all"))
	var bad *errs.InvalidDataError
	if !errors.As(err, &bad) || !strings.Contains(err.Error(), "last message has no tool calls") {
		t.Fatalf("err = %v", err)
	}
}

// mustRunPaused runs a prompt whose round pauses and returns the session.
func (b *bench) mustRunPaused(prompt string) string {
	b.t.Helper()
	res, err := b.run(prompt, pause)
	var ra *errs.RequiresActionError
	if !errors.As(err, &ra) {
		b.t.Fatalf("run %q: %v, want a pause", prompt, err)
	}
	return res.SessionID
}

// mustRunWith adds a to the script and runs a session that answers it.
func (b *bench) mustRunWith(a answer) string {
	b.t.Helper()
	b.p.then(a)
	return b.mustRun("hello")
}

func (b *bench) logSize(id string) int64 {
	fi, err := os.Stat(b.st.LogPath(id))
	if err != nil {
		b.t.Fatal(err)
	}
	return fi.Size()
}
