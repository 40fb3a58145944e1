package main_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/tidwall/gjson"

	"trail/core/provider/wire/wiretest"
)

// Round trips with files Robota wrote (testdata/robota, README there says
// which function of Robota's code each shape comes from): trail resumes
// them, and afterwards `validate-log --strict` passes and replay gives the
// record again, byte for byte.

const (
	robotaCompactedID = "session_1767312000000_c0mp4ct3d"
	robotaAbortedID   = "session_1767398400000_ab0rt3d7x"
	robotaSavedID     = "01a21bea-1465-752a-a4d8-7bd9255eafa2" // a trail session Robota resumed and saved
)

// messageIDs are the ids of a list of messages, in order.
func messageIDs(t *testing.T, msgs []json.RawMessage) []string {
	t.Helper()
	ids := make([]string, len(msgs))
	for i, m := range msgs {
		var v struct{ ID string }
		if err := json.Unmarshal(m, &v); err != nil {
			t.Fatal(err)
		}
		ids[i] = v.ID
	}
	return ids
}

func TestARobotaCompactedSessionIsMarkedThenResumedInLine(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.rawLogs = true // Robota wrote the log, and it lacks the compaction's list
	e.robotaFixture(robotaCompactedID)
	id := robotaCompactedID

	// Robota logs context_compact but not the summary: validation warns,
	// and --strict fails on it.
	r := e.run("", "validate-log", id)
	if r.code != 0 || !strings.Contains(r.stdout, ":28: warning LOG_COMPACTION_SUMMARY_MISSING") {
		t.Fatalf("validate-log: %s", r)
	}
	if r := e.run("", "validate-log", "--strict", id); r.code != 7 {
		t.Fatalf("validate-log --strict on a log without its compaction summary: %s", r)
	}
	r = e.run("", "validate-log", "--format", "json", id)
	if !strings.Contains(r.stdout, `"code":"LOG_COMPACTION_SUMMARY_MISSING","severity":"warning"`) {
		t.Errorf("json report: %s", r.stdout)
	}
	// Replay says so on stderr, the transcript marks it.
	r = e.must("", "replay", id, "--format", "json")
	if !strings.Contains(r.stderr, ":28: the conversation was compacted here and the log holds no summary") ||
		!strings.Contains(r.stderr, "cannot be rebuilt past this point") {
		t.Errorf("replay stderr: %q", r.stderr)
	}
	r = e.must("", "replay", id, "--view", "transcript", "--format", "jsonl")
	if !strings.Contains(r.stdout, `{"compaction":{"line":28,"timestamp":"2026-01-02T00:01:01.000Z","messagesBefore":5,"messagesAfter":null,"summaryMissing":true}}`) {
		t.Errorf("transcript jsonl has no summary-missing marker:\n%s", r.stdout)
	}
	r = e.must("", "replay", id, "--view", "transcript", "--format", "text")
	if !strings.Contains(r.stdout, "(log line 28), summary not in the log") {
		t.Errorf("transcript text:\n%s", r.stdout)
	}
	if got := len(e.replayMessages(id)); got != 7 {
		t.Fatalf("before the resume replay has %d messages, want the log's 7 (the record has 4)", got)
	}

	// trail resumes: the log is re-synced with the record first.
	if r := e.must("", "resume", id, "and now?", "--provider", "echo"); r.stdout != "echo: and now?\n" {
		t.Fatalf("resume: %s", r)
	}
	e.checkReplayMatchesRecord(id)
	ids := messageIDs(t, e.recordMessages(id))
	if len(ids) != 6 || ids[0] != "msg_sys_c2" || ids[1] != "msg_sum_c1" || ids[3] != "msg_c_a3" {
		t.Fatalf("record after the resume: %v", ids)
	}
	r = e.run("", "validate-log", "--strict", id)
	if r.code != 0 || strings.Contains(r.stdout, "HISTORY_INDEX_MISMATCH") {
		t.Fatalf("validate-log --strict after the resume: %s", r)
	}
	if r := e.must("", "replay", id, "--format", "json"); strings.Contains(r.stderr, "compacted") {
		t.Errorf("the re-sync brought the record's list back, yet replay warns: %s", r.stderr)
	}
	rs := e.events(id, "log_resync")
	if len(rs) != 1 || rs[0]["mutation"] != "replace_all" || rs[0]["logMessages"] != 7.0 || rs[0]["recordMessages"] != 4.0 {
		t.Fatalf("log_resync %v", rs)
	}
	// A second resume finds them in line.
	e.must("", "resume", id, "once more", "--provider", "echo")
	if rs := e.events(id, "log_resync"); len(rs) != 1 {
		t.Errorf("re-synced again: %v", rs)
	}
	e.checkReplayMatchesRecord(id)
	e.must("", "validate-log", "--strict", id)
}

