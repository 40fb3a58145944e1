package core

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"reflect"
	"strings"
	"testing"

	"trail/core/errs"
	"trail/logfmt"
)

func importFixture(t *testing.T, e *Engine, file string, dry bool) (*ImportResult, error) {
	t.Helper()
	b, err := os.ReadFile("../testdata/peers/" + file)
	if err != nil {
		t.Fatal(err)
	}
	return e.Import(context.Background(), ImportOptions{Source: bytes.NewReader(b), SourcePath: "/src/" + file, Cwd: "/here", DryRun: dry})
}

// The log of an import replays to its record, holds the messages in the
// file's order with the skipped entries where they stood, and the record's
// checkpoint vouches for it, so the first resume reads only its tail.
func TestImportWritesALogInTheFilesOrderThatReplaysToTheRecord(t *testing.T) {
	e, st := testEngine(t, nil)
	res, err := importFixture(t, e, "claude-tools-compacted.jsonl", false)
	if err != nil {
		t.Fatal(err)
	}
	id := res.SessionID
	rec, err := st.Load(id)
	if err != nil {
		t.Fatal(err)
	}
	rep, err := logfmt.ReplayFile(st.LogPath(id), logfmt.ReplayOptions{SessionID: id})
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Messages) != len(rec.Messages) {
		t.Fatalf("replay %d messages, record %d", len(rep.Messages), len(rec.Messages))
	}
	for i := range rec.Messages {
		if !sameJSON(rep.Messages[i], rec.Messages[i]) {
			t.Fatalf("message %d:\nreplay %s\nrecord %s", i, rep.Messages[i], rec.Messages[i])
		}
	}
	if _, ok := readCheckpoint(rec.Fields); !ok {
		t.Fatal("no logCheckpoint: the first resume would replay the whole log")
	}
	raw, _ := rec.Fields.Get("importedFrom")
	var from map[string]string
	if err := json.Unmarshal(raw, &from); err != nil || from["format"] != "claude" || from["path"] != "/src/claude-tools-compacted.jsonl" ||
		from["sessionId"] != "7d1c2f0e-5b4a-4c3d-9e8f-0a1b2c3d4e5f" || from["importedAt"] == "" {
		t.Fatalf("importedFrom %s", raw)
	}
	if rec.Title != "calc fix" || rec.Provider == nil || rec.Provider.Name != "anthropic" || rec.Provider.Model != "claude-opus-4-6" || rec.Cwd != "/home/user/peerlab/work/proj" {
		t.Fatalf("title %q provider %+v cwd %q", rec.Title, rec.Provider, rec.Cwd)
	}
	evs := events(t, st, id)
	if evs[0]["event"] != "session_init" || evs[0]["importedFrom"] == nil || evs[len(evs)-1]["event"] != "import_summary" {
		t.Fatalf("first %v, last %v", evs[0]["event"], evs[len(evs)-1]["event"])
	}
	// Skipped entries come in the file's order: before the message of the
	// first line after them, or after the message of their own line (a
	// thinking block, an image).
	var order []string
	for _, ev := range evs {
		switch ev["event"] {
		case "import_skipped":
			order = append(order, "skip "+ev["type"].(string))
		case "history_mutation":
			if m, ok := ev["message"].(map[string]any); ok {
				order = append(order, m["role"].(string))
			} else {
				order = append(order, "compaction")
			}
		}
	}
	want := "system, skip summary, skip file-history-snapshot, user, user, assistant, skip assistant/thinking, skip progress, tool, tool, " +
		"skip user, skip assistant, assistant, tool, user, skip system/turn_duration, compaction, user, skip user/image, assistant, tool, assistant, " +
		"skip custom-title, skip last-prompt"
	if got := strings.Join(order, ", "); got != want {
		t.Fatalf("log order\n got %s\nwant %s", got, want)
	}
	if res.Imported != 14 || res.Compactions != 1 || len(res.Messages) != 6 {
		t.Fatalf("imported %d, compactions %d, context %d", res.Imported, res.Compactions, len(res.Messages))
	}
}

// A dry run writes nothing, not even the lock file.
func TestImportDryRunWritesNothing(t *testing.T) {
	e, st := testEngine(t, nil)
	res, err := importFixture(t, e, "codex-tools-rolled-back.jsonl", true)
	if err != nil || res.Imported == 0 {
		t.Fatalf("res %+v err %v", res, err)
	}
	if heads, _ := st.ListHeads(); len(heads) != 0 {
		t.Fatalf("a dry run stored %v", heads)
	}
	if _, err := os.Stat(st.LogPath(res.SessionID)); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("a dry run left a log: %v", err)
	}
}

