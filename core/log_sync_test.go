package core

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"strings"
	"testing"

	"trail/core/chat"
	"trail/core/provider"
	"trail/logfmt"
	"trail/store"
)

func TestCheckpointHolds(t *testing.T) {
	cp := logCheckpoint{Bytes: 100, Seq: 7, Messages: 3}
	clean := &logfmt.Scan{Aligned: true, Lines: 3, FirstSeq: 7}
	tests := []struct {
		name     string
		ok       bool
		messages int
		size     int64
		nextSeq  int64
		tail     *logfmt.Scan
		want     bool
	}{
		{"in sync: the lines after the save change nothing", true, 3, 180, 10, clean, true},
		{"in sync: nothing after the save", true, 3, 100, 7, &logfmt.Scan{Aligned: true, FirstSeq: -1}, true},
		{"no checkpoint (a Robota record, an older trail one)", false, 3, 180, 10, clean, false},
		{"the tail was not read", true, 3, 180, 10, nil, false},
		{"behind: the record has messages the checkpoint did not count", true, 4, 180, 10, clean, false},
		{"behind: the log is shorter than when the record was saved", true, 3, 90, 5, clean, false},
		{"ahead: the log changed the conversation after the save", true, 3, 180, 10, &logfmt.Scan{Aligned: true, Lines: 3, FirstSeq: 7, Mutations: 1}, false},
		{"the offset falls inside a line", true, 3, 180, 10, &logfmt.Scan{Lines: 3, FirstSeq: 7}, false},
		{"the line there is not the one saved against", true, 3, 180, 10, &logfmt.Scan{Aligned: true, Lines: 3, FirstSeq: 2}, false},
		{"a line without seq there (another program appended)", true, 3, 180, 10, &logfmt.Scan{Aligned: true, Lines: 3, FirstSeq: -1}, false},
		{"nothing after the offset but another seq", true, 3, 100, 9, &logfmt.Scan{Aligned: true, FirstSeq: -1}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := checkpointHolds(cp, tt.ok, tt.messages, tt.size, tt.nextSeq, tt.tail); got != tt.want {
				t.Fatalf("checkpointHolds = %v, want %v", got, tt.want)
			}
		})
	}
}

func TestPlanResync(t *testing.T) {
	m := func(id string) json.RawMessage {
		return json.RawMessage(`{"id":"` + id + `","role":"user","content":"x"}`)
	}
	list := func(ids ...string) []json.RawMessage {
		var out []json.RawMessage
		for _, id := range ids {
			out = append(out, m(id))
		}
		return out
	}
	tests := []struct {
		name       string
		logged     []json.RawMessage
		record     []json.RawMessage
		system     bool
		want       *resyncPlan
		wantSynced bool
	}{
		{"the same messages", list("s", "u", "a"), list("s", "u", "a"), true, nil, true},
		{"the same message in another program's key order: the digests need the record's bytes", list("s"),
			[]json.RawMessage{json.RawMessage(`{"content":"x","role":"user","id":"s"}`)}, true,
			&resyncPlan{mode: resyncReplace, logMessages: 1, recordMessages: 1, first: 0}, false},
		{"behind: the log stops short of the record", list("s", "u"), list("s", "u", "a", "u2"), true,
			&resyncPlan{mode: resyncAppend, logMessages: 2, recordMessages: 4, first: 2}, false},
		{"ahead: a failed save left the log with more", list("s", "u", "a", "u2", "a2"), list("s", "u", "a"), true,
			&resyncPlan{mode: resyncReplace, logMessages: 5, recordMessages: 3, first: 3}, false},
		{"apart: another program rewrote the record", list("s", "u", "a"), list("s", "sum"), true,
			&resyncPlan{mode: resyncReplace, logMessages: 3, recordMessages: 2, first: 1}, false},
		{"an empty log gets the record appended", nil, list("s", "u"), true,
			&resyncPlan{mode: resyncAppend, logMessages: 0, recordMessages: 2, first: 0}, false},
		{"but not when replay would invent a system message in front", nil, list("u"), false,
			&resyncPlan{mode: resyncReplace, logMessages: 0, recordMessages: 1, first: 0}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := planResync(tt.logged, tt.record, tt.system)
			if (got == nil) != tt.wantSynced || (got != nil && *got != *tt.want) {
				t.Fatalf("planResync = %+v, want %+v", got, tt.want)
			}
		})
	}
}