func TestARobotaAbortedThenResumedSessionResumesInLine(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.rawLogs = true
	e.robotaFixture(robotaAbortedID)
	id := robotaAbortedID
	// Robota committed the interrupted answer without logging it, then
	// numbered its next turn by its own history.
	if got, want := len(e.replayMessages(id)), len(e.recordMessages(id)); got != 6 || want != 7 {
		t.Fatalf("fixture: replay %d, record %d", got, want)
	}
	if r := e.must("", "resume", id, "and now?", "--provider", "echo"); r.stdout != "echo: and now?\n" {
		t.Fatalf("resume: %s", r)
	}
	e.checkReplayMatchesRecord(id)
	msgs := e.messages(id)
	if len(msgs) != 9 || msgs[4]["id"] != "msg_b_a2" || msgs[4]["state"] != "interrupted" {
		t.Fatalf("record after the resume: %v", msgs)
	}
	// Robota keeps no title: the session is titled by how it began, not by
	// the prompt that resumed it (SPEC 3.2: the first user prompt).
	if title := e.record(id)["title"]; title != msgs[1]["content"] || title == "and now?" {
		t.Errorf("title %q, want the first prompt %q", title, msgs[1]["content"])
	}
	if r := e.run("", "validate-log", "--strict", id); r.code != 0 {
		t.Fatalf("validate-log --strict after the resume: %s", r)
	}
	if ab := e.events(id, "abandoned_requests"); len(ab) != 1 {
		t.Errorf("the aborted request was not closed: %v", ab)
	}
}

func TestARobotaSessionReplaysWithItsOwnSystemMessage(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.robotaHome()
	// Robota does not log its system message; its pre_run lists it, with
	// the id and fields its record keeps.
	e.checkReplayMatchesRecord(robotaID)
	e.must("", "resume", robotaID, "and now?", "--provider", "echo")
	e.checkReplayMatchesRecord(robotaID)
	if rs := e.events(robotaID, "log_resync"); len(rs) != 0 {
		t.Errorf("a log that replays to its record was re-synced: %v", rs)
	}
	if ids := messageIDs(t, e.replayMessages(robotaID)); ids[0] != "msg_sys_7f3a" {
		t.Errorf("system message %q", ids[0])
	}
}

func TestResumingARecordWithoutHistoryFillsItForEveryMessage(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.robotaHome() // Robota's record from before history existed
	if _, ok := e.record(robotaID)["history"]; ok {
		t.Fatal("the fixture has a history")
	}
	e.must("", "resume", robotaID, "and now?", "--provider", "echo")
	rec := e.record(robotaID)
	hist, _ := rec["history"].([]any)
	msgs := e.messages(robotaID)
	if len(msgs) != 9 || len(hist) != len(msgs) {
		t.Fatalf("%d history entries for %d messages", len(hist), len(msgs))
	}
	for i, h := range hist {
		entry := h.(map[string]any)
		data, _ := entry["data"].(map[string]any)
		if entry["category"] != "chat" || entry["id"] != msgs[i]["id"] || entry["type"] != msgs[i]["role"] ||
			entry["timestamp"] != msgs[i]["timestamp"] || data["content"] != msgs[i]["content"] {
			t.Errorf("history entry %d: %v, message %v", i, entry, msgs[i])
		}
	}
}

func TestListCountsTheMessagesOfARecordAnotherProgramSaved(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.robotaFixture(robotaSavedID)
	// Robota's save kept trail's header (messageCount 3) and added a turn.
	if rec := e.record(robotaSavedID); rec["messageCount"] != 3.0 || len(e.messages(robotaSavedID)) != 5 {
		t.Fatalf("fixture: messageCount %v, %d messages", rec["messageCount"], len(e.messages(robotaSavedID)))
	}
	count := func() any {
		t.Helper()
		var rows []map[string]any
		r := e.must("", "list", "--json")
		if err := json.Unmarshal([]byte(r.stdout), &rows); err != nil || len(rows) != 1 {
			t.Fatalf("list --json: %v\n%s", err, r.stdout)
		}
		return rows[0]["messageCount"]
	}
	if got := count(); got != 5.0 {
		t.Fatalf("list shows %v messages, the record has 5", got)
	}
	if r := e.must("", "list"); !strings.Contains(r.stdout, "\tidle\t5\trobota-saved\t") {
		t.Errorf("list: %s", r.stdout)
	}
	// trail's next save stamps the count with its updatedAt again.
	e.must("", "resume", robotaSavedID, "and now?", "--provider", "echo")
	rec := e.record(robotaSavedID)
	if rec["messageCount"] != 7.0 || rec["messageCountAt"] != rec["updatedAt"] || count() != 7.0 {
		t.Errorf("after trail's save: messageCount %v at %v, updatedAt %v", rec["messageCount"], rec["messageCountAt"], rec["updatedAt"])
	}
	e.checkReplayMatchesRecord(robotaSavedID)
	e.must("", "validate-log", "--strict", robotaSavedID)
}

