package main_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// nope is a tool call the script provider makes; no such tool exists, so
// the call gets a failed result and the loop goes on (SPEC 5.2).
func nope(args map[string]any) map[string]any {
	return map[string]any{"name": "Nope", "arguments": args}
}

// interrupt starts trail, waits until the step has streamed some text to
// the log, and sends SIGINT.
func (e *env) interrupt(id string, args ...string) result {
	e.t.Helper()
	before := strings.Count(readFile(e.t, e.logPath(id)), `"event":"text_delta"`)
	c := e.cmd(args...)
	var out, errb bytes.Buffer
	c.Stdout, c.Stderr = &out, &errb
	if err := c.Start(); err != nil {
		e.t.Fatal(err)
	}
	waitFor(e.t, func() bool {
		return strings.Count(readFile(e.t, e.logPath(id)), `"event":"text_delta"`) > before
	})
	if err := c.Process.Signal(os.Interrupt); err != nil {
		e.t.Fatal(err)
	}
	err := c.Wait()
	r := result{stdout: out.String(), stderr: errb.String()}
	if ee, ok := err.(*exec.ExitError); ok {
		r.code = ee.ExitCode()
	}
	return r
}

func readFile(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	return string(b)
}

func TestReplayGivesTheRecordsMessagesAfterEveryKindOfStep(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	s := e.script(
		// run: two unknown tool calls in one round, then an answer
		map[string]any{"text": "Let me look.", "toolCalls": []any{nope(map[string]any{"path": "a"}), nope(nil)}, "usage": map[string]any{"inputTokens": 10, "outputTokens": 5}},
		map[string]any{"text": "Neither tool exists."},
		// resume: one more tool round
		map[string]any{"toolCalls": []any{nope(map[string]any{"q": "<b>&\u2028"})}},
		map[string]any{"text": "Still nothing."},
		// resume: the provider fails
		map[string]any{"error": map[string]any{"status": 500, "message": "overloaded"}},
		// resume: interrupted while streaming
		map[string]any{"text": "one two three four five six seven eight nine ten", "delayMs": 4000},
		// resume: a plain answer
		map[string]any{"text": "Back again."},
		// fork, then resume the fork with a tool round
		map[string]any{"text": "Forked."},
		map[string]any{"toolCalls": []any{nope(map[string]any{"fork": true})}},
		map[string]any{"text": "The fork is done."},
	)
	e.must("", "run", "--provider", "script", "--script", s, "--name", "base", "first")
	id := e.onlySession()
	e.must("", "resume", id, "second")
	if r := e.run("", "resume", id, "third"); r.code != 6 {
		t.Fatalf("provider failure: %s", r)
	}
	if r := e.interrupt(id, "resume", id, "fourth"); r.code != 130 {
		t.Fatalf("interrupt: %s", r)
	}
	e.must("", "resume", id, "fifth")
	e.must("", "resume", "base", "--fork", "sixth")
	var fork string
	for _, s := range e.sessionIDs() {
		if s != id {
			fork = s
		}
	}
	e.must("", "resume", fork, "seventh")

	msgs := e.messages(id)
	states := map[string]int{}
	for _, m := range msgs {
		states[m["role"].(string)+"/"+m["state"].(string)]++
	}
	if states["assistant/interrupted"] != 1 || states["tool/complete"] != 3 || len(msgs) != 15 {
		t.Fatalf("the scenario did not happen as planned: %d messages, %v", len(msgs), states)
	}
	e.checkReplayMatchesRecord(id)
	e.checkReplayMatchesRecord(fork)
	// Resolved by name and by prefix, too.
	if got := e.replayMessages("base"); len(got) != 15 {
		t.Errorf("replay by name: %d messages", len(got))
	}
	if got := e.replayMessages(fork[:30]); len(got) != len(e.messages(fork)) {
		t.Errorf("replay by prefix: %d messages", len(got))
	}
	e.validateAll()
}

