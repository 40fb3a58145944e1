package main_test

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// Hostile files and names under the home (issue "Hardening"): every case
// runs the built binary and checks the exit code, the one-line error with
// its hint, and that nothing outside the home changed.

// outsideHome is a file next to the home, not in it, that a link inside
// the home points to. check fails the test if its bytes changed.
func (e *env) outsideHome(name, content string) (path string, check func()) {
	e.t.Helper()
	dir := filepath.Join(filepath.Dir(e.home), "outside")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		e.t.Fatal(err)
	}
	path = filepath.Join(dir, name)
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		e.t.Fatal(err)
	}
	return path, func() {
		e.t.Helper()
		got, err := os.ReadFile(path)
		if err != nil || !bytes.Equal(got, []byte(content)) {
			e.t.Errorf("%s outside the home changed:\nwas %q\nnow %q (%v)", path, content, got, err)
		}
	}
}

// replaceWithLink puts a symbolic link to target where path was.
func replaceWithLink(t *testing.T, path, target string) {
	t.Helper()
	if err := os.RemoveAll(path); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(target, path); err != nil {
		t.Fatal(err)
	}
}

// refusedLink checks a step refused a link inside the home: exit 7, one
// error line naming the link, one hint.
func refusedLink(t *testing.T, r result, link, what string) {
	t.Helper()
	if r.code != 7 {
		t.Fatalf("exit %d, want 7\n%s", r.code, r)
	}
	lines := strings.Split(strings.TrimSuffix(r.stderr, "\n"), "\n")
	want := link + " is a symbolic link, not " + what
	if len(lines) != 2 || !strings.HasPrefix(lines[0], "trail: ") || !strings.HasSuffix(lines[0], want) ||
		!strings.HasPrefix(lines[1], "hint: trail never follows a link") {
		t.Errorf("stderr is not one error naming %s and a hint:\n%s", link, r.stderr)
	}
}

func isSymlink(path string) bool {
	st, err := os.Lstat(path)
	return err == nil && st.Mode()&os.ModeSymlink != 0
}

func TestASymlinkedLogIsRefusedAndTheFileOutsideIsUntouched(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.rawLogs = true // the log is a link on purpose
	e.must("", "run", "--provider", "echo", "hi")
	id := e.onlySession()
	// An unterminated last line: the torn-tail repair would cut it, then
	// append the step's lines after it.
	target, unchanged := e.outsideHome("notes.jsonl", "{\"mine\":1}\n{\"unfinished\":")
	replaceWithLink(t, e.logPath(id), target)
	record, _ := os.ReadFile(e.recordPath(id))

	r := e.run("", "resume", id, "more", "--provider", "echo")
	refusedLink(t, r, e.logPath(id), "a regular file")
	unchanged()
	if now, _ := os.ReadFile(e.recordPath(id)); !bytes.Equal(now, record) {
		t.Error("the record changed")
	}
	if !isSymlink(e.logPath(id)) {
		t.Error("the link was replaced")
	}
}

func TestASymlinkedRecordIsRefusedAndListedCorrupt(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.must("", "run", "--provider", "echo", "hi")
	id := e.onlySession()
	record, _ := os.ReadFile(e.recordPath(id))
	target, unchanged := e.outsideHome("record.json", string(record))
	replaceWithLink(t, e.recordPath(id), target)
	e.rawLogs = true // replay through the link is refused too

	r := e.run("", "resume", id, "more", "--provider", "echo")
	refusedLink(t, r, e.recordPath(id), "a regular file")
	r = e.run("", "compact", id, "--provider", "echo")
	refusedLink(t, r, e.recordPath(id), "a regular file")
	unchanged()
	if !isSymlink(e.recordPath(id)) {
		t.Error("the link was replaced")
	}
	r = e.run("", "list")
	if r.code != 0 || !strings.Contains(r.stdout, id+"\t") || !strings.Contains(r.stdout, "\tcorrupt\t") ||
		!strings.Contains(r.stderr, "is a symbolic link") {
		t.Errorf("list: %s", r)
	}
}