// syncEnv is an engine whose provider answers "ok", and its session.
type syncEnv struct {
	t  *testing.T
	e  *Engine
	st *store.FS
	id string
}

func newSyncEnv(t *testing.T) *syncEnv {
	p := &fakeProvider{call: func(context.Context, *provider.Request, provider.Sink) (*provider.Response, error) {
		return &provider.Response{Text: "ok"}, nil
	}}
	e, st := testEngine(t, p)
	se := &syncEnv{t: t, e: e, st: st}
	res, err := e.Step(context.Background(), StepOptions{Prompt: "one", Cwd: "/w", Provider: provider.Flags{Name: "echo"}})
	if err != nil {
		t.Fatal(err)
	}
	se.id = res.SessionID
	return se
}

func (se *syncEnv) resume(prompt string, noLog bool) {
	se.t.Helper()
	if _, err := se.e.Step(context.Background(), StepOptions{Resume: true, Ref: SessionRef{Ref: se.id}, Prompt: prompt, Cwd: "/w", NoLog: noLog}); err != nil {
		se.t.Fatal(err)
	}
}

func (se *syncEnv) record() []byte {
	se.t.Helper()
	b, err := os.ReadFile(se.st.RecordPath(se.id))
	if err != nil {
		se.t.Fatal(err)
	}
	return b
}

func (se *syncEnv) setRecord(b []byte) {
	se.t.Helper()
	if err := os.WriteFile(se.st.RecordPath(se.id), b, 0o600); err != nil {
		se.t.Fatal(err)
	}
}

func (se *syncEnv) editRecord(edit func(r *store.Record)) {
	se.t.Helper()
	r, err := se.st.Load(se.id)
	if err != nil {
		se.t.Fatal(err)
	}
	edit(r)
	if err := se.st.Save(r); err != nil {
		se.t.Fatal(err)
	}
}

func (se *syncEnv) named(event string) []map[string]any {
	var out []map[string]any
	for _, ev := range events(se.t, se.st, se.id) {
		if ev["event"] == event {
			out = append(out, ev)
		}
	}
	return out
}

// agrees checks SPEC 7.1's invariant and validation: the log replays to the
// record's messages and validates with no issue, warnings included.
func (se *syncEnv) agrees() {
	se.t.Helper()
	rep, err := logfmt.ReplayFile(se.st.LogPath(se.id), logfmt.ReplayOptions{})
	if err != nil {
		se.t.Fatal(err)
	}
	r, err := se.st.Load(se.id)
	if err != nil {
		se.t.Fatal(err)
	}
	if len(rep.Messages) != len(r.Messages) {
		se.t.Fatalf("replay has %d messages, the record %d", len(rep.Messages), len(r.Messages))
	}
	for i := range r.Messages {
		if !bytes.Equal(rep.Messages[i], chat.CompactBytes(r.Messages[i])) {
			se.t.Fatalf("message %d:\nreplay %s\nrecord %s", i, rep.Messages[i], chat.CompactBytes(r.Messages[i]))
		}
	}
	v, err := logfmt.ValidateFile(se.st.LogPath(se.id), logfmt.ValidateOptions{})
	if err != nil {
		se.t.Fatal(err)
	}
	for _, is := range v.Issues {
		se.t.Errorf("validate: line %d %s %s", is.Line, is.Code, is.Message)
	}
}

func TestInSyncResumeRereadsOnlyTheTail(t *testing.T) {
	se := newSyncEnv(t)
	se.resume("two", false)
	r, err := se.st.Load(se.id)
	if err != nil {
		t.Fatal(err)
	}
	cp, ok := readCheckpoint(r.Fields)
	if !ok || cp.Messages != len(r.Messages) {
		t.Fatalf("checkpoint %+v (%v) for %d messages", cp, ok, len(r.Messages))
	}
	// The checkpoint is the log once the save's mutations were written:
	// what follows it is the step's closing lines, no history_mutation.
	tail, err := logfmt.ScanLog(se.st.LogPath(se.id), cp.Bytes)
	if err != nil {
		t.Fatal(err)
	}
	if !tail.Aligned || tail.Mutations != 0 || tail.Lines == 0 || tail.FirstSeq != cp.Seq {
		t.Fatalf("tail after the checkpoint %+v, checkpoint %+v", tail, cp)
	}
	se.resume("three", false)
	if got := se.named("log_resync"); len(got) != 0 {
		t.Fatalf("a log in sync was re-synced: %v", got)
	}
	se.agrees()
}

