package commands

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tidwall/gjson"

	"trail/store"
)

func TestReplayFormats(t *testing.T) {
	atRepoRoot(t)
	const log = "testdata/logs/valid-payload.jsonl"
	run := func(t *testing.T, tty bool, args ...string) string {
		t.Helper()
		ios, _, out, errOut := TestIO()
		ios.SetTTY(false, tty, false)
		if code := runTrail(t, testDeps(t, ios), append([]string{"replay", log}, args...)...); code != ExitOK {
			t.Fatalf("exit %d: %s", code, errOut)
		}
		if errOut.Len() != 0 {
			t.Errorf("stderr: %s", errOut)
		}
		return out.String()
	}
	t.Run("jsonl is the default when piped", func(t *testing.T) {
		out := run(t, false)
		lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
		if len(lines) != 4 || gjson.Get(lines[3], "role").Str != "tool" || !strings.Contains(lines[3], "Unknown tool: Nope") {
			t.Fatalf("jsonl:\n%s", out)
		}
	})
	t.Run("text is the default on a terminal", func(t *testing.T) {
		checkGolden(t, "replay-valid-payload.txt", []byte(run(t, true)))
	})
	t.Run("json", func(t *testing.T) {
		var doc struct {
			SessionID string            `json:"sessionId"`
			Cwd       string            `json:"cwd"`
			CreatedAt string            `json:"createdAt"`
			UpdatedAt string            `json:"updatedAt"`
			Messages  []json.RawMessage `json:"messages"`
			History   []json.RawMessage `json:"history"`
		}
		out := run(t, false, "--format", "json")
		if err := json.Unmarshal([]byte(out), &doc); err != nil {
			t.Fatalf("%v\n%s", err, out)
		}
		if doc.SessionID != "valid-payload" || doc.Cwd != "/work/demo" || doc.CreatedAt != "2026-01-01T00:00:00.000Z" ||
			doc.UpdatedAt != "2026-01-01T00:00:12.000Z" || len(doc.Messages) != 4 || len(doc.History) != 4 {
			t.Fatalf("%s", out)
		}
		if h := gjson.ParseBytes(doc.History[1]); h.Get("category").Str != "chat" || h.Get("type").Str != "user" || h.Get("data.id").Str != "m1" {
			t.Errorf("history entry %s", doc.History[1])
		}
		if !strings.HasPrefix(out, `{"sessionId":"valid-payload","cwd":"/work/demo","createdAt":`) {
			t.Errorf("key order: %.80s", out)
		}
	})
	t.Run("record", func(t *testing.T) {
		out := run(t, false, "--format", "record")
		r, err := store.Decode([]byte(out), "stdout")
		if err != nil {
			t.Fatal(err)
		}
		if r.ID != "valid-payload" || len(r.Messages) != 4 || len(r.History) != 4 || r.Title != "list the files" ||
			r.Status != "idle" || r.MessageCount != 4 || r.Provider == nil || r.Provider.Name != "script" {
			t.Fatalf("record %+v", r)
		}
		if calls, _ := r.Fields.Get("providerCalls"); string(calls) != "1" {
			t.Errorf("providerCalls %s", calls)
		}
		if sp, _ := r.Fields.Get("systemPrompt"); string(sp) != `"You are terse."` {
			t.Errorf("systemPrompt %s", sp)
		}
	})
	t.Run("transcript view", func(t *testing.T) {
		ios, _, out, _ := TestIO()
		runTrail(t, testDeps(t, ios), "replay", "testdata/logs/valid-compaction.jsonl", "--view", "transcript", "--format", "jsonl")
		lines := strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n")
		if len(lines) != 7 || gjson.Get(lines[4], "compaction.messagesBefore").Int() != 4 || gjson.Get(lines[5], "id").Str != "m4" {
			t.Fatalf("transcript:\n%s", out)
		}
		ios, _, out, _ = TestIO()
		runTrail(t, testDeps(t, ios), "replay", "testdata/logs/valid-compaction.jsonl", "--view", "transcript", "--format", "text")
		checkGolden(t, "replay-valid-compaction-transcript.txt", out.Bytes())
		ios, _, out, _ = TestIO()
		runTrail(t, testDeps(t, ios), "replay", "testdata/logs/valid-compaction.jsonl")
		if got := strings.Count(out.String(), "\n"); got != 3 {
			t.Errorf("context view has %d messages, want 3:\n%s", got, out)
		}
	})
}

func TestReplayUsageAndNotFound(t *testing.T) {
	atRepoRoot(t)
	tests := []struct {
		name string
		args []string
		want int
	}{
		{"no argument", []string{"replay"}, ExitUsage},
		{"two arguments", []string{"replay", "a", "b"}, ExitUsage},
		{"a bad format", []string{"replay", "testdata/logs/valid.jsonl", "--format", "yaml"}, ExitUsage},
		{"a bad view", []string{"replay", "testdata/logs/valid.jsonl", "--view", "all"}, ExitUsage},
		{"--force alone", []string{"replay", "testdata/logs/valid.jsonl", "--force"}, ExitUsage},
		{"a record has no transcript", []string{"replay", "testdata/logs/valid.jsonl", "--format", "record", "--view", "transcript"}, ExitUsage},
		{"a missing log file", []string{"replay", "testdata/logs/nope.jsonl"}, ExitNotFound},
		{"a folder is not a log", []string{"replay", "testdata/logs/"}, ExitUsage},
		{"an unknown session", []string{"replay", "0193abcdef"}, ExitNotFound},
		{"a broken payload replay does not use", []string{"replay", "testdata/logs/payload-sha256-mismatch.jsonl"}, ExitOK},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ios, _, _, errOut := TestIO()
			if code := runTrail(t, testDeps(t, ios), tt.args...); code != tt.want {
				t.Fatalf("exit %d, want %d: %s", code, tt.want, errOut)
			}
		})
	}
}