// A folder in a record's place (a bad copy, a tool's mistake) is the
// session's, shown and refused like a link there: list shows it corrupt
// with a warning, resume by id or prefix is exit 7, and delete refuses it
// (exit 7) before removing anything, so the log stays with it.
func TestAFolderInARecordsPlaceIsListedAndRefused(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.rawLogs = true // the record is gone: its log replays to nothing to compare
	e.must("", "run", "--provider", "echo", "hi")
	id := e.onlySession()
	if err := os.Remove(e.recordPath(id)); err != nil {
		t.Fatal(err)
	}
	e.writeFile(filepath.Join(e.recordPath(id), "f"), "x")

	r := e.run("", "list")
	if r.code != 0 || !strings.Contains(r.stdout, id+"\t") || !strings.Contains(r.stdout, "\tcorrupt\t") || !strings.Contains(r.stderr, "is a folder") {
		t.Errorf("list: %s", r)
	}
	for _, ref := range []string{id, id[:13]} {
		if r := e.run("", "resume", ref, "more", "--provider", "echo"); r.code != 7 || !strings.Contains(r.stderr, "is a folder, not a regular file") {
			t.Errorf("resume %s: %s", ref, r)
		}
	}
	r = e.run("", "delete", id, "--yes")
	if r.code != 7 || !strings.Contains(r.stderr, "is a folder, not a regular file") || strings.Count(r.stderr, "delete") != 1 {
		t.Errorf("delete: %s", r)
	}
	if _, err := os.Stat(e.logPath(id)); err != nil {
		t.Errorf("delete removed the log before refusing: %v", err)
	}
}

func TestASymlinkedLockFileIsRefused(t *testing.T) {
	t.Parallel()
	for _, dangling := range []bool{false, true} {
		t.Run(fmt.Sprintf("dangling=%v", dangling), func(t *testing.T) {
			t.Parallel()
			e := newEnv(t)
			e.must("", "run", "--provider", "echo", "hi")
			id := e.onlySession()
			lock := filepath.Join(e.home, "sessions", id+".lock")
			target, unchanged := e.outsideHome("lock", "not trail's\n")
			if dangling {
				// A create through the link would make this file.
				target = filepath.Join(filepath.Dir(target), "would-be-created")
			}
			replaceWithLink(t, lock, target)
			r := e.run("", "resume", id, "more", "--provider", "echo")
			refusedLink(t, r, lock, "a regular file")
			if dangling {
				if _, err := os.Lstat(target); err == nil {
					t.Error("a file was created outside the home")
				}
			} else {
				unchanged()
			}
		})
	}
}

func TestASymlinkedPayloadFolderIsRefused(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.must("", "run", "--provider", "echo", "hi")
	id := e.onlySession()
	outside := filepath.Join(filepath.Dir(e.home), "outside-payloads")
	if err := os.MkdirAll(outside, 0o755); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(e.home, "logs", id+".payloads")
	replaceWithLink(t, link, outside)
	logBefore, _ := os.ReadFile(e.logPath(id))

	// A prompt over the 32 KB payload threshold: its message would be
	// written into the payload folder.
	r := e.run("", "resume", id, strings.Repeat("big ", 20_000), "--provider", "echo")
	refusedLink(t, r, link, "a folder")
	if ents, _ := os.ReadDir(outside); len(ents) != 0 {
		t.Errorf("files appeared outside the home: %v", ents)
	}
	if logNow, _ := os.ReadFile(e.logPath(id)); !bytes.Equal(logNow, logBefore) {
		t.Error("lines were appended to the log")
	}
}