func TestReplayFormatsOnTheBinary(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	s := e.script(map[string]any{"text": "Calling.", "toolCalls": []any{nope(map[string]any{"x": 1})}}, map[string]any{"text": "Done."})
	e.must("", "run", "--provider", "script", "--script", s, "go")
	id := e.onlySession()
	r := e.must("", "replay", id) // piped: jsonl
	if n := strings.Count(r.stdout, "\n"); n != 5 {
		t.Errorf("jsonl has %d lines, want 5:\n%s", n, r.stdout)
	}
	r = e.must("", "replay", id, "--format", "text")
	for _, want := range []string{"session " + id, "● user", "  go", "↳ Nope({\"x\":1})", "● tool Nope", "failed", "Unknown tool: Nope", "● assistant", "  Done."} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("text replay lacks %q:\n%s", want, r.stdout)
		}
	}
	r = e.must("", "replay", id, "--format", "record")
	var rec map[string]any
	if err := json.Unmarshal([]byte(r.stdout), &rec); err != nil || rec["id"] != id || rec["messageCount"] != float64(5) {
		t.Errorf("record format: %v %v", err, rec["messageCount"])
	}
	e.validateAll()
}

// A line broken in the middle of a log (an editor, a bad copy): printing
// the conversation fails with exit 7 and prints nothing, in every format,
// since the conversation would miss what the line held; --write-record,
// the repair path, rebuilds what the rest holds, with a warning.
func TestReplayOfALogBrokenInTheMiddleIsInvalidData(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.rawLogs = true // broken on purpose
	e.must("", "run", "--provider", "echo", "one")
	id := e.onlySession()
	e.must("", "resume", id, "--provider", "echo", "two")
	data, err := os.ReadFile(e.logPath(id))
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.SplitAfter(string(data), "\n")
	at := -1
	for i, l := range lines {
		if strings.Contains(l, `"history_mutation"`) && strings.Contains(l, `"user"`) {
			at = i
			break
		}
	}
	if at < 0 {
		t.Fatal("no user message in the log")
	}
	lines[at] = lines[at][:len(lines[at])/2] + "\n"
	e.writeFile(e.logPath(id), strings.Join(lines, ""))
	for _, f := range []string{"jsonl", "json", "text", "record"} {
		r := e.run("", "replay", id, "--format", f)
		if r.code != 7 || r.stdout != "" || !strings.Contains(r.stderr, fmt.Sprintf("line %d: not a JSON object", at+1)) ||
			strings.Count(r.stderr, e.logPath(id)) != 2 { // the error and the hint name it once each
			t.Errorf("replay --format %s: %s", f, r)
		}
	}
	if r := e.run("", "replay", id, "--view", "transcript"); r.code != 7 || r.stdout != "" {
		t.Errorf("replay --view transcript: %s", r)
	}
	if err := os.Remove(e.recordPath(id)); err != nil {
		t.Fatal(err)
	}
	r := e.must("", "replay", id, "--write-record")
	if !strings.Contains(r.stderr, "not a JSON object") || !strings.Contains(r.stderr, "skipped") || !strings.Contains(r.stderr, "rebuilt") {
		t.Errorf("write-record of a broken log: %s", r)
	}
}

