package core

import (
	"bytes"
	"context"
	"errors"
	"os"
	"strings"
	"testing"

	"trail/core/errs"
	"trail/logfmt"
	"trail/store"
)

// --fork continues a session under a new id: the source is only read, and
// the new log holds every copied message, so it replays to the new record.
func TestForkContinuesInANewSessionAndLeavesTheSource(t *testing.T) {
	b := newBench(t, say("first answer"), say("forked answer"))
	parent := b.mustRun("first", func(o *StepOptions) { o.Name = "origin" })
	before, logBefore := b.recordBytes(parent), b.logSize(parent)
	res, err := b.resume(parent, "second", func(o *StepOptions) { o.Fork, o.Name = true, "branch" })
	if err != nil {
		t.Fatal(err)
	}
	child := res.SessionID
	if child == parent {
		t.Fatal("fork kept the id")
	}
	if !bytes.Equal(b.recordBytes(parent), before) || b.logSize(parent) != logBefore {
		t.Fatal("the source session changed")
	}
	rec := b.record(child)
	if rec.ParentSessionID != parent || rec.Name != "branch" || rec.Status != StatusIdle {
		t.Fatalf("child record: parent %q name %q status %q", rec.ParentSessionID, rec.Name, rec.Status)
	}
	b.wantRoles(child, "system user assistant user assistant")
	if init := b.logEvents(child, "session_init"); len(init) != 1 || init[0]["parentSessionId"] != parent || init[0]["resumed"] != true {
		t.Fatalf("child session_init %v", init)
	}
	b.consistent(child)
}

// A fork of a paused session takes its pending calls along: the fork
// decides them, the source still waits.
func TestForkOfAPausedSessionDecidesItsCalls(t *testing.T) {
	b := newBench(t, use(call("call_1", "Write", "filePath", "a.txt", "content", "x")))
	parent := b.mustRunPaused("write")
	b.p.then(say("done"))
	res, err := b.resume(parent, "", approve("all"), func(o *StepOptions) { o.Fork = true })
	if err != nil {
		t.Fatal(err)
	}
	if b.file("a.txt") != "x" {
		t.Fatal("the fork did not run the approved call")
	}
	if b.record(parent).Status != StatusRequiresAction {
		t.Fatal("the source no longer waits")
	}
	if _, ok := b.record(res.SessionID).Fields.Get(fieldPending); ok {
		t.Fatal("the fork still has pending calls")
	}
	b.consistent(res.SessionID)
}

func (b *bench) repair(id string, force bool) (*store.Record, error) {
	return b.e.RepairRecord(context.Background(), RepairOptions{ID: id, Force: force, Replay: func() (*logfmt.Replay, error) {
		return logfmt.ReplayFile(b.st.LogPath(id), logfmt.ReplayOptions{SessionID: id, Transcript: true})
	}})
}

// A record lost or corrupted is rebuilt from the log (SPEC 3.4), and the
// session resumes from it.
func TestRepairRecordRebuildsALostRecordFromTheLog(t *testing.T) {
	for _, damage := range []string{"lost", "corrupt"} {
		t.Run(damage, func(t *testing.T) {
			b := newBench(t, say("one"), use(call("call_1", "Read", "filePath", "nope")), say("two"))
			id := b.mustRun("a first prompt that names the session", func(o *StepOptions) { o.Name = "kept?" })
			if _, err := b.resume(id, "second"); err != nil {
				t.Fatal(err)
			}
			want := b.record(id)
			if damage == "lost" {
				os.Remove(b.st.RecordPath(id))
			} else {
				os.WriteFile(b.st.RecordPath(id), []byte(`{"id":`), 0o600)
			}
			rec, err := b.repair(id, false)
			if err != nil {
				t.Fatal(err)
			}
			if len(rec.Messages) != len(want.Messages) || rec.Title != "a first prompt that names the session" ||
				rec.Provider == nil || rec.Provider.Name != "echo" || rec.Status != StatusIdle || rec.StopReason != StopEndTurn {
				t.Fatalf("rebuilt: %d messages, title %q, provider %+v, status %q, stop %q", len(rec.Messages), rec.Title, rec.Provider, rec.Status, rec.StopReason)
			}
			if rec.Usage == nil || rec.Usage.InputTokens != want.Usage.InputTokens {
				t.Fatalf("usage %+v, want %+v", rec.Usage, want.Usage)
			}
			if fieldInt(rec.Fields, "providerCalls") != 3 {
				t.Fatal("providerCalls not rebuilt")
			}
			b.consistent(id)
			b.p.then(say("three"))
			if _, err := b.resume(id, "third"); err != nil {
				t.Fatal(err)
			}
			b.consistent(id)
		})
	}
}

// A record that parses is replaced only with --force, and then keeps what
// the log does not know (its name, fields of other programs).
func TestRepairRecordReplacesAValidRecordOnlyWhenForced(t *testing.T) {
	b := newBench(t, say("one"))
	id := b.mustRun("hi", func(o *StepOptions) { o.Name = "mine" })
	rec := b.record(id)
	rec.Fields.Set("otherProgram", map[string]int{"x": 1})
	if err := b.st.Save(rec); err != nil {
		t.Fatal(err)
	}
	before := b.recordBytes(id)
	var ue *errs.UsageError
	if _, err := b.repair(id, false); !errors.As(err, &ue) || !strings.Contains(err.Error(), "valid record") {
		t.Fatalf("err = %v", err)
	}
	if !bytes.Equal(b.recordBytes(id), before) {
		t.Fatal("a valid record was replaced without --force")
	}
	got, err := b.repair(id, true)
	if err != nil {
		t.Fatal(err)
	}
	if got.Name != "mine" {
		t.Fatalf("name %q", got.Name)
	}
	if _, ok := got.Fields.Get("otherProgram"); !ok {
		t.Fatal("a field of another program was dropped")
	}
	if _, ok := got.Fields.Get(fieldLogCheckpoint); ok {
		t.Fatal("the replaced record's checkpoint was kept")
	}
}

func TestRepairRecordRefusesWhatCannotBeRebuilt(t *testing.T) {
	b := newBench(t, say("one"))
	id := b.mustRun("hi")
	os.Remove(b.st.RecordPath(id))
	tests := []struct {
		name   string
		id     string
		replay func() (*logfmt.Replay, error)
		want   string
	}{
		{"an id that is a path", "../x", nil, "rebuild record"},
		{"a log of another session", id, func() (*logfmt.Replay, error) { return &logfmt.Replay{SessionID: "other"}, nil }, `the log is of session "other"`},
		{"a log without messages", id, func() (*logfmt.Replay, error) { return &logfmt.Replay{SessionID: id}, nil }, "holds no messages"},
		{"a log that cannot be read", id, func() (*logfmt.Replay, error) { return nil, errors.New("unreadable") }, "unreadable"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := b.e.RepairRecord(context.Background(), RepairOptions{ID: tt.id, Replay: tt.replay})
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("err = %v, want %q", err, tt.want)
			}
			if _, err := os.Stat(b.st.RecordPath(id)); !os.IsNotExist(err) {
				t.Fatal("a record was written")
			}
		})
	}
}

func TestRebuiltStopReasonFollowsTheLastOutcome(t *testing.T) {
	for outcome, want := range map[string]string{
		"end_turn": StopEndTurn, "interrupted": StopInterrupted, "error": StopError,
		"requires_action": StopRequiresAction, "": "", "max_turns": "",
	} {
		if got := rebuiltStopReason(outcome); got != want {
			t.Errorf("rebuiltStopReason(%q) = %q, want %q", outcome, got, want)
		}
	}
}