// failingLog writes through to a real log until it has written n lines.
type failingLog struct {
	Logger
	n int
}

func (l *failingLog) Log(event string, fields ...logfmt.Field) error {
	if l.n == 0 {
		return errors.New("disk full")
	}
	l.n--
	return l.Logger.Log(event, fields...)
}

// An import whose log cannot be written fails and leaves neither a record
// nor half a log (which would read as a session to restore).
func TestImportThatCannotWriteItsLogLeavesNothing(t *testing.T) {
	e, st := testEngine(t, nil)
	open := e.OpenLog
	e.OpenLog = func(id string, secrets []string) (Logger, error) {
		l, err := open(id, secrets)
		return &failingLog{Logger: l, n: 3}, err
	}
	res, err := importFixture(t, e, "pi-tools-branched.jsonl", false)
	if err == nil || !strings.Contains(err.Error(), "disk full") {
		t.Fatalf("res %+v err %v", res, err)
	}
	if heads, _ := st.ListHeads(); len(heads) != 0 {
		t.Fatalf("a failed import stored %v", heads)
	}
	logs, _ := os.ReadDir(strings.TrimSuffix(st.LogPath("x"), "x.jsonl"))
	for _, l := range logs {
		if strings.HasSuffix(l.Name(), ".jsonl") {
			t.Fatalf("a failed import left the log %s", l.Name())
		}
	}
}

// The secrets in use, and key-shaped strings, are scrubbed from what an
// import writes, as from what a step writes.
func TestImportScrubsSecretsFromTheRecordAndTheLog(t *testing.T) {
	e, st := testEngine(t, nil)
	e.Env = func(k string) string {
		if k == "OPENAI_API_KEY" {
			return "plain-secret-value-123"
		}
		return ""
	}
	src := `{"type":"session","version":3,"id":"p","timestamp":"2026-01-01T00:00:00Z","cwd":"/w"}` + "\n" +
		`{"type":"message","id":"a","parentId":null,"timestamp":"2026-01-01T00:00:01Z","message":{"role":"user","content":"my key is plain-secret-value-123 and sk-ant-api03-abcdefghijklmnopqrstuvwxyz0123456789"}}` + "\n" +
		`{"type":"label","id":"b","parentId":"a","timestamp":"2026-01-01T00:00:02Z","label":"plain-secret-value-123"}` + "\n"
	res, err := e.Import(context.Background(), ImportOptions{Source: strings.NewReader(src), SourcePath: "-"})
	if err != nil {
		t.Fatal(err)
	}
	for _, path := range []string{st.RecordPath(res.SessionID), st.LogPath(res.SessionID)} {
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if bytes.Contains(b, []byte("plain-secret-value-123")) || bytes.Contains(b, []byte("sk-ant-api03")) {
			t.Fatalf("%s holds a secret:\n%s", path, b)
		}
	}
}

// A file that does not read is invalid data naming the line, with a hint.
func TestImportOfABrokenFileIsInvalidDataNamingTheLine(t *testing.T) {
	e, st := testEngine(t, nil)
	_, err := e.Import(context.Background(), ImportOptions{Source: strings.NewReader(`{"type":"session","version":3,"id":"p"}` + "\n" + `{"type":"mess`), SourcePath: "/src/pi.jsonl"})
	var bad *errs.InvalidDataError
	if !errors.As(err, &bad) || !strings.Contains(err.Error(), "/src/pi.jsonl: line 2: the last line is cut short") || bad.Hint() == "" {
		t.Fatalf("err %v", err)
	}
	if heads, _ := st.ListHeads(); len(heads) != 0 {
		t.Fatalf("stored %v", heads)
	}
}

// sameJSON compares two JSON values: byte for byte first, then by meaning,
// so key order or escapes another writer chose are not a difference.
func sameJSON(a, b []byte) bool {
	if bytes.Equal(a, b) {
		return true
	}
	var va, vb any
	da, db := json.NewDecoder(bytes.NewReader(a)), json.NewDecoder(bytes.NewReader(b))
	da.UseNumber()
	db.UseNumber()
	if da.Decode(&va) != nil || db.Decode(&vb) != nil {
		return false
	}
	return reflect.DeepEqual(va, vb)
}