func TestDeletedRecordIsRebuiltFromTheLogAndResumed(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	s := e.script(
		map[string]any{"text": "Trying.", "toolCalls": []any{nope(nil)}},
		map[string]any{"text": "first answer"},
		map[string]any{"text": "second answer"},
		map[string]any{"text": "third answer"},
	)
	e.must("", "run", "--provider", "script", "--script", s, "--name", "keep", "one")
	id := e.onlySession()
	before := e.recordMessages(id)
	if err := os.Remove(e.recordPath(id)); err != nil {
		t.Fatal(err)
	}
	// The session is gone from resume's point of view...
	if r := e.run("", "resume", id, "two"); r.code != 3 {
		t.Fatalf("resume without a record: %s", r)
	}
	// ...and replay still finds it by its log, and rebuilds the record.
	r := e.must("", "replay", id, "--write-record")
	if r.stdout != "" || !strings.Contains(r.stderr, "rebuilt") {
		t.Errorf("write-record output: %s", r)
	}
	if after := e.recordMessages(id); len(after) != len(before) {
		t.Fatalf("rebuilt %d messages, had %d", len(after), len(before))
	}
	for i, m := range e.recordMessages(id) {
		if !bytes.Equal(m, before[i]) {
			t.Fatalf("message %d differs:\n%s\n%s", i, m, before[i])
		}
	}
	// It refuses to overwrite the valid record it just wrote.
	if r := e.run("", "replay", id, "--write-record"); r.code != 2 || !strings.Contains(r.stderr, "--force") {
		t.Errorf("second write-record: %s", r)
	}
	// resume carries on where the log left off: the script's next answer.
	r = e.must("", "resume", id, "two", "--provider", "script", "--script", s)
	if r.stdout != "second answer\n" {
		t.Fatalf("resume after rebuild: %s", r)
	}
	// A corrupt record is refused by resume with the repair as the hint...
	if err := os.WriteFile(e.recordPath(id), []byte(`{"id":"`+id+`","messages":[{`), 0o600); err != nil {
		t.Fatal(err)
	}
	r = e.run("", "resume", id, "three")
	if r.code != 7 || !strings.Contains(r.stderr, "replay "+id+" --write-record") {
		t.Fatalf("resume of a corrupt record: %s", r)
	}
	// ...and repaired without --force.
	e.must("", "replay", id, "--write-record")
	r = e.must("", "resume", id, "three", "--provider", "script", "--script", s)
	if r.stdout != "third answer\n" {
		t.Fatalf("resume after repair: %s", r)
	}
	e.checkReplayMatchesRecord(id)
	e.validateAll()
}

// robotaID is the session of the fixtures in testdata/robota: a log and a
// record written the way Robota writes them (no seq, no system message in
// the log, no history in the record, a payload file beside the log).
const robotaID = "session_1767225600000_k3x9q2m7a"

// robotaHome copies the Robota fixtures into the home.
func (e *env) robotaHome() {
	e.t.Helper()
	e.robotaFixture(robotaID)
}

// robotaFixture copies one session of testdata/robota (record, log and
// payloads) into the home.
func (e *env) robotaFixture(id string) {
	e.t.Helper()
	for _, d := range []string{"sessions", "logs"} {
		if err := os.MkdirAll(filepath.Join(e.home, d), 0o700); err != nil {
			e.t.Fatal(err)
		}
	}
	src := filepath.Join("testdata", "robota")
	copyFile := func(from, to string) {
		b, err := os.ReadFile(from)
		if err != nil {
			e.t.Fatal(err)
		}
		if err := os.MkdirAll(filepath.Dir(to), 0o700); err != nil {
			e.t.Fatal(err)
		}
		if err := os.WriteFile(to, b, 0o600); err != nil {
			e.t.Fatal(err)
		}
	}
	copyFile(filepath.Join(src, id+".json"), e.recordPath(id))
	copyFile(filepath.Join(src, id+".jsonl"), e.logPath(id))
	payloads, _ := filepath.Glob(filepath.Join(src, id+".payloads", "*.json"))
	for _, p := range payloads {
		copyFile(p, filepath.Join(e.home, "logs", id+".payloads", filepath.Base(p)))
	}
}

// checkRobotaReplay compares a replay of a Robota log with its record:
// Robota does not log its system message, so replay builds it from
// session_init; its id cannot be known, its content can.
func (e *env) checkRobotaReplay(id string) {
	e.t.Helper()
	got, want := e.replayMessages(id), e.recordMessages(id)
	if len(got) != len(want) {
		e.t.Fatalf("replay has %d messages, the record %d", len(got), len(want))
	}
	var gs, ws struct{ Role, Content string }
	json.Unmarshal(got[0], &gs)
	json.Unmarshal(want[0], &ws)
	if gs.Role != "system" || gs != ws {
		e.t.Errorf("system message:\nreplay %s\nrecord %s", got[0], want[0])
	}
	for i := 1; i < len(want); i++ {
		if !bytes.Equal(got[i], want[i]) {
			e.t.Errorf("message %d:\nreplay %.300s\nrecord %.300s", i, got[i], want[i])
		}
	}
}

