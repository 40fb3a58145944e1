package main_test

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"
)

// foreignRecord is a record as another program (Robota) writes it, with
// fields trail does not know.
const foreignRecord = `{
  "id": "%s",
  "cwd": "%s",
  "createdAt": "2026-05-05T00:00:00.000Z",
  "updatedAt": "2026-05-05T00:00:01.000Z",
  "messages": [
    {"id": "s1", "role": "system", "content": "be brief", "state": "complete", "timestamp": "2026-05-05T00:00:00.000Z"},
    {"id": "u1", "role": "user", "content": "hello", "state": "complete", "timestamp": "2026-05-05T00:00:01.000Z", "parts": [{"type": "text", "text": "hello"}]},
    {"id": "a1", "role": "assistant", "content": "hi", "state": "complete", "timestamp": "2026-05-05T00:00:01.000Z", "metadata": {"custom": [1, 2.50, "x"]}}
  ],
  "history": [],
  "backgroundTasks": [{"id": "bg1", "state": "done", "nested": {"deep": [true, null, 1e3]}}],
  "memoryEvents": [],
  "sandboxSnapshotId": "snap-<42>&co",
  "futureField": {"b": 1, "a": "\u00e9t\u00e9"},
  "bigNumber": 12345678901234567890
}
`

func TestUnknownFieldsSurviveResumeAndHeaderComesFirst(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	id := "robota-session-1"
	if err := os.MkdirAll(filepath.Join(e.home, "sessions"), 0o700); err != nil {
		t.Fatal(err)
	}
	before := []byte(strings.Replace(strings.Replace(foreignRecord, "%s", id, 1), "%s", e.cwd, 1))
	if err := os.WriteFile(e.recordPath(id), before, 0o600); err != nil {
		t.Fatal(err)
	}
	e.must("", "resume", id, "more", "--provider", "echo")
	after, err := os.ReadFile(e.recordPath(id))
	if err != nil {
		t.Fatal(err)
	}
	var b, a map[string]json.RawMessage
	if err := json.Unmarshal(before, &b); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(after, &a); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"backgroundTasks", "memoryEvents", "sandboxSnapshotId", "futureField", "bigNumber"} {
		if compact(t, a[k]) != compact(t, b[k]) {
			t.Errorf("%s changed:\nbefore %s\nafter  %s", k, b[k], a[k])
		}
	}
	// the stored messages keep their unknown keys too
	var msgs []json.RawMessage
	json.Unmarshal(a["messages"], &msgs)
	if len(msgs) != 5 || !strings.Contains(string(msgs[1]), `"parts"`) || !strings.Contains(string(msgs[2]), `2.50`) {
		t.Fatalf("messages after resume: %s", a["messages"])
	}
	if !bytes.HasPrefix(bytes.TrimSpace(after), []byte("{\n  \"id\": ")) {
		t.Fatalf("id is not the first key:\n%.200s", after)
	}
	keys := topLevelKeys(t, after)
	pos := map[string]int{}
	for i, k := range keys {
		pos[k] = i
	}
	for _, header := range []string{"cwd", "createdAt", "updatedAt", "status", "messageCount", "title"} {
		if _, ok := pos[header]; !ok {
			continue
		}
		if pos[header] > pos["messages"] || pos[header] > pos["backgroundTasks"] {
			t.Errorf("header field %s comes after the body: %v", header, keys)
		}
	}
	if keys[len(keys)-2] != "messages" || keys[len(keys)-1] != "history" {
		t.Errorf("messages and history must come last: %v", keys)
	}
}

func compact(t *testing.T, raw json.RawMessage) string {
	t.Helper()
	var buf bytes.Buffer
	if err := json.Compact(&buf, raw); err != nil {
		t.Fatalf("compact %s: %v", raw, err)
	}
	return buf.String()
}