func TestLogAheadOfTheRecordIsResynced(t *testing.T) {
	// The step after `before` logged its messages and its save failed: the
	// record is the one of before.
	se := newSyncEnv(t)
	before := se.record()
	se.resume("lost", false)
	se.setRecord(before)
	se.resume("three", false)
	rs := se.named("log_resync")
	if len(rs) != 1 || rs[0]["mutation"] != "replace_all" || rs[0]["logMessages"] != 5.0 || rs[0]["recordMessages"] != 3.0 || rs[0]["firstDifference"] != 3.0 {
		t.Fatalf("log_resync %v", rs)
	}
	muts := se.named("history_mutation")
	var resync map[string]any
	for _, m := range muts {
		if m["reason"] == "resync" {
			resync = m
		}
	}
	if resync == nil || resync["mutation"] != "replace_all" || len(resync["messages"].([]any)) != 3 {
		t.Fatalf("re-sync mutation %v", resync)
	}
	se.agrees() // and the record, which never had "lost", is what replays
}

func TestLogBehindTheRecordGetsTheMissingMessages(t *testing.T) {
	se := newSyncEnv(t)
	se.resume("unlogged", true) // --no-log: the record goes on, the log does not
	se.resume("three", false)
	rs := se.named("log_resync")
	if len(rs) != 1 || rs[0]["mutation"] != "append_message" || rs[0]["logMessages"] != 3.0 || rs[0]["recordMessages"] != 5.0 {
		t.Fatalf("log_resync %v", rs)
	}
	n := 0
	for _, m := range se.named("history_mutation") {
		if m["reason"] == "resync" {
			n++
			if m["mutation"] != "append_message" || m["index"] != float64(2+n) {
				t.Errorf("re-sync append %v", m)
			}
		}
	}
	if n != 2 {
		t.Fatalf("%d messages appended, want the 2 the log missed", n)
	}
	se.agrees()
}

func TestRecordWithoutCheckpointIsComparedInFull(t *testing.T) {
	// An older trail record, or one another program saved: no checkpoint.
	// The log agrees, so nothing is re-synced, and the save brings the
	// checkpoint back.
	se := newSyncEnv(t)
	se.editRecord(func(r *store.Record) { r.Fields.Delete(fieldLogCheckpoint) })
	se.resume("two", false)
	if got := se.named("log_resync"); len(got) != 0 {
		t.Fatalf("re-synced a log that agrees: %v", got)
	}
	r, err := se.st.Load(se.id)
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := readCheckpoint(r.Fields); !ok {
		t.Fatal("the save wrote no checkpoint")
	}
	se.agrees()
}

// A record edited in place (a message's content, the count and the log
// untouched) is told by the checkpoint's digest: the log takes the
// record's list, and replays to it.
func TestRecordEditedWithTheSameCountWins(t *testing.T) {
	se := newSyncEnv(t)
	se.resume("two", false)
	se.editRecord(func(r *store.Record) {
		r.Messages[1] = json.RawMessage(bytes.Replace(r.Messages[1], []byte(`"one"`), []byte(`"ONE"`), 1))
	})
	se.resume("three", false)
	rs := se.named("log_resync")
	if len(rs) != 1 || rs[0]["mutation"] != "replace_all" || rs[0]["firstDifference"] != 1.0 {
		t.Fatalf("log_resync %v", rs)
	}
	se.agrees()
}

func TestRecordRewrittenByAnotherProgramWins(t *testing.T) {
	// Another program (Robota compacting) replaced the messages and kept
	// trail's checkpoint: the count tells, and the log takes the record's list.
	se := newSyncEnv(t)
	se.resume("two", false)
	se.editRecord(func(r *store.Record) {
		r.Messages = append(r.Messages[:1:1], json.RawMessage(`{"id":"sum","role":"assistant","content":"[Context Summary]\nall of it","state":"complete","timestamp":"2026-01-01T00:00:09.000Z"}`))
	})
	se.resume("three", false)
	rs := se.named("log_resync")
	if len(rs) != 1 || rs[0]["mutation"] != "replace_all" || rs[0]["firstDifference"] != 1.0 {
		t.Fatalf("log_resync %v", rs)
	}
	se.agrees()
}