func TestRobotaLogsAndRecordsReplayValidateMigrateAndResume(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.rawLogs = true // Robota wrote these files, not trail
	e.robotaHome()
	if r := e.run("", "validate-log", "--strict", robotaID); r.code != 0 || !strings.Contains(r.stdout, "valid (38 entries)") {
		t.Fatalf("validate-log of a Robota log: %s", r)
	}
	e.checkRobotaReplay(robotaID)

	// migrate-history: a dry run changes no byte; the run fills history
	// with one chat entry per message; a second run has nothing to do.
	before := filesUnder(t, e.home)
	r := e.must("", "migrate-history", "--dry-run")
	if r.stdout != "Migrated: 1, Skipped: 0, Failed: 0, Total: 1\n" {
		t.Errorf("dry run: %s", r)
	}
	if after := filesUnder(t, e.home); !sameFiles(before, after) {
		t.Fatal("--dry-run changed files")
	}
	r = e.must("", "migrate-history")
	if r.stdout != "Migrated: 1, Skipped: 0, Failed: 0, Total: 1\n" {
		t.Errorf("migrate: %s", r)
	}
	rec := e.record(robotaID)
	hist, _ := rec["history"].([]any)
	if len(hist) != 7 {
		t.Fatalf("history has %d entries, want 7", len(hist))
	}
	first := hist[1].(map[string]any)
	if first["id"] != "msg_u1_9b2c" || first["category"] != "chat" || first["type"] != "user" || first["timestamp"] != "2026-01-01T00:00:01.000Z" {
		t.Errorf("history entry %v", first)
	}
	if rec["sandboxSnapshotId"] != "snap_01" || rec["memoryEvents"] == nil {
		t.Error("migration lost Robota's own fields")
	}
	if r := e.must("", "migrate-history"); r.stdout != "Migrated: 0, Skipped: 1, Failed: 0, Total: 1\n" {
		t.Errorf("second run: %s", r)
	}

	// trail resumes the Robota session; the log stays valid and replays.
	r = e.must("", "resume", robotaID, "and the last line?", "--provider", "echo")
	if r.stdout != "echo: and the last line?\n" {
		t.Fatalf("resume: %s", r)
	}
	e.checkRobotaReplay(robotaID)
	e.validateAll()
}

func TestMigrateHistoryLeavesCorruptRecordsAlone(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.rawLogs = true // Robota wrote these files, not trail
	e.robotaHome()
	corrupt := []byte("{\n  \"id\": \"broken\",\n  \"messages\": [\n    {\"role\": \"user\", \"content\": \"hi\"\n")
	if err := os.WriteFile(e.recordPath("broken"), corrupt, 0o600); err != nil {
		t.Fatal(err)
	}
	r := e.run("", "migrate-history")
	if r.code != 7 || r.stdout != "Migrated: 1, Skipped: 0, Failed: 1, Total: 2\n" {
		t.Fatalf("%s", r)
	}
	if !strings.Contains(r.stderr, e.recordPath("broken")) {
		t.Errorf("the failed file is not named: %s", r.stderr)
	}
	if after, _ := os.ReadFile(e.recordPath("broken")); !bytes.Equal(after, corrupt) {
		t.Error("the corrupt record changed")
	}
	if r := e.run("", "migrate-history"); r.code != 7 || r.stdout != "Migrated: 0, Skipped: 1, Failed: 1, Total: 2\n" {
		t.Errorf("second run: %s", r)
	}
}

