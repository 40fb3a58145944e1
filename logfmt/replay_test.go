package logfmt

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/tidwall/gjson"
)

func replayString(t *testing.T, log string) *Replay {
	t.Helper()
	rep, err := ReplayLog(strings.NewReader(log), ReplayOptions{Dir: t.TempDir(), SessionID: "s", Transcript: true})
	if err != nil {
		t.Fatal(err)
	}
	return rep
}

func field(raw []byte, path string) string { return gjson.GetBytes(raw, path).String() }

func ids(msgs []json.RawMessage) []string {
	var out []string
	for _, m := range msgs {
		out = append(out, field(m, "id"))
	}
	return out
}

func TestReplayCorpusLogWithAPayload(t *testing.T) {
	rep, err := ReplayFile(filepath.Join(corpus, "valid-payload.jsonl"), ReplayOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if rep.SessionID != "valid-payload" || rep.Cwd != "/work/demo" || rep.CreatedAt != "2026-01-01T00:00:00.000Z" ||
		rep.UpdatedAt != "2026-01-01T00:00:12.000Z" || rep.SystemPrompt != "You are terse." || rep.ProviderCalls != 1 || rep.Entries != 13 {
		t.Errorf("replay header %+v", rep)
	}
	if got := ids(rep.Messages); !slices.Equal(got, []string{"m0", "m1", "m2", "m3"}) {
		t.Fatalf("messages %v", got)
	}
	// The tool message lived in a payload file: it comes back whole.
	tool := rep.Messages[3]
	if field(tool, "role") != "tool" || field(tool, "toolCallId") != "t1" || !strings.Contains(field(tool, "content"), "Unknown tool: Nope") {
		t.Errorf("tool message %s", tool)
	}
	if field(rep.Messages[2], "toolCalls.0.function.name") != "Nope" {
		t.Errorf("assistant message %s", rep.Messages[2])
	}
	if len(rep.Warnings) != 0 || rep.LastOutcome != "" {
		t.Errorf("warnings %v outcome %q", rep.Warnings, rep.LastOutcome)
	}
}

func TestReplayHistoryEntries(t *testing.T) {
	rep := replayString(t, logOf(
		ev(1, "history_mutation", `"mutation":"append_message","index":0,"message":{"id":"a","role":"system","content":"sp","state":"complete","timestamp":"2026-01-01T00:00:00.500Z"}`),
		ev(2, "history_mutation", `"mutation":"append_message","index":1,"message":{"role":"user","content":"no id, no time"}`),
	))
	h := rep.History()
	want := []string{
		`{"id":"a","timestamp":"2026-01-01T00:00:00.500Z","category":"chat","type":"system","data":{"id":"a","role":"system","content":"sp","state":"complete","timestamp":"2026-01-01T00:00:00.500Z"}}`,
		`{"id":"user-line2","timestamp":"2026-01-01T00:00:02.000Z","category":"chat","type":"user","data":{"role":"user","content":"no id, no time"}}`,
	}
	if len(h) != 2 || string(h[0]) != want[0] || string(h[1]) != want[1] {
		t.Fatalf("history\n%s\nwant\n%s", joinRaw(h), strings.Join(want, "\n"))
	}
}

func TestReplayRobotaLogBuildsTheSystemMessage(t *testing.T) {
	// Robota logs no seq, no mutation for the system message, and the
	// user message's mutation has no round.
	rep := replayString(t, logOf(
		ev(0, "session_init", `"cwd":"/home/dev","systemPromptLength":8,"systemPrompt":"be brief","toolSchemas":[{"name":"Read"}],"model":"claude-sonnet-4-5","provider":"anthropic"`),
		ev(1, "user", `"content":"hi"`),
		ev(1, "pre_run", `"history":[{"id":"x","role":"user","content":"decoy: pre_run history is not replayed"}]`),
		ev(1, "history_mutation", `"executionId":"e","conversationId":"c","mutation":"append_message","index":1,"message":{"id":"u1","role":"user","content":"hi","state":"complete","timestamp":"2026-01-01T00:00:01.000Z"}`),
		ev(2, "history_mutation", `"executionId":"e","conversationId":"c","round":1,"mutation":"append_message","index":2,"message":{"id":"a1","role":"assistant","content":"hello","state":"complete","timestamp":"2026-01-01T00:00:02.000Z","metadata":{"inputTokens":10,"outputTokens":3}}`),
		ev(3, "assistant", `"content":"hello","history":[]`),
	))
	if len(rep.Messages) != 3 {
		t.Fatalf("messages %s", rep.Messages)
	}
	sys := rep.Messages[0]
	if field(sys, "role") != "system" || field(sys, "content") != "be brief" || field(sys, "timestamp") != "2026-01-01T00:00:00.000Z" || field(sys, "state") != "complete" {
		t.Errorf("system message %s", sys)
	}
	if got := ids(rep.Messages[1:]); !slices.Equal(got, []string{"u1", "a1"}) {
		t.Errorf("messages %v", got)
	}
	if rep.Provider != "anthropic" || rep.Model != "claude-sonnet-4-5" || string(rep.ToolSchemas) != `[{"name":"Read"}]` ||
		rep.InputTokens != 10 || rep.OutputTokens != 3 || rep.LastOutcome != "end_turn" || rep.Cwd != "/home/dev" {
		t.Errorf("replay %+v", rep)
	}
	// A trail log logs the system message itself: nothing is added.
	rep = replayString(t, logOf(
		ev(0, "session_init", `"cwd":"/","systemPrompt":"be brief"`),
		ev(1, "history_mutation", `"mutation":"append_message","index":0,"message":{"id":"s0","role":"system","content":"be brief"}`),
	))
	if got := ids(rep.Messages); !slices.Equal(got, []string{"s0"}) {
		t.Errorf("trail log messages %v", got)
	}
}

func TestReplayCompaction(t *testing.T) {
	msg := func(id, role string) string {
		return `{"id":"` + id + `","role":"` + role + `","content":"` + id + `"}`
	}
	log := logOf(
		ev(0, "history_mutation", `"mutation":"append_message","index":0,"message":`+msg("s", "system")),
		ev(1, "history_mutation", `"mutation":"append_message","index":1,"message":`+msg("u1", "user")),
		ev(2, "history_mutation", `"mutation":"append_message","index":2,"message":`+msg("a1", "assistant")),
		ev(3, "history_mutation", `"mutation":"append_message","index":3,"message":`+msg("u2", "user")),
		ev(4, "history_mutation", `"mutation":"replace_all","messages":[`+msg("s", "system")+`,`+msg("sum", "assistant")+`,`+msg("u2", "user")+`]`),
		ev(5, "history_mutation", `"mutation":"append_message","index":3,"message":`+msg("a2", "assistant")),
	)
	rep := replayString(t, log)
	if got := ids(rep.Messages); !slices.Equal(got, []string{"s", "sum", "u2", "a2"}) {
		t.Errorf("context %v", got)
	}
	if got := ids(rep.TranscriptMessages()); !slices.Equal(got, []string{"s", "u1", "a1", "u2", "sum", "a2"}) {
		t.Errorf("transcript %v", got)
	}
	var marks []Compaction
	for _, it := range rep.Transcript {
		if it.Compaction != nil {
			marks = append(marks, *it.Compaction)
		}
	}
	if len(marks) != 1 || marks[0] != (Compaction{Line: 5, Timestamp: "2026-01-01T00:00:04.000Z", Before: 4, After: 3}) {
		t.Errorf("marks %+v", marks)
	}
	if h := rep.History(); len(h) != 7 || field(h[4], "type") != "compaction" || field(h[4], "category") != "event" || field(h[4], "data.messagesBefore") != "4" {
		t.Errorf("history %s", joinRaw(h))
	}
	// Without the transcript only the context is kept: memory follows
	// what the model sees, not how long the session ran.
	lean, err := ReplayLog(strings.NewReader(log), ReplayOptions{Dir: t.TempDir(), SessionID: "s"})
	if err != nil {
		t.Fatal(err)
	}
	if got := ids(lean.Messages); !slices.Equal(got, []string{"s", "sum", "u2", "a2"}) || len(lean.Transcript) != 0 || lean.Compactions != 1 {
		t.Errorf("lean replay: context %v, transcript %d, compactions %d", got, len(lean.Transcript), lean.Compactions)
	}
}

// A step that found its log ahead of the record (the answer of a step whose
// save failed was logged, the record never got it) re-syncs: the context
// becomes the record's list, the transcript keeps what was said and marks
// the re-sync, which is no compaction.
func TestReplayResync(t *testing.T) {
	msg := func(id, role string) string {
		return `{"id":"` + id + `","role":"` + role + `","content":"` + id + `"}`
	}
	log := logOf(
		ev(0, "history_mutation", `"mutation":"append_message","index":0,"message":`+msg("s", "system")),
		ev(1, "history_mutation", `"mutation":"append_message","index":1,"message":`+msg("u1", "user")),
		ev(2, "history_mutation", `"mutation":"append_message","index":2,"message":`+msg("a1", "assistant")),
		ev(3, "history_mutation", `"mutation":"append_message","index":3,"message":`+msg("lost-u", "user")),
		ev(4, "history_mutation", `"mutation":"append_message","index":4,"message":`+msg("lost-a", "assistant")),
		ev(5, "log_resync", `"mutation":"replace_all","logMessages":5,"recordMessages":4,"firstDifference":3`),
		ev(5, "history_mutation", `"mutation":"replace_all","reason":"resync","messages":[`+msg("s", "system")+`,`+msg("u1", "user")+`,`+msg("a1", "assistant")+`,`+msg("other", "user")+`]`),
		ev(6, "history_mutation", `"mutation":"append_message","index":4,"message":`+msg("a2", "assistant")),
	)
	rep := replayString(t, log)
	if got := ids(rep.Messages); !slices.Equal(got, []string{"s", "u1", "a1", "other", "a2"}) {
		t.Errorf("context %v", got)
	}
	if rep.Compactions != 0 || rep.Resyncs != 1 {
		t.Errorf("compactions %d, resyncs %d", rep.Compactions, rep.Resyncs)
	}
	// Nothing said twice: only the record's message the log lacked is added.
	if got := ids(rep.TranscriptMessages()); !slices.Equal(got, []string{"s", "u1", "a1", "lost-u", "lost-a", "other", "a2"}) {
		t.Errorf("transcript %v", got)
	}
	var marks []Resync
	for _, it := range rep.Transcript {
		if it.Compaction != nil {
			t.Errorf("a re-sync shown as a compaction: %+v", it.Compaction)
		}
		if it.Resync != nil {
			marks = append(marks, *it.Resync)
		}
	}
	if len(marks) != 1 || marks[0] != (Resync{Line: 7, Timestamp: "2026-01-01T00:00:05.000Z", Before: 5, After: 4, Added: 1}) {
		t.Errorf("marks %+v", marks)
	}
	h := rep.History()
	if len(h) != 8 || field(h[5], "type") != "resync" || field(h[5], "category") != "event" || field(h[5], "data.messagesAfter") != "4" {
		t.Errorf("history %s", joinRaw(h))
	}
}

func TestReplaySkipsWhatItCannotUse(t *testing.T) {
	rep := replayString(t, "garbage\n"+logOf(
		ev(1, "history_mutation", `"mutation":"append_message","message":{"id":"u","role":"user","content":"kept"}`),
		ev(2, "history_mutation", `"mutation":"append_message","message":{"id":"x","role":"robot"}`),
		ev(3, "history_mutation", `"mutation":"append_message","message":"not an object"`),
		ev(4, "history_mutation", `"mutation":"unknown_kind","message":{"id":"y","role":"user"}`),
	)+`{"timestamp":"2026-01-01T00:00:05.000Z","sessionId":"s","event":"history_mut`)
	if got := ids(rep.Messages); !slices.Equal(got, []string{"u"}) {
		t.Errorf("messages %v", got)
	}
	var lines []int
	for _, w := range rep.Warnings {
		lines = append(lines, w.Line)
	}
	if !slices.Equal(lines, []int{1, 3, 4, 6}) || !strings.Contains(rep.Warnings[3].Message, "incomplete") {
		t.Errorf("warnings %+v", rep.Warnings)
	}
	if rep.UpdatedAt != "2026-01-01T00:00:04.000Z" || rep.Entries != 5 {
		t.Errorf("updatedAt %s entries %d: a torn tail is not a line", rep.UpdatedAt, rep.Entries)
	}
}

func TestReplayRoundTripsWhatTheWriterExternalized(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "rt.jsonl")
	w := openTest(t, path, Options{SessionID: "rt", PayloadThreshold: 100})
	big := strings.Repeat("a long line of tool output\n", 20)
	msgs := []Object{
		{F("id", "m1"), F("role", "user"), F("content", "short")},
		// The content alone goes to a payload file.
		{F("id", "m2"), F("role", "tool"), F("content", big), F("toolCallId", "t")},
		// Many small fields: the message as a whole goes to one.
		{F("id", "m3"), F("role", "assistant"), F("content", strings.Repeat("x", 60)), F("metadata", Object{F("a", strings.Repeat("y", 60))})},
		// A big child inside a big parent: a payload that refers to a payload.
		{F("id", "m4"), F("role", "tool"), F("content", big+"!"), F("name", strings.Repeat("n", 80)), F("toolCallId", "u")},
	}
	for i, m := range msgs {
		logOK(t, w, "history_mutation", F("mutation", "append_message"), F("index", i), F("message", m))
	}
	logOK(t, w, "history_mutation", F("mutation", "replace_all"), F("messages", msgs[2:]))
	w.Close()
	raw, _ := os.ReadFile(path)
	if bytes.Count(raw, refKind) < 4 {
		t.Fatalf("the writer externalized too little for this test:\n%s", raw)
	}
	rep, err := ReplayFile(path, ReplayOptions{Transcript: true})
	if err != nil {
		t.Fatal(err)
	}
	tr := rep.TranscriptMessages()
	if len(tr) != 4 || len(rep.Messages) != 2 {
		t.Fatalf("transcript %d messages, context %d", len(tr), len(rep.Messages))
	}
	for i, m := range msgs {
		want, _ := Marshal(m)
		if !bytes.Equal(tr[i], want) {
			t.Errorf("message %d\n%s\nwant\n%s", i, tr[i], want)
		}
	}
	if want, _ := Marshal(msgs[3]); !bytes.Equal(rep.Messages[1], want) {
		t.Errorf("context message from an externalized list\n%s", rep.Messages[1])
	}
}