func TestRequestsOfAKilledStepAreClosed(t *testing.T) {
	se := newSyncEnv(t)
	// What a step killed in its provider call and in a tool leaves.
	w, err := logfmt.OpenWriter(se.st.LogPath(se.id), logfmt.Options{SessionID: se.id})
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range []struct {
		event  string
		fields []logfmt.Field
	}{
		{"session_init", []logfmt.Field{logfmt.F("cwd", "/w")}},
		{"tool_execution_request", []logfmt.Field{logfmt.F("executionId", "dead"), logfmt.F("conversationId", "main"), logfmt.F("round", 1),
			logfmt.F("batchId", "b"), logfmt.F("index", 0), logfmt.F("toolName", "Write"), logfmt.F("toolCallId", "toolu_1")}},
		{"provider_request", []logfmt.Field{logfmt.F("executionId", "dead"), logfmt.F("conversationId", "main"), logfmt.F("round", 2), logfmt.F("provider", "fake")}},
		{"provider_native_raw_payload", []logfmt.Field{logfmt.F("executionId", "dead"), logfmt.F("round", 2), logfmt.F("payloadKind", "stream_event")}},
	} {
		if err := w.Log(l.event, l.fields...); err != nil {
			t.Fatal(err)
		}
	}
	w.Close()
	se.resume("two", false)
	ab := se.named("abandoned_requests")
	if len(ab) != 1 || len(ab[0]["requests"].([]any)) != 2 {
		t.Fatalf("abandoned_requests %v", ab)
	}
	var closing []string
	for _, ev := range events(t, se.st, se.id) {
		if ev["note"] == "abandoned" {
			closing = append(closing, ev["event"].(string)+"/"+ev["executionId"].(string))
		}
	}
	want := "tool_execution_result/dead provider_response_raw/dead provider_response_normalized/dead"
	if strings.Join(closing, " ") != want {
		t.Fatalf("closing events %v, want %s", closing, want)
	}
	se.agrees()
	// Closed for good: the next step finds nothing to close.
	se.resume("three", false)
	if ab := se.named("abandoned_requests"); len(ab) != 1 {
		t.Fatalf("closed twice: %v", ab)
	}
}

func TestALogThatCannotBeReplayedIsLeftWithAWarningAfterTheSessionEvent(t *testing.T) {
	se := newSyncEnv(t)
	// A mutation whose message lives in a payload file that is gone.
	w, err := logfmt.OpenWriter(se.st.LogPath(se.id), logfmt.Options{SessionID: se.id})
	if err != nil {
		t.Fatal(err)
	}
	ref := json.RawMessage(`{"kind":"external-payload","encoding":"json","sha256":"` + strings.Repeat("ab", 32) +
		`","byteLength":10,"relativePath":"` + se.id + `.payloads/` + strings.Repeat("ab", 32) + `.json"}`)
	if err := w.Log("history_mutation", logfmt.F("mutation", "append_message"), logfmt.F("index", 3), logfmt.F("message", ref)); err != nil {
		t.Fatal(err)
	}
	w.Close()
	var kinds []StepEventKind
	var warnings []string
	obs := ObserverFunc(func(ev StepEvent) {
		kinds = append(kinds, ev.Kind)
		if ev.Kind == EvWarning {
			warnings = append(warnings, ev.Text)
		}
	})
	if _, err := se.e.Step(context.Background(), StepOptions{Resume: true, Ref: SessionRef{Ref: se.id}, Prompt: "two", Cwd: "/w", Observer: obs}); err != nil {
		t.Fatal(err)
	}
	if len(kinds) == 0 || kinds[0] != EvSession {
		t.Fatalf("the first event is %v, not the session", kinds)
	}
	if len(warnings) != 1 || !strings.HasPrefix(warnings[0], "log not re-synced with the record: ") {
		t.Fatalf("warnings %q", warnings)
	}
	if got := se.named("log_resync"); len(got) != 0 {
		t.Fatalf("re-synced a log it could not read: %v", got)
	}
}