func TestReplayOfABrokenPayloadIsInvalidData(t *testing.T) {
	dir := t.TempDir()
	src, err := os.ReadFile("../testdata/logs/valid-payload.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	log := filepath.Join(dir, "valid-payload.jsonl")
	os.WriteFile(log, src, 0o600) // without its payload folder
	ios, _, out, errOut := TestIO()
	if code := runTrail(t, testDeps(t, ios), "replay", log); code != ExitInvalidData || out.Len() != 0 {
		t.Fatalf("exit %d\n%s", code, out)
	}
	if !strings.Contains(errOut.String(), "External payload was not found") || !strings.Contains(errOut.String(), "hint: see trail validate-log") {
		t.Errorf("stderr %s", errOut)
	}
}

// homeWithLog puts the corpus log valid.jsonl in a trail home as session "valid".
func homeWithLog(t *testing.T, d *Deps) *store.FS {
	t.Helper()
	st := store.New(d.Env("TRAIL_HOME"))
	if err := st.EnsureLayout(); err != nil {
		t.Fatal(err)
	}
	src, err := os.ReadFile("../testdata/logs/valid.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(st.LogPath("valid"), src, 0o600); err != nil {
		t.Fatal(err)
	}
	return st
}

func TestReplayWriteRecord(t *testing.T) {
	ios, _, out, errOut := TestIO()
	d := testDeps(t, ios)
	st := homeWithLog(t, d)

	// The record is missing: it is rebuilt.
	if code := runTrail(t, d, "replay", "valid", "--write-record"); code != ExitOK {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if out.Len() != 0 || !strings.Contains(errOut.String(), "rebuilt "+st.RecordPath("valid")) {
		t.Errorf("stdout %q stderr %q", out, errOut)
	}
	r, err := st.Load("valid")
	if err != nil || len(r.Messages) != 4 || r.CreatedAt != "2026-01-01T00:00:00.000Z" {
		t.Fatalf("rebuilt record %+v %v", r, err)
	}
	// It is valid now: no overwrite without --force.
	errOut.Reset()
	if code := runTrail(t, d, "replay", "valid", "--write-record"); code != ExitUsage || !strings.Contains(errOut.String(), "--force") {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	// --force replaces it and keeps what the log does not know.
	r.Name = "kept"
	r.Messages = r.Messages[:1]
	if err := st.Save(r); err != nil {
		t.Fatal(err)
	}
	if code := runTrail(t, d, "replay", "valid", "--write-record", "--force", "--format", "jsonl"); code != ExitOK {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if r, _ = st.Load("valid"); r.Name != "kept" || len(r.Messages) != 4 {
		t.Errorf("forced rebuild: name %q, %d messages", r.Name, len(r.Messages))
	}
	if strings.Count(out.String(), "\n") != 4 {
		t.Errorf("with --format the conversation is printed too:\n%s", out)
	}
	// A corrupt record is the repair case: rebuilt without --force.
	if err := os.WriteFile(st.RecordPath("valid"), []byte(`{"id": "valid", "messages": [`), 0o600); err != nil {
		t.Fatal(err)
	}
	if code := runTrail(t, d, "replay", "valid", "--write-record"); code != ExitOK {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if r, err = st.Load("valid"); err != nil || len(r.Messages) != 4 {
		t.Fatalf("repaired record: %v", err)
	}
}

func TestReplayWriteRecordFromALogPathChecksTheSession(t *testing.T) {
	ios, _, _, errOut := TestIO()
	d := testDeps(t, ios)
	st := store.New(d.Env("TRAIL_HOME"))
	// A log file named after nothing in particular: the id comes from its lines.
	dir := t.TempDir()
	src, _ := os.ReadFile("../testdata/logs/valid.jsonl")
	log := filepath.Join(dir, "copy.jsonl")
	os.WriteFile(log, src, 0o600)
	if code := runTrail(t, d, "replay", log, "--write-record"); code != ExitOK {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if _, err := st.Load("valid"); err != nil {
		t.Fatal(err)
	}
}

func TestReplayOfAnEmptyLog(t *testing.T) {
	log := filepath.Join(t.TempDir(), "empty.jsonl")
	if err := os.WriteFile(log, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	ios, _, out, errOut := TestIO()
	d := testDeps(t, ios)
	if code := runTrail(t, d, "replay", log, "--format", "text"); code != ExitOK || out.String() != "(an empty log)\n" {
		t.Errorf("exit %d, %q", code, out)
	}
	if code := runTrail(t, d, "replay", log, "--write-record"); code != ExitInvalidData || !strings.Contains(errOut.String(), "no line carries a session id") {
		t.Errorf("write-record from an empty log: exit %d, %s", code, errOut)
	}
}