// SPEC 2: settings files are read before anything else, from folders a
// cloned repository controls. A FIFO there must not hang run: it exits 7
// at once. The deadline only bounds a hang; the test fails on it.
func TestAFIFOSettingsFileExitsSevenPromptly(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	fifo := filepath.Join(e.cwd, ".trail", "settings.json")
	if err := os.MkdirAll(filepath.Dir(fifo), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := mkfifo(fifo); err != nil {
		t.Skipf("no FIFOs: %v", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	c := exec.CommandContext(ctx, trailBin, "run", "--provider", "echo", "hi")
	c.Dir, c.Env = e.cwd, e.environ()
	r := e.wait(c)
	if ctx.Err() != nil {
		t.Fatal("trail hung on a FIFO settings file")
	}
	if r.code != 7 || !strings.Contains(r.stderr, "trail: "+fifo+": read settings: it is a named pipe, not a regular file") {
		t.Fatalf("%s", r)
	}
	if ids := e.sessionIDs(); len(ids) != 0 {
		t.Errorf("a session was created: %v", ids)
	}
}

// wrongTypedRecord is a record trail would resume, but for one value.
const wrongTypedRecord = `{
  "id": "%s",
  "cwd": "%s",
  "createdAt": "2026-05-05T00:00:00.000Z",
  "updatedAt": "2026-05-05T00:00:01.000Z",
  "usage": {"inputTokens": 12, "outputTokens": 5},
  "messages": [
    {"id": "s1", "role": "system", "content": "be brief", "state": "complete", "timestamp": "2026-05-05T00:00:00.000Z"},
    {"id": "u1", "role": "user", "content": "hello", "state": "complete", "timestamp": "2026-05-05T00:00:01.000Z"},
    {"id": "a1", "role": "assistant", "content": "", "state": "complete", "timestamp": "2026-05-05T00:00:01.000Z",
     "toolCalls": [{"id": "t1", "type": "function", "function": {"name": "Read", "arguments": "{}"}}],
     "metadata": {"inputTokens": 12, "outputTokens": 5, "usage": {"totalTokens": 17}}},
    {"id": "r1", "role": "tool", "content": "ok", "state": "complete", "timestamp": "2026-05-05T00:00:01.000Z", "toolCallId": "t1", "name": "Read"}
  ],
  "history": []
}
`

func TestRecordsWithWrongTypesAreCorruptEverywhere(t *testing.T) {
	t.Parallel()
	tests := []struct{ name, from, to, why string }{
		{"a message with role 7 and content {}", `"role": "user", "content": "hello"`, `"role": 7, "content": {}`, "messages[1].role is a number, not a string"},
		{"usage that overflows a float64", `"inputTokens": 12, "outputTokens": 5}`, `"inputTokens": 1e400, "outputTokens": 5}`, "usage.inputTokens is 1e400, not a count"},
		{"metadata usage that overflows", `"totalTokens": 17`, `"totalTokens": 1e400`, "messages[2].metadata.usage.totalTokens is 1e400, out of the range of a number"},
		{"content that is an object", `"content": "hello"`, `"content": {"text": "hello"}`, "messages[1].content is an object"},
		{"toolCalls that is a string", `"toolCalls": [{"id": "t1", "type": "function", "function": {"name": "Read", "arguments": "{}"}}]`, `"toolCalls": "Read"`, "messages[2].toolCalls is a string"},
		{"tool call arguments that are an object", `"arguments": "{}"`, `"arguments": {}`, "messages[2].toolCalls[0].function.arguments is an object"},
		{"a message id that is a number", `"id": "u1"`, `"id": 1`, "messages[1].id is a number"},
		{"a cwd that is a number", `"cwd": "%s"`, `"cwd": 5`, "cwd is a number, not a string"},
		{"a role trail does not know", `"role": "tool"`, `"role": "robot"`, `messages[3].role "robot" is not system, user, assistant or tool`},
		{"a tool result name that is a number", `"name": "Read"}`, `"name": 7}`, "messages[3].name is a number"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			e := newEnv(t)
			id := "typed-1"
			if err := os.MkdirAll(filepath.Join(e.home, "sessions"), 0o700); err != nil {
				t.Fatal(err)
			}
			text := strings.Replace(wrongTypedRecord, tt.from, tt.to, 1)
			if text == wrongTypedRecord {
				t.Fatalf("no %s in the record", tt.from)
			}
			text = strings.Replace(strings.Replace(text, "%s", id, 1), "%s", e.cwd, 1)
			if err := os.WriteFile(e.recordPath(id), []byte(text), 0o600); err != nil {
				t.Fatal(err)
			}
			for _, args := range [][]string{
				{"resume", id, "more", "--provider", "echo"},
				{"compact", id, "--provider", "echo"},
			} {
				r := e.run("", args...)
				if r.code != 7 || !strings.Contains(r.stderr, "trail: ") || !strings.Contains(r.stderr, e.recordPath(id)) ||
					!strings.Contains(r.stderr, tt.why) || strings.Count(r.stderr, "\n") != 2 ||
					!strings.Contains(r.stderr, "hint: the record was left untouched") {
					t.Errorf("%s: %s", args[0], r)
				}
			}
			if now, _ := os.ReadFile(e.recordPath(id)); string(now) != text {
				t.Error("the record changed")
			}
			if _, err := os.Stat(e.logPath(id)); err == nil {
				t.Error("a log was written")
			}
			r := e.run("", "list")
			if r.code != 0 || !strings.Contains(r.stdout, id+"\t") || !strings.Contains(r.stdout, "\tcorrupt\t") || !strings.Contains(r.stderr, tt.why) {
				t.Errorf("list: %s", r)
			}
		})
	}
}

// The repair path: a record with a wrong type is corrupt, so replay
// --write-record rebuilds it from the log without --force, and the session
// resumes again.
func TestAWrongTypedRecordIsRepairedFromItsLog(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.must("", "run", "--provider", "echo", "hi")
	id := e.onlySession()
	rec, _ := os.ReadFile(e.recordPath(id))
	bad := bytes.Replace(rec, []byte(`"role": "user"`), []byte(`"role": 7`), 1)
	if bytes.Equal(bad, rec) {
		t.Fatal("no user message in the record")
	}
	os.WriteFile(e.recordPath(id), bad, 0o600)
	if r := e.run("", "resume", id, "again", "--provider", "echo"); r.code != 7 {
		t.Fatalf("resume of a wrong-typed record: %s", r)
	}
	e.must("", "replay", id, "--write-record")
	e.must("", "resume", id, "again", "--provider", "echo")
}

func TestARecordTooDeepToLogIsRefusedBeforeTheStep(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.rawLogs = true // the record holds a message validate-log cannot read
	e.must("", "run", "--provider", "echo", "hi")
	id := e.onlySession()
	rec, _ := os.ReadFile(e.recordPath(id))
	// One more message whose metadata nests 20,000 deep: the record loads
	// (it is valid JSON, within the store's bound), but no log line can
	// carry the message.
	deep := strings.Repeat("[", 20_000) + strings.Repeat("]", 20_000)
	msg := `{"id":"d1","role":"user","content":"deep","state":"complete","timestamp":"2026-05-05T00:00:02.000Z","metadata":{"x":` + deep + `}}`
	at := bytes.LastIndex(rec, []byte("\n  ],\n  \"history\""))
	if at < 0 {
		t.Fatalf("no end of messages in:\n%s", rec)
	}
	deepRec := append(append(append([]byte{}, rec[:at]...), ",\n"+msg...), rec[at:]...)
	os.WriteFile(e.recordPath(id), deepRec, 0o600)
	logBefore, _ := os.ReadFile(e.logPath(id))

	r := e.run("", "resume", id, "more", "--provider", "echo")
	if r.code != 7 || !strings.Contains(r.stderr, e.recordPath(id)+": message 3 nests deeper than a log line can hold") ||
		!strings.Contains(r.stderr, "hint: the record was left untouched and nothing was logged") {
		t.Fatalf("%s", r)
	}
	if now, _ := os.ReadFile(e.recordPath(id)); !bytes.Equal(now, deepRec) {
		t.Error("the record changed")
	}
	if now, _ := os.ReadFile(e.logPath(id)); !bytes.Equal(now, logBefore) {
		t.Error("the log changed")
	}
}

// An id, a name or a path pasted by mistake can be 10 KB: the error quotes
// its first 200 characters and says how long it was.
func TestA10KBSessionReferenceIsCutInTheError(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	long := strings.Repeat("a", 10_000)
	for _, args := range [][]string{
		{"resume", long, "more", "--provider", "echo"},
		{"replay", long},
		{"delete", "--yes", long},
		{"validate-log", long},
		{"compact", long, "--provider", "echo"},
		{"run", "--session-id", long, "--provider", "echo", "hi"},
		{"resume", "--name", "x", long, "--provider", "echo"},
	} {
		r := e.run("", args...)
		if r.code != 2 && r.code != 3 {
			t.Errorf("%s: exit %d", args[0], r.code)
		}
		if len(r.stderr) > 1000 || !strings.Contains(r.stderr, `"… (10000 bytes)`) ||
			!strings.Contains(r.stderr, `"`+strings.Repeat("a", 200)+`"`) {
			t.Errorf("%s %s: the 10 KB reference is not cut:\n%.600s", args[0], args[1], r.stderr)
		}
	}
}

// SPEC 3.4: a step killed between writing its record's temp file and
// renaming it leaves sessions/<id>.json.tmp-N, its name noted in the lock
// file (as the killed step left it). The next step that takes the lock
// removes it; list does not, and another session's temp file stays.
func TestAKilledStepsTempFileIsRemovedByTheNextStep(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.must("", "run", "--provider", "echo", "hi")
	id := e.onlySession()
	sessions := filepath.Join(e.home, "sessions")
	stale := filepath.Join(sessions, id+".json.tmp-4242")
	other := filepath.Join(sessions, "another.json.tmp-77")
	for _, p := range []string{stale, other} {
		if err := os.WriteFile(p, []byte(`{"half":`), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(sessions, id+".lock"), []byte(id+".json.tmp-4242\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	e.must("", "list")
	if _, err := os.Stat(stale); err != nil {
		t.Fatalf("list, which takes no lock, removed the temp file: %v", err)
	}
	e.must("", "resume", id, "more", "--provider", "echo")
	if _, err := os.Stat(stale); !os.IsNotExist(err) {
		t.Errorf("the killed step's temp file is still there: %v", err)
	}
	if _, err := os.Stat(other); err != nil {
		t.Errorf("another session's temp file was removed: %v", err)
	}
	if note, _ := os.ReadFile(filepath.Join(sessions, id+".lock")); len(note) != 0 {
		t.Errorf("the lock file still notes %q after the step", note)
	}
}