func TestThePromptIsLoggedBeforeItsRequestAndSuccessesHaveNoEmptyKeys(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.writeFile("notes.txt", "hello\n")
	s := e.script(calls(call("Read", map[string]any{"filePath": "notes.txt"}), call("Nope", map[string]any{})), answer("done"))
	e.must("", "run", "--provider", "script", "--script", s, "read it")
	id := e.onlySession()
	var events []string
	var results []map[string]any
	for _, l := range e.logLines(id) {
		ev := l["event"].(string)
		if ev == "history_mutation" {
			m, _ := l["message"].(map[string]any)
			ev += ":" + m["role"].(string)
		}
		events = append(events, ev)
		if ev == "tool_execution_result" {
			results = append(results, l)
		}
	}
	user, request := slices.Index(events, "history_mutation:user"), slices.Index(events, "provider_request")
	if user < 0 || request < 0 || user > request {
		t.Errorf("the prompt's history_mutation (line %d) is not before the first provider_request (line %d): %v", user+1, request+1, events)
	}
	if len(results) != 2 {
		t.Fatalf("%d tool results", len(results))
	}
	ok, failed := results[0], results[1]
	if ok["success"] != true {
		t.Fatalf("Read failed: %v", ok)
	}
	if _, has := ok["error"]; has {
		t.Errorf("a success has error: %v", ok)
	}
	if _, has := ok["metadata"]; has {
		t.Errorf("a success has metadata: %v", ok)
	}
	if failed["success"] != false || failed["error"] == nil || failed["metadata"] == nil {
		t.Errorf("a failure lost its error or metadata: %v", failed)
	}
	e.checkReplayMatchesRecord(id)
}

// Another program may log a message in other bytes than its record holds
// (key order, escapes). Replay reads them as the same conversation, but a
// request digest hashes bytes: the first trail step re-syncs the log with
// the record's bytes, so the requests it logs prove themselves.
func TestALogInAnotherKeyOrderIsResyncedSoRequestDigestsHold(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.robotaFixture(robotaID)
	b, err := os.ReadFile(e.logPath(robotaID))
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.SplitAfter(string(b), "\n")
	changed := false
	for i, l := range lines {
		if !strings.Contains(l, `"append_message"`) || !strings.Contains(l, `"msg_u1_9b2c"`) {
			continue
		}
		var line map[string]json.RawMessage
		if err := json.Unmarshal([]byte(l), &line); err != nil {
			t.Fatal(err)
		}
		var msg map[string]any // re-encoded with its keys sorted
		if err := json.Unmarshal(line["message"], &msg); err != nil {
			t.Fatal(err)
		}
		sorted, _ := json.Marshal(msg)
		lines[i] = strings.Replace(l, string(line["message"]), string(sorted), 1)
		changed = lines[i] != l
	}
	if !changed {
		t.Fatal("the fixture's first user message was not found in its log")
	}
	if err := os.WriteFile(e.logPath(robotaID), []byte(strings.Join(lines, "")), 0o600); err != nil {
		t.Fatal(err)
	}
	e.must("", "resume", robotaID, "next", "--provider", "echo")
	if r := e.run("", "validate-log", "--strict", robotaID); r.code != 0 {
		t.Fatalf("validate-log --strict after the resume: %s", r)
	}
	if r := e.must("", "replay", robotaID, "--view", "requests", "--format", "jsonl"); strings.Count(r.stdout, "\n") < 1 {
		t.Fatalf("replay --view requests: %s", r)
	}
	e.checkReplayMatchesRecord(robotaID)
}

// A record whose conversation lost its system message (Robota saves that
// shape after /clear, messages empty or not) gets its systemPrompt back in
// front, as Robota's next run applies it: the model gets the prompt, and
// the log replays to the record.
func TestARecordWithoutItsSystemMessageGetsItsPromptBack(t *testing.T) {
	t.Parallel()
	text := wiretest.Transcript(t, "anthropic/text.sse")
	srv := wiretest.NewServer(t, wiretest.Replay(text), wiretest.Replay(text))
	e := anthropicEnv(t)
	msgs := map[string]string{
		"nosys": `[{"id":"u1","role":"user","content":"q","state":"complete","timestamp":"2025-06-01T00:00:00.000Z"},` +
			`{"id":"a1","role":"assistant","content":"a","state":"complete","timestamp":"2025-06-01T00:00:01.000Z"}]`,
		"cleared": `[]`,
	}
	for i, id := range []string{"nosys", "cleared"} {
		e.writeFile(filepath.Join(e.home, "sessions", id+".json"), `{"id":"`+id+`","cwd":"`+e.cwd+`","createdAt":"2025-06-01T00:00:00.000Z",`+
			`"updatedAt":"2025-06-02T00:00:00.000Z","messages":`+msgs[id]+`,"history":[],"systemPrompt":"You are terse."}`)
		e.must("", "resume", id, "--base-url", srv.URL, "hi")
		if got := gjson.GetBytes(srv.Body(i), "system.0.text").String(); got != "You are terse." {
			t.Errorf("%s: system sent %q", id, gjson.GetBytes(srv.Body(i), "system").Raw)
		}
		rec := e.messages(id)
		if rec[0]["role"] != "system" || rec[0]["content"] != "You are terse." {
			t.Errorf("%s: first message %v", id, rec[0])
		}
		e.checkReplayMatchesRecord(id)
		e.must("", "validate-log", "--strict", id)
	}
}