func TestReplayFailsOnAPayloadItCannotTrust(t *testing.T) {
	dir := t.TempDir()
	content := []byte(`{"id":"m","role":"user","content":"hi"}`)
	h := sha(content)
	if err := os.MkdirAll(filepath.Join(dir, "s.payloads"), 0o700); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(dir, "s.payloads", h+".json"), []byte(`{"id":"m","role":"user","content":"HI"}`), 0o600)
	line := ev(0, "history_mutation", `"mutation":"append_message","message":`+refJSON("s", content))
	_, err := ReplayLog(strings.NewReader(logOf(line)), ReplayOptions{Dir: dir, SessionID: "s"})
	var perr *PayloadError
	if !errors.As(err, &perr) || perr.Code != CodePayloadSHA256 || !strings.Contains(err.Error(), "line 1") {
		t.Fatalf("err = %v", err)
	}
}

func joinRaw(msgs []json.RawMessage) string {
	var b strings.Builder
	for _, m := range msgs {
		b.Write(m)
		b.WriteByte('\n')
	}
	return b.String()
}

func FuzzReplay(f *testing.F) {
	for _, name := range []string{"valid.jsonl", "valid-payload.jsonl", "log-truncated-tail.jsonl"} {
		if b, err := os.ReadFile(filepath.Join(corpus, name)); err == nil {
			f.Add(b)
		}
	}
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, data []byte) {
		rep, err := ReplayLog(bytes.NewReader(data), ReplayOptions{Dir: dir, SessionID: "s", Transcript: len(data)%2 == 0})
		if err != nil {
			var perr *PayloadError
			if !errors.As(err, &perr) {
				t.Fatalf("replay of bytes failed with %v", err)
			}
			return
		}
		for _, m := range rep.Messages {
			if !json.Valid(m) {
				t.Fatalf("message is not JSON: %q", m)
			}
		}
		for _, h := range rep.History() {
			if !json.Valid(h) {
				t.Fatalf("history entry is not JSON: %q", h)
			}
		}
	})
}