func TestValidateLogOnTheBinary(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	s := e.script(map[string]any{"text": "ok"})
	e.must("", "run", "--provider", "script", "--script", s, "hello")
	id := e.onlySession()
	// By id, by path, from stdin, and the quoted glob of a CI job.
	for _, args := range [][]string{{id}, {e.logPath(id)}, {filepath.Join(e.home, "logs", "*.jsonl")}} {
		if r := e.run("", append([]string{"validate-log"}, args...)...); r.code != 0 || !strings.Contains(r.stdout, ": valid (") {
			t.Errorf("validate-log %v: %s", args, r)
		}
	}
	log := readFile(t, e.logPath(id))
	if r := e.run(log, "validate-log", "-"); r.code != 0 || !strings.HasPrefix(r.stdout, "<stdin>: valid (") {
		t.Errorf("stdin: %s", r)
	}
	// A killed step leaves a torn line: a warning, and exit 0 unless --strict.
	torn := filepath.Join(e.cwd, "torn.jsonl")
	os.WriteFile(torn, []byte(log+`{"timestamp":"2026-01-01T00:00:00.000Z","sessionId":"`+id+`","ev`), 0o600)
	if r := e.run("", "validate-log", torn); r.code != 0 || !strings.Contains(r.stdout, "LOG_TRUNCATED_TAIL") {
		t.Errorf("torn tail: %s", r)
	}
	if r := e.run("", "validate-log", "--strict", torn, "--format", "github"); r.code != 7 || !strings.Contains(r.stdout, "::error file="+torn+",line=") {
		t.Errorf("torn tail, strict, github: %s", r)
	}
	// In a GitHub job the annotation names the file from the workspace,
	// which is how GitHub links it; a log from stdin names no file.
	e.setenv("GITHUB_WORKSPACE=" + e.cwd)
	if r := e.run("", "validate-log", "--strict", torn, "--format", "github"); r.code != 7 || !strings.Contains(r.stdout, "::error file=torn.jsonl,line=") {
		t.Errorf("torn tail, github, in the workspace: %s", r)
	}
	os.Mkdir(filepath.Join(e.cwd, "sub"), 0o755)
	os.Rename(torn, filepath.Join(e.cwd, "sub", "torn.jsonl"))
	inSub := e.cmd("validate-log", "--strict", "torn.jsonl", "--format", "github") // a step's working-directory: sub
	inSub.Dir = filepath.Join(e.cwd, "sub")
	if r := e.wait(inSub); r.code != 7 || !strings.Contains(r.stdout, "::error file=sub/torn.jsonl,line=") {
		t.Errorf("torn tail, github, named from the workspace: %s", r)
	}
	torn = filepath.Join(e.cwd, "sub", "torn.jsonl")
	if r := e.run(readFile(t, torn), "validate-log", "--strict", "-", "--format", "github"); r.code != 7 || !strings.Contains(r.stdout, "::error line=") || strings.Contains(r.stdout, "file=") {
		t.Errorf("torn tail from stdin, github: %s", r)
	}
	if r := e.run("", "validate-log", "nope.jsonl", torn); r.code != 3 || !strings.Contains(r.stdout, torn+": 0 errors, 1 warning") {
		t.Errorf("a missing file: %s", r)
	}
	e.validateAll()
}

func sameFiles(a, b map[string][]byte) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if !bytes.Equal(v, b[k]) {
			return false
		}
	}
	return true
}

func TestLogCommandsHelpListsExitCodes(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	for _, cmd := range []string{"replay", "validate-log", "migrate-history"} {
		r := e.must("", cmd, "--help")
		if !strings.Contains(r.stdout, "EXIT CODES") || !strings.Contains(r.stdout, "7    invalid data") {
			t.Errorf("trail %s --help does not list the exit codes:\n%s", cmd, r.stdout)
		}
	}
	if r := e.must("", "--help"); !strings.Contains(r.stdout, "validate-log") || !strings.Contains(r.stdout, "migrate-history") {
		t.Errorf("trail --help does not list the log commands:\n%s", r.stdout)
	}
}

func TestReplayLast(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.must("", "run", "--provider", "echo", "older")
	e.must("", "run", "--provider", "echo", "newest")
	r := e.must("", "replay", "--last", "--format", "text")
	if !strings.Contains(r.stdout, "  newest") || strings.Contains(r.stdout, "older") {
		t.Errorf("replay --last:\n%s", r.stdout)
	}
	if r := e.run("", "replay", "--any-dir"); r.code != 2 {
		t.Errorf("--any-dir alone: %s", r)
	}
	e.validateAll()
}