func topLevelKeys(t *testing.T, data []byte) []string {
	t.Helper()
	dec := json.NewDecoder(bytes.NewReader(data))
	if _, err := dec.Token(); err != nil {
		t.Fatal(err)
	}
	var keys []string
	for dec.More() {
		k, err := dec.Token()
		if err != nil {
			t.Fatal(err)
		}
		keys = append(keys, k.(string))
		var skip json.RawMessage
		if err := dec.Decode(&skip); err != nil {
			t.Fatal(err)
		}
	}
	return keys
}

func TestConcurrentResumesLoseNoTurn(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.must("", "run", "--provider", "echo", "start")
	id := e.onlySession()
	const n = 8
	var wg sync.WaitGroup
	results := make([]result, n)
	start := make(chan struct{})
	for i := 0; i < n; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			<-start
			results[i] = e.run("", "resume", id, "turn")
		}(i)
	}
	close(start)
	wg.Wait()
	for i, r := range results {
		if r.code != 0 {
			t.Fatalf("resume %d: %s", i, r)
		}
	}
	if got, want := len(e.messages(id)), 3+2*n; got != want {
		t.Fatalf("%d messages after %d concurrent resumes, want %d", got, n, want)
	}
	lines := e.logLines(id)
	for i, l := range lines {
		if l["seq"] != float64(i) {
			t.Fatalf("line %d seq = %v: concurrent appends interleaved", i+1, l["seq"])
		}
	}
}

func TestBusySessionExitsFive(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	// The slow answer would take 30 s: the step holds the lock until the
	// busy resume has been refused, then Ctrl-C ends it.
	s := e.script(map[string]any{"text": "a"}, map[string]any{"text": "slow answer", "delayMs": 30000}, map[string]any{"text": "c"})
	e.must("", "run", "--provider", "script", "--script", s, "one")
	id := e.onlySession()
	slow := e.cmd("resume", id, "two")
	if err := slow.Start(); err != nil {
		t.Fatal(err)
	}
	defer slow.Process.Kill()
	// wait until the slow step holds the lock (its log shows the request)
	waitFor(t, func() bool {
		b, _ := os.ReadFile(e.logPath(id))
		return bytes.Count(b, []byte(`"provider_request"`)) >= 2
	})
	r := e.run("", "resume", id, "three", "--wait", "200ms")
	if r.code != 5 || !strings.Contains(r.stderr, "is busy") {
		t.Fatalf("busy resume: %s", r)
	}
	if err := slow.Process.Signal(os.Interrupt); err != nil {
		t.Fatal(err)
	}
	if err := slow.Wait(); slow.ProcessState.ExitCode() != 130 {
		t.Fatalf("the slow step after Ctrl-C: %v", err)
	}
}

func TestTruncatedRecordIsNeverOverwritten(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.rawLogs = true // the record is corrupt on purpose
	e.must("", "run", "--provider", "echo", "--name", "nightly", "hello")
	id := e.onlySession()
	full, _ := os.ReadFile(e.recordPath(id))
	cut := full[:len(full)/2]
	os.WriteFile(e.recordPath(id), cut, 0o600)

	r := e.run("", "resume", id, "again", "--provider", "echo")
	if r.code != 7 || !strings.Contains(r.stderr, e.recordPath(id)) {
		t.Fatalf("resume of a truncated record: %s", r)
	}
	// its name is still its own (its log says it): reached by name, with
	// the repair, and not free for a new session (a "resume, else run"
	// script forked the conversation, and the repair lost the name)
	if r := e.run("", "resume", "nightly", "again", "--provider", "echo"); r.code != 7 || !strings.Contains(r.stderr, e.recordPath(id)) {
		t.Errorf("resume by the name of a truncated record: %s", r)
	}
	if r := e.run("", "run", "--name", "nightly", "--provider", "echo", "hi"); r.code != 2 || !strings.Contains(r.stderr, `the name "nightly" is taken`) ||
		!strings.Contains(r.stderr, "hint: its record does not parse: rebuild it with trail replay "+id+" --write-record") {
		t.Errorf("run --name of a truncated record's name: %s", r)
	}
	if r := e.run("", "resume", "--last", "again", "--provider", "echo"); r.code != 7 {
		t.Errorf("resume --last when the newest record is truncated: %s", r)
	}
	if strings.Count(strings.TrimSpace(r.stderr), "\n") > 1 {
		t.Errorf("error is more than a line and a hint: %q", r.stderr)
	}
	now, _ := os.ReadFile(e.recordPath(id))
	if !bytes.Equal(now, cut) {
		t.Fatal("the corrupt record was changed")
	}
	r = e.run("", "list")
	if r.code != 0 || !strings.Contains(r.stdout, id+"\t") || !strings.Contains(r.stdout, "\tcorrupt\t") {
		t.Fatalf("list: %s", r)
	}
	if !strings.Contains(r.stderr, "corrupt") {
		t.Errorf("list warns nothing about the corrupt record: %q", r.stderr)
	}
}

