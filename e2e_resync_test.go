package main_test

import (
	"encoding/json"
	"os/exec"
	"strings"
	"testing"

	"trail/store"
)

// Log and record must never stay apart (SPEC 7.1): a step whose answer
// reached the log but whose save failed, and a record another program
// rewrote, are brought back in line by the next step, before it appends
// anything of its own.

// bigField makes the record far bigger than the log, so a file size limit
// can fail the record's save while every log line is still written.
func (e *env) bigField(id string) {
	e.t.Helper()
	st := store.New(e.home)
	r, err := st.Load(id)
	if err != nil {
		e.t.Fatal(err)
	}
	big, _ := json.Marshal([]string{strings.Repeat("opaque memory of another program ", 60_000)})
	r.Fields.SetRaw("memoryEvents", big)
	if err := st.Save(r); err != nil {
		e.t.Fatal(err)
	}
}

// limitedRun runs trail under a file size limit of about 1 MB (ulimit -f
// counts 512- or 1024-byte blocks depending on the shell: either is far
// above the log and far below the record). It holds for root too, where a
// read-only folder would not.
func (e *env) limitedRun(args ...string) result {
	e.t.Helper()
	quoted := make([]string, len(args))
	for i, a := range args {
		quoted[i] = "'" + strings.ReplaceAll(a, "'", `'\''`) + "'"
	}
	c := exec.Command("/bin/sh", "-c", "ulimit -f 1000 && exec "+trailBin+" "+strings.Join(quoted, " "))
	c.Dir, c.Env = e.cwd, e.environ()
	return e.wait(c)
}

func TestAFailedSaveIsRepairedOnTheNextResume(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.must("", "run", "--provider", "echo", "--session-id", "fs-1", "one")
	e.bigField("fs-1")
	before := e.recordMessages("fs-1")

	// The answer is logged, the save fails: the record keeps 3 messages
	// and the log has 5.
	r := e.limitedRun("resume", "fs-1", "lost turn")
	if r.code != 1 || !strings.Contains(r.stderr, "file too large") {
		t.Fatalf("the save did not fail: %s", r)
	}
	if got := e.recordMessages("fs-1"); len(got) != len(before) {
		t.Fatalf("the failed save changed the record: %d messages", len(got))
	}
	if got := e.replayMessages("fs-1"); len(got) != len(before)+2 {
		t.Fatalf("the log has %d messages, want the record's %d and the lost turn", len(got), len(before))
	}

	// The next resume puts the log back in line with the record first.
	if r := e.must("", "resume", "fs-1", "two"); r.stdout != "echo: two\n" {
		t.Fatalf("%s", r)
	}
	e.checkReplayMatchesRecord("fs-1")
	e.validateAll() // --strict
	msgs := e.messages("fs-1")
	if len(msgs) != 5 || msgs[3]["content"] != "two" {
		t.Fatalf("record messages %v", msgs)
	}
	rs := e.events("fs-1", "log_resync")
	if len(rs) != 1 || rs[0]["mutation"] != "replace_all" || rs[0]["logMessages"] != 5.0 || rs[0]["recordMessages"] != 3.0 {
		t.Fatalf("log_resync %v", rs)
	}
	// The transcript still shows what was said, and where the
	// conversation went back to the record's.
	text := e.must("", "replay", "fs-1", "--view", "transcript", "--format", "text").stdout
	lost, mark, two := strings.Index(text, "lost turn"), strings.Index(text, "re-synced with the record"), strings.Index(text, "echo: two")
	if lost < 0 || mark < lost || two < mark || strings.Contains(text, "compacted") {
		t.Fatalf("transcript:\n%s", text)
	}
	if text := e.must("", "replay", "fs-1", "--format", "text").stdout; !strings.Contains(text, "re-synced with the record 1 time;") || strings.Contains(text, "lost turn") {
		t.Fatalf("context view:\n%s", text)
	}
	// A record rebuilt from the log is the record.
	want := e.recordMessages("fs-1")
	e.must("", "replay", "fs-1", "--write-record", "--force")
	got := e.recordMessages("fs-1")
	if len(got) != len(want) {
		t.Fatalf("the rebuilt record has %d messages, the record %d", len(got), len(want))
	}
	for i := range want {
		if string(got[i]) != string(want[i]) {
			t.Fatalf("rebuilt message %d:\n%s\n%s", i, got[i], want[i])
		}
	}
	e.must("", "resume", "fs-1", "three")
	if rs := e.events("fs-1", "log_resync"); len(rs) != 1 {
		t.Fatalf("a log in line with its rebuilt record was re-synced again: %v", rs)
	}
}

// Robota compacted the session (its log does not say so) or aborted a
// turn: its record has fewer messages than its log replays to. trail's next
// step logs the record's list, so replay gives the record again, the
// system message with Robota's own id included.
func TestARobotaRecordThatCountsDifferentlyIsResynced(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.robotaHome()
	st := store.New(e.home)
	r, err := st.Load(robotaID)
	if err != nil {
		t.Fatal(err)
	}
	summary := json.RawMessage(`{"id":"msg_sum_01","role":"assistant","content":"[Context Summary]\nThe README has 520 numbered lines.","state":"complete","timestamp":"2026-01-01T00:02:00.000Z"}`)
	r.Messages = []json.RawMessage{r.Messages[0], summary}
	if err := st.Save(r); err != nil {
		t.Fatal(err)
	}
	if got := e.replayMessages(robotaID); len(got) == len(r.Messages) {
		t.Fatalf("the fixture does not count differently: %d messages both", len(got))
	}
	if r := e.must("", "resume", robotaID, "and now?", "--provider", "echo"); r.stdout != "echo: and now?\n" {
		t.Fatalf("%s", r)
	}
	e.checkReplayMatchesRecord(robotaID) // byte for byte, Robota's system message id included
	msgs := e.messages(robotaID)
	if len(msgs) != 4 || msgs[0]["id"] != "msg_sys_7f3a" || msgs[1]["id"] != "msg_sum_01" {
		t.Fatalf("record messages %v", msgs)
	}
	r2 := e.run("", "validate-log", "--strict", robotaID)
	if r2.code != 0 {
		t.Fatalf("validate-log --strict after the re-sync: %s", r2)
	}
	rs := e.events(robotaID, "log_resync")
	if len(rs) != 1 || rs[0]["mutation"] != "replace_all" || rs[0]["firstDifference"] != 1.0 {
		t.Fatalf("log_resync %v", rs)
	}
}