// A session whose first steps ran with --no-log (or whose record came
// without a log) gets a log at its next logged step: that log must still
// replay to the whole record, not to the new turns only, so that it
// validates clean and a rebuilt record loses nothing.
func TestALogStartedLateReplaysTheWholeSession(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	s := e.script(answer("first answer"), answer("second answer"))
	e.must("", "run", "--provider", "script", "--script", s, "--session-id", "late-1", "--no-log", "one")
	if _, err := os.Stat(e.logPath("late-1")); err == nil {
		t.Fatal("--no-log wrote a log")
	}
	e.must("", "resume", "late-1", "two")
	e.checkReplayMatchesRecord("late-1")
	e.validateAll()
	before := e.recordMessages("late-1")
	if err := os.Remove(e.recordPath("late-1")); err != nil {
		t.Fatal(err)
	}
	e.must("", "replay", "late-1", "--write-record")
	after := e.recordMessages("late-1")
	if len(after) != len(before) || len(after) != 5 {
		t.Fatalf("the rebuilt record has %d messages, the lost one had %d", len(after), len(before))
	}
	for i := range before {
		if !bytes.Equal(after[i], before[i]) {
			t.Fatalf("message %d differs:\n%s\n%s", i, after[i], before[i])
		}
	}
	if r := e.must("", "resume", "late-1", "three", "--provider", "echo"); r.stdout != "echo: three\n" {
		t.Fatalf("resume after the rebuild: %s", r)
	}
}