func TestPathLikeIDIsRefusedBeforeAnyFile(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	r := e.run("", "resume", "../../etc/passwd", "hi", "--provider", "echo")
	if r.code != 2 || !strings.Contains(r.stderr, "invalid session id") {
		t.Fatalf("%s", r)
	}
	if _, err := os.Stat(e.home); !os.IsNotExist(err) {
		t.Fatalf("trail touched its home for a path-like id: %v", err)
	}
	r = e.run("", "run", "--provider", "echo", "--session-id", "../x", "hi")
	if r.code != 2 {
		t.Fatalf("--session-id ../x: %s", r)
	}
	if _, err := os.Stat(e.home); !os.IsNotExist(err) {
		t.Fatalf("trail touched its home for a bad --session-id: %v", err)
	}
}

func TestAmbiguousPrefixListsCandidates(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.must("", "run", "--provider", "echo", "--session-id", "abcd-one", "a")
	e.must("", "run", "--provider", "echo", "--session-id", "abcd-two", "b")
	r := e.run("", "resume", "abcd", "c")
	if r.code != 3 || !strings.Contains(r.stderr, "abcd-one") || !strings.Contains(r.stderr, "abcd-two") {
		t.Fatalf("%s", r)
	}
	r = e.must("", "resume", "abcd-t", "c")
	if r.stdout != "echo: c\n" {
		t.Fatalf("unique prefix: %s", r)
	}
	r = e.run("", "resume", "zzzz-unknown", "c")
	if r.code != 3 {
		t.Fatalf("unknown id: %s", r)
	}
}

// A name is as good a reference as an id prefix: when one session is named
// "review" and another's id starts with "review", neither is picked.
// trail refuses both a --name that starts another session's id and a
// --session-id that starts a name, but another program may put such a
// record in the home.
func TestANameThatIsAnotherSessionsIDPrefixIsAmbiguous(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.must("", "run", "--provider", "echo", "--session-id", "named", "--name", "review", "b")
	e.must("", "run", "--provider", "echo", "--session-id", "other", "a")
	if err := os.Rename(e.recordPath("other"), e.recordPath("review-2")); err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(e.logPath("other")); err != nil {
		t.Fatal(err)
	}
	before := filesUnder(t, e.home)
	r := e.run("", "resume", "review", "c")
	if r.code != 3 || !strings.Contains(r.stderr, "named") || !strings.Contains(r.stderr, "review-2") {
		t.Fatalf("%s", r)
	}
	if after := filesUnder(t, e.home); !reflect.DeepEqual(before, after) {
		t.Fatal("an ambiguous reference changed files")
	}
}

// A record copied under a new name is a new session: resuming the copy
// must leave the session its "id" member names alone.
func TestACopiedRecordResumesAsItself(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.must("", "run", "--provider", "echo", "--session-id", "orig", "hello")
	orig, err := os.ReadFile(e.recordPath("orig"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(e.recordPath("copy"), orig, 0o600); err != nil {
		t.Fatal(err)
	}
	if r := e.must("", "resume", "copy", "again"); r.stdout != "echo: again\n" {
		t.Fatalf("%s", r)
	}
	if now, _ := os.ReadFile(e.recordPath("orig")); !bytes.Equal(now, orig) {
		t.Fatal("resuming the copy rewrote the original's record")
	}
	if rec := e.record("copy"); rec["id"] != "copy" || len(e.messages("copy")) != 5 {
		t.Fatalf("the copy after resume: id %v, %d messages", rec["id"], len(e.messages("copy")))
	}
}

// --older-than cannot tell the age of a corrupt record: it keeps it, says
// so on stderr, and deletes the rest; by id the corrupt one goes too.
func TestDeleteOlderThanNamesTheRecordsItCannotDate(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.must("", "run", "--provider", "echo", "--session-id", "fresh", "hi")
	os.WriteFile(e.recordPath("old"), []byte(`{"id":"old","cwd":"/x","createdAt":"2020-01-01T00:00:00.000Z","updatedAt":"2020-01-01T00:00:00.000Z","messages":[]}`), 0o600)
	os.WriteFile(e.recordPath("broken"), nil, 0o600)
	r := e.must("", "delete", "--older-than", "1d", "--yes")
	if r.stdout != "old\n" || !strings.Contains(r.stderr, "session broken has a corrupt record; not deleted") {
		t.Fatalf("%s", r)
	}
	if got := e.sessionIDs(); !reflect.DeepEqual(got, []string{"broken", "fresh"}) {
		t.Fatalf("sessions left: %v", got)
	}
	if r := e.must("", "delete", "broken", "--yes"); r.stdout != "broken\n" {
		t.Fatalf("delete of a corrupt record by id: %s", r)
	}
}

// --session-id of a session whose record is gone but whose log is not:
// that log is the session's only copy, and a new session must not be
// appended to it.
func TestSessionIDOfALogWithoutARecordIsRefused(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.must("", "run", "--provider", "echo", "--session-id", "lost", "one")
	if err := os.Remove(e.recordPath("lost")); err != nil {
		t.Fatal(err)
	}
	before := filesUnder(t, e.home)
	r := e.run("", "run", "--provider", "echo", "--session-id", "lost", "two")
	if r.code != 2 || !strings.Contains(r.stderr, "has a log but no record") || !strings.Contains(r.stderr, "replay lost --write-record") {
		t.Fatalf("%s", r)
	}
	if after := filesUnder(t, e.home); !reflect.DeepEqual(before, after) {
		t.Fatal("the refused run changed files")
	}
	e.must("", "replay", "lost", "--write-record")
}

func TestDeleteWithoutTerminalNeedsYes(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.must("", "run", "--provider", "echo", "a")
	id := e.onlySession()
	before := filesUnder(t, e.home)
	r := e.run("", "delete", id)
	if r.code != 2 || !strings.Contains(r.stderr, "--yes") {
		t.Fatalf("%s", r)
	}
	if after := filesUnder(t, e.home); len(after) != len(before) {
		t.Fatalf("delete without --yes removed files: %d -> %d", len(before), len(after))
	}
	r = e.must("", "delete", id, "--dry-run")
	if !strings.Contains(r.stdout, id) || len(filesUnder(t, e.home)) != len(before) {
		t.Fatalf("dry run: %s", r)
	}
	r = e.must("", "delete", id, "--yes")
	if strings.TrimSpace(r.stdout) != id {
		t.Fatalf("delete --yes: %s", r)
	}
	for _, p := range []string{e.recordPath(id), e.logPath(id), filepath.Join(e.home, "sessions", id+".lock")} {
		if _, err := os.Stat(p); !os.IsNotExist(err) {
			t.Errorf("%s still exists", p)
		}
	}
	if r := e.run("", "delete", "gone-id", "--yes"); r.code != 3 {
		t.Fatalf("unknown id: %s", r)
	}
	if r := e.run("", "delete", "gone-id", "--yes", "--force"); r.code != 0 {
		t.Fatalf("unknown id with --force: %s", r)
	}
}

func TestAPIKeyNeverReachesDiskAndBigPromptsBecomePayloads(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	key := "sk-ant-api03-" + strings.Repeat("Zx9", 20)
	e.setenv("ANTHROPIC_API_KEY=" + key)
	big := strings.Repeat("lorem ipsum ", 3000) // 36,000 bytes
	e.must("", "run", "--provider", "echo", big)
	e.must("", "resume", "--last", "small", "--provider", "echo")
	id := e.onlySession()
	for path, b := range filesUnder(t, e.home) {
		if bytes.Contains(b, []byte(key)) {
			t.Fatalf("%s contains the API key", path)
		}
	}
	dir := filepath.Join(e.home, "logs", id+".payloads")
	ents, err := os.ReadDir(dir)
	if err != nil || len(ents) == 0 {
		t.Fatalf("no payload files in %s: %v", dir, err)
	}
	found := false
	for _, en := range ents {
		b, _ := os.ReadFile(filepath.Join(dir, en.Name()))
		sum := sha256.Sum256(b)
		if en.Name() != hex.EncodeToString(sum[:])+".json" {
			t.Errorf("payload %s is not named by the sha256 of its bytes", en.Name())
		}
		var s string
		if json.Unmarshal(b, &s) == nil && s == big {
			found = true
		}
	}
	if !found {
		t.Fatal("the 36 KB prompt is not in a payload file")
	}
	log, _ := os.ReadFile(e.logPath(id))
	if !bytes.Contains(log, []byte(`"kind":"external-payload"`)) {
		t.Fatal("the log holds no external-payload reference")
	}
}

// A first step killed before its first save leaves a log and no record:
// list shows it and resume says so, both naming the repair, and delete by
// id removes the log.
func TestALogWithoutItsRecordIsNamedAndCanBeDeleted(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.rawLogs = true // the log has no record to replay to
	e.must("", "run", "--provider", "echo", "hi")
	id := e.onlySession()
	if err := os.Remove(e.recordPath(id)); err != nil {
		t.Fatal(err)
	}
	r := e.run("", "resume", id, "more", "--provider", "echo")
	if r.code != 3 || !strings.Contains(r.stderr, "has a log but no record") || !strings.Contains(r.stderr, "trail replay "+id+" --write-record") {
		t.Errorf("resume: %s", r)
	}
	r = e.must("", "list")
	// what the log says of it: its time, its first prompt, its cwd
	if !strings.HasPrefix(r.stdout, id+"\t20") || !strings.HasSuffix(r.stdout, "\tcorrupt\t0\thi\t"+e.cwd+"\n") || !strings.Contains(r.stderr, "has a log but no record") || !strings.Contains(r.stderr, "hint: trail replay "+id+" --write-record") {
		t.Errorf("list: %s", r)
	}
	if r := e.run("", "delete", id, "--yes"); r.code != 0 || r.stdout != id+"\n" {
		t.Errorf("delete: %s", r)
	}
	if _, err := os.Stat(e.logPath(id)); !os.IsNotExist(err) {
		t.Errorf("the log is still there: %v", err)
	}
}

// A save killed before its rename leaves the whole conversation in a temp
// file: delete takes Robota's <id>.json.<pid>.tmp and trail's own
// <id>.json.tmp-<digits> with the session, and leaves another session's.
func TestDeleteRemovesTheTempRecordsAKilledSaveLeft(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.robotaHome()
	e.must("", "run", "--provider", "echo", "--session-id", "other", "keep me")
	sessions := filepath.Join(e.home, "sessions")
	gone := []string{robotaID + ".json.4242.tmp", robotaID + ".json.tmp-1234567"}
	kept := []string{"other.json.4242.tmp", "other.json.tmp-1234567"}
	for _, n := range append(append([]string{}, gone...), kept...) {
		if err := os.WriteFile(filepath.Join(sessions, n), []byte(`{"partial":`), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	if r := e.must("", "delete", robotaID, "--yes"); r.stdout != robotaID+"\n" {
		t.Fatalf("delete: %s", r)
	}
	for _, n := range gone {
		if _, err := os.Lstat(filepath.Join(sessions, n)); err == nil {
			t.Errorf("%s left after delete", n)
		}
	}
	for _, n := range kept {
		if _, err := os.Lstat(filepath.Join(sessions, n)); err != nil {
			t.Errorf("another session's %s: %v", n, err)
		}
	}
	if got := e.listJSON(); len(got) != 1 || got[0]["id"] != "other" {
		t.Errorf("list after delete: %v", got)
	}
}

// Robota lists a session whose record is gone from its log; list shows it
// too, as corrupt with the way back, under a short id every command takes:
// resume names the repair, replay --write-record makes the record, and
// the session is whole again.
func TestARobotaSessionWithOnlyItsLogIsListedAndRepaired(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.robotaHome()
	e.must("", "run", "--provider", "echo", "--session-id", "other", "hello")
	if err := os.Remove(e.recordPath(robotaID)); err != nil {
		t.Fatal(err)
	}
	list := e.listJSON()
	if len(list) != 2 {
		t.Fatalf("list --json: %v", list)
	}
	s := list[1]
	if s["id"] != robotaID || s["shortId"] != "k3x9q2" || s["status"] != "corrupt" || s["logOnly"] != true ||
		s["path"] != e.logPath(robotaID) || !strings.Contains(fmt.Sprint(s["fix"]), "trail replay "+robotaID+" --write-record") {
		t.Errorf("the session with only its log, last: %v", s)
	}
	if r := e.must("", "list", "--jsonl", "--status", "corrupt"); strings.Count(r.stdout, "\n") != 1 || !strings.Contains(r.stdout, `"logOnly":true`) {
		t.Errorf("list --jsonl --status corrupt: %s", r)
	}
	if r := e.run("", "resume", "k3x9q2", "--provider", "echo", "more"); r.code != 3 || !strings.Contains(r.stderr, "trail replay "+robotaID+" --write-record") {
		t.Errorf("resume by short id: %s", r)
	}
	e.must("", "replay", "k3x9q2", "--write-record")
	if got := e.listJSON(); len(got) != 2 || got[0]["status"] == "corrupt" || got[1]["status"] == "corrupt" {
		t.Errorf("list after the repair: %v", got)
	}
}

// A .json file in sessions/ whose name is no session id is no session:
// list says so on stderr rather than passing over it, and lists the rest.
func TestListNamesAFileInSessionsThatIsNoRecord(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.must("", "run", "--provider", "echo", "hi")
	stray := filepath.Join(e.home, "sessions", "my session (copy).json")
	if err := os.WriteFile(stray, []byte("{}"), 0o600); err != nil {
		t.Fatal(err)
	}
	r := e.must("", "list")
	if strings.Count(r.stdout, "\n") != 1 || !strings.Contains(r.stderr, "trail: warning: "+stray+" is no session record of this home") {
		t.Errorf("list beside a stray file: %s", r)
	}
}

// TRAIL_HOME or --home written with a ~ no shell expanded ('~/x' in quotes,
// an env file) is under the user's home, not a folder named "~" here.
func TestAHomeWithAnUnexpandedTilde(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	c := e.cmd("run", "--provider", "echo", "hi")
	c.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + e.user, "TRAIL_HOME=~/tilde-home", "TERM=dumb"}
	if r := e.wait(c); r.code != 0 {
		t.Fatalf("run: %s", r)
	}
	c = e.cmd("--home", "~/other-home", "run", "--provider", "echo", "hi")
	c.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + e.user, "TERM=dumb"}
	if r := e.wait(c); r.code != 0 {
		t.Fatalf("run --home: %s", r)
	}
	for _, d := range []string{"tilde-home", "other-home"} {
		if _, err := os.Stat(filepath.Join(e.user, d, "sessions")); err != nil {
			t.Errorf("%s is not under HOME: %v", d, err)
		}
	}
	if e.exists("~") {
		t.Error("a folder named ~ was made in the working directory")
	}
}