// Another session's lines appended to a log (a bad copy, `cat a.jsonl >>
// b.jsonl`) are no part of its conversation: replay leaves them out, with
// one warning, and validate-log reports them. They used to replay as if
// they were: --write-record --force built a record with a second system
// message and the other session's prompt, which the next resume sent to
// the model.
func TestReplaySkipsAnotherSessionsLines(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.rawLogs = true // mixed on purpose
	mine, theirs, other := e.twoSessions()
	f, err := os.OpenFile(e.logPath(mine), os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.Write(other)
	f.Close()
	// left out with a warning: without them the conversation is whole
	for _, format := range []string{"jsonl", "json", "record"} {
		r := e.run("", "replay", mine, "--format", format)
		if r.code != 0 || strings.Contains(r.stdout, "other words") || !strings.Contains(r.stdout, "first") ||
			strings.Count(r.stderr, "lines of session \""+theirs+"\"") != 1 {
			t.Errorf("replay --format %s: %s", format, r)
		}
	}
	if r := e.run("", "validate-log", e.logPath(mine)); r.code != 7 || !strings.Contains(r.stdout, "LOG_SESSION_MISMATCH") {
		t.Errorf("validate-log does not report the other session's lines: %s", r)
	}
	r := e.must("", "replay", mine, "--write-record", "--force")
	if strings.Count(r.stderr, "trail: warning:") != 1 || !strings.Contains(r.stderr, "lines of session \""+theirs+"\", from this one on") {
		t.Errorf("--write-record did not say, once, how many lines it skipped: %s", r)
	}
	for _, m := range e.messages(mine) {
		if c, _ := m["content"].(string); strings.Contains(c, "other words") {
			t.Fatalf("the rebuilt record holds the other session's message %v", m)
		}
	}
	if n := len(e.messages(mine)); n != 3 {
		t.Fatalf("the rebuilt record has %d messages, want system, prompt and answer", n)
	}
}

// A first step killed before its first save leaves only its log: its
// name still finds it, so `replay NAME --write-record` rebuilds it (it
// used to say no session had that name; only the id worked).
func TestAKilledFirstStepIsRebuiltByItsName(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.rawLogs = true // killed on purpose
	s := e.script(map[string]any{"text": "never", "delayMs": 30000})
	c := e.cmd("run", "--provider", "script", "--script", s, "--name", "lost", "the prompt")
	if err := c.Start(); err != nil {
		t.Fatal(err)
	}
	waitFor(t, func() bool { return strings.Contains(e.readLogs(), `"pre_run"`) })
	c.Process.Kill()
	c.Wait()
	if r := e.run("", "resume", "lost", "hi"); r.code != 3 || !strings.Contains(r.stderr, "has a log but no record") {
		t.Fatalf("resume of the killed first step by name: %s", r)
	}
	// its name stays taken: a second "lost" would make the name ambiguous
	if r := e.run("", "run", "--provider", "echo", "--name", "lost", "again"); r.code != 2 || !strings.Contains(r.stderr, "is taken") {
		t.Fatalf("a second session named as the killed one: %s", r)
	}
	e.must("", "replay", "lost", "--write-record")
	id := e.onlySession()
	if rec := e.record(id); rec["name"] != "lost" {
		t.Fatalf("rebuilt record: %v", rec)
	}
}

// readLogs is every log of the home, concatenated.
func (e *env) readLogs() string {
	var b strings.Builder
	paths, _ := filepath.Glob(filepath.Join(e.home, "logs", "*.jsonl"))
	for _, p := range paths {
		data, _ := os.ReadFile(p)
		b.Write(data)
	}
	return b.String()
}

// A record rebuilt from a log edited by hand holds the edit; the repair
// says the log no longer validates (its requests' digests), rather than
// passing it unseen.
func TestARecordRebuiltFromAnEditedLogSaysSo(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.rawLogs = true // edited on purpose
	e.must("", "run", "--provider", "echo", "the original words")
	id := e.onlySession()
	e.must("", "resume", id, "--provider", "echo", "more")
	data, err := os.ReadFile(e.logPath(id))
	if err != nil {
		t.Fatal(err)
	}
	e.writeFile(e.logPath(id), strings.ReplaceAll(string(data), "the original words", "some other words"))
	r := e.must("", "replay", id, "--write-record", "--force")
	if !strings.Contains(r.stderr, "trail: warning: the log fails validation") || !strings.Contains(r.stderr, "LOG_REQUEST_DIGEST_MISMATCH") {
		t.Fatalf("the rebuild from an edited log said nothing of it: %s", r)
	}
	// a log that validates rebuilds without it
	e.must("", "run", "--provider", "echo", "--name", "clean", "fine")
	if r := e.must("", "replay", "clean", "--write-record", "--force"); strings.Contains(r.stderr, "warning") {
		t.Fatalf("a sound log's rebuild warns: %s", r)
	}
}

// twoSessions makes two sessions, "mine" (prompt "first") and "theirs"
// (prompt "other words"), and returns their ids and theirs's log.
func (e *env) twoSessions() (mine, theirs string, theirLog []byte) {
	e.t.Helper()
	e.must("", "run", "--provider", "echo", "--name", "mine", "first")
	mine = e.onlySession()
	e.must("", "run", "--provider", "echo", "--name", "theirs", "other words")
	for _, id := range e.sessionIDs() {
		if id != mine {
			theirs = id
		}
	}
	theirLog, err := os.ReadFile(e.logPath(theirs))
	if err != nil {
		e.t.Fatal(err)
	}
	return mine, theirs, theirLog
}

// Another session's lines at the start of a log do not make the log
// theirs: a session of the home is known by its id. The log used to be
// taken for the other session's, its own lines for the foreign ones, and
// the repair refused; a log holding only another session's lines printed
// that session's conversation.
func TestALogWithAnotherSessionsLinesFirstIsStillItsOwn(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.rawLogs = true // mixed on purpose
	mine, theirs, other := e.twoSessions()
	own, err := os.ReadFile(e.logPath(mine))
	if err != nil {
		t.Fatal(err)
	}
	e.writeFile(e.logPath(mine), string(other)+string(own))
	if r := e.run("", "replay", mine, "--format", "jsonl"); r.code != 0 || strings.Contains(r.stdout, "other words") || !strings.Contains(r.stdout, `"first"`) ||
		!strings.Contains(r.stderr, ":1: ") || !strings.Contains(r.stderr, "lines of session \""+theirs+"\"") {
		t.Errorf("replay: %s", r)
	}
	r := e.must("", "replay", mine, "--write-record", "--force")
	if !strings.Contains(r.stderr, "lines of session \""+theirs+"\"") {
		t.Errorf("--write-record: %s", r)
	}
	if n := len(e.messages(mine)); n != 3 || e.messages(mine)[1]["content"] != "first" {
		t.Fatalf("rebuilt record: %v", e.messages(mine))
	}
	// a log that holds only another session's lines is not this session's:
	// it replays to nothing, and no record comes of it
	e.writeFile(e.logPath(mine), string(other))
	if r := e.run("", "replay", mine, "--format", "jsonl"); r.code != 0 || r.stdout != "" {
		t.Errorf("replay of a log of only another session: %s", r)
	}
	if r := e.run("", "replay", mine, "--write-record", "--force"); r.code != 7 {
		t.Errorf("--write-record of a log of only another session: %s", r)
	}
}

// A log given by its path is the one an error about it names, not the
// session's log in the home (which may not exist).
func TestARebuildFromALogFileNamesThatFile(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	log := e.writeFile("d.jsonl", `{"timestamp":"2026-01-01T00:00:00.000Z","sessionId":"s1","event":"session_init","seq":0,"cwd":"/"}`+"\n")
	r := e.run("", "replay", log, "--write-record")
	if r.code != 7 || !strings.Contains(r.stderr, "trail: "+log+": the log holds no messages") {
		t.Errorf("replay FILE --write-record of a log with no messages: %s", r)
	}
}

// A log from outside the home (a bug report, another machine's logs)
// rebuilds its record, and the home takes a copy of it with its payloads:
// the record was left without its log ("it ran with --no-log"), and the
// next step started a log of its own without the history.
func TestARecordRebuiltFromALogOutsideTheHomeBringsTheLogIn(t *testing.T) {
	t.Parallel()
	src := newEnv(t)
	big := strings.Repeat("a line of the pasted file, long enough to go to a payload\n", 2000)
	src.must(big, "run", "--provider", "echo", "--session-id", "other", "summarise")
	e := newEnv(t)
	dir := filepath.Join(e.cwd, "bug-report")
	if err := os.CopyFS(dir, os.DirFS(filepath.Join(src.home, "logs"))); err != nil {
		t.Fatal(err)
	}
	r := e.must("", "replay", filepath.Join("bug-report", "other.jsonl"), "--write-record")
	if !strings.Contains(r.stderr, "trail: the log is copied to "+e.logPath("other")+", with its payloads") {
		t.Errorf("replay FILE --write-record: %s", r)
	}
	payloads, _ := os.ReadDir(filepath.Join(e.home, "logs", "other.payloads"))
	if len(payloads) == 0 {
		t.Errorf("no payload was copied")
	}
	if r := e.must("", "validate-log", "other"); !strings.Contains(r.stdout, "valid") {
		t.Errorf("validate-log of the copied log: %s", r)
	}
	e.must("", "resume", "other", "--provider", "echo", "more")
	if got := len(e.replayInProcess("other")); got != 5 {
		t.Errorf("the home's log replays to %d messages after a resume, want 5", got)
	}
	// the home's own log is never replaced by another's
	other := filepath.Join(e.cwd, "elsewhere")
	if err := os.CopyFS(other, os.DirFS(filepath.Join(src.home, "logs"))); err != nil {
		t.Fatal(err)
	}
	for _, force := range []string{"--force", "--write-record"} {
		r := e.run("", "replay", filepath.Join("elsewhere", "other.jsonl"), "--write-record", force)
		if r.code != 2 || !strings.Contains(r.stderr, "the home has its own log of session other") ||
			!strings.Contains(r.stderr, "hint: rebuild from the home's own log: trail replay other --write-record") {
			t.Errorf("a rebuild from another copy beside the home's own log (%s): %s", force, r)
		}
	}
}
