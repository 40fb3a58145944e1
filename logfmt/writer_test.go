package logfmt

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tidwall/gjson"
)

var fixedTime = time.Date(2025, 3, 4, 5, 6, 7, 890123456, time.FixedZone("CET", 3600))

func fixedNow() time.Time { return fixedTime }

func openTest(t *testing.T, path string, opts Options) *Writer {
	t.Helper()
	if opts.SessionID == "" {
		opts.SessionID = "s1"
	}
	if opts.Now == nil {
		opts.Now = fixedNow
	}
	w, err := OpenWriter(path, opts)
	if err != nil {
		t.Fatalf("OpenWriter: %v", err)
	}
	t.Cleanup(func() { _ = w.Close() })
	return w
}

func logOK(t *testing.T, w *Writer, event string, fields ...Field) {
	t.Helper()
	if err := w.Log(event, fields...); err != nil {
		t.Fatalf("Log(%s): %v", event, err)
	}
}

func readLines(t *testing.T, path string) []string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(b) > 0 && b[len(b)-1] != '\n' {
		t.Fatalf("log does not end with a newline: %q", b)
	}
	return strings.Split(strings.TrimSuffix(string(b), "\n"), "\n")
}

func seqs(t *testing.T, lines []string) []int64 {
	t.Helper()
	var out []int64
	for _, l := range lines {
		if !gjson.Valid(l) {
			t.Fatalf("invalid line %q", l)
		}
		out = append(out, gjson.Get(l, "seq").Int())
	}
	return out
}

func TestLineGolden(t *testing.T) {
	path := filepath.Join(t.TempDir(), "logs", "s1.jsonl")
	w := openTest(t, path, Options{SessionID: "0193-abc"})
	logOK(t, w, "tool_execution_request",
		F("executionId", "ex1"),
		F("round", 1),
		F("parameters", Object{F("path", "a<b>&c.go"), F("limit", 10)}),
		F("message", json.RawMessage(`{"role": "user", "content": "hi"}`)),
		F("ok", true),
		F("error", nil))
	want := `{"timestamp":"2025-03-04T04:06:07.890Z","sessionId":"0193-abc","event":"tool_execution_request","seq":0,` +
		`"executionId":"ex1","round":1,"parameters":{"path":"a<b>&c.go","limit":10},"message":{"role":"user","content":"hi"},"ok":true,"error":null}` + "\n"
	got, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != want {
		t.Fatalf("got  %s\nwant %s", got, want)
	}
	for p, mode := range map[string]os.FileMode{path: 0o600, filepath.Dir(path): 0o700} {
		if info, err := os.Stat(p); err != nil || info.Mode().Perm() != mode {
			t.Errorf("%s: mode %v, want %v (%v)", p, info.Mode().Perm(), mode, err)
		}
	}
}

func TestSeqContinuesAcrossWriters(t *testing.T) {
	path := filepath.Join(t.TempDir(), "s1.jsonl")
	w := openTest(t, path, Options{})
	for range 3 {
		logOK(t, w, "text_delta", F("delta", "x"))
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	w2 := openTest(t, path, Options{})
	if w2.NextSeq() != 3 {
		t.Fatalf("NextSeq after reopen = %d, want 3", w2.NextSeq())
	}
	logOK(t, w2, "text_delta", F("delta", "y"))
	logOK(t, w2, "text_delta", F("delta", "z"))
	if got := seqs(t, readLines(t, path)); !equalInts(got, []int64{0, 1, 2, 3, 4}) {
		t.Fatalf("seqs = %v", got)
	}
}

func equalInts(a, b []int64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func TestOpenWriterRecoversTheTail(t *testing.T) {
	line := func(seq int) string {
		return `{"timestamp":"2025-01-01T00:00:00.000Z","sessionId":"s1","event":"user","seq":` + itoa(seq) + `,"content":"c"}` + "\n"
	}
	robota := func(event string) string {
		return `{"timestamp":"2025-01-01T00:00:00.000Z","sessionId":"s1","event":"` + event + `"}` + "\n"
	}
	tests := []struct {
		name     string
		content  string
		wantSeq  int64
		wantKept string // the file's bytes before the new line
	}{
		{"an empty file starts at 0", "", 0, ""},
		{"a clean log continues after its last seq", line(0) + line(1), 2, line(0) + line(1)},
		{"a torn last line is cut and seq continues from the last complete line",
			line(0) + line(1) + `{"timestamp":"2025-01-01T00:00:00.000Z","sessionId":"s1","ev`, 2, line(0) + line(1)},
		{"a file holding only a torn line becomes empty", `{"timestamp":"20`, 0, ""},
		{"a whole object missing only its newline is kept", line(0) + strings.TrimSuffix(line(1), "\n"), 2, line(0) + line(1)},
		{"a Robota log without seq continues at its line count", robota("session_init") + robota("user") + robota("assistant"), 3,
			robota("session_init") + robota("user") + robota("assistant")},
		{"blank lines are not counted and not the last line", line(0) + line(1) + "\n  \n", 2, line(0) + line(1) + "\n  \n"},
		{"a Robota log with a torn tail counts complete lines only", robota("a") + robota("b") + `{"x`, 2, robota("a") + robota("b")},
		{"a last line with a non-integer seq falls back to counting", line(0) + `{"seq":"7"}` + "\n", 2, line(0) + `{"seq":"7"}` + "\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "s1.jsonl")
			if err := os.WriteFile(path, []byte(tt.content), 0o600); err != nil {
				t.Fatal(err)
			}
			w := openTest(t, path, Options{})
			if w.NextSeq() != tt.wantSeq {
				t.Fatalf("NextSeq = %d, want %d", w.NextSeq(), tt.wantSeq)
			}
			logOK(t, w, "user", F("content", "next"))
			got, _ := os.ReadFile(path)
			kept, last, ok := cutLastLine(got)
			if !ok || string(kept) != tt.wantKept {
				t.Fatalf("file before the new line:\n got %q\nwant %q", kept, tt.wantKept)
			}
			if !gjson.ValidBytes(last) {
				t.Fatalf("new line is not valid JSON: %q", last)
			}
			if s := gjson.GetBytes(last, "seq").Int(); s != tt.wantSeq {
				t.Fatalf("new line seq = %d, want %d", s, tt.wantSeq)
			}
		})
	}
}

// cutLastLine splits b into everything before its last line and that line.
func cutLastLine(b []byte) (before, last []byte, ok bool) {
	if len(b) == 0 || b[len(b)-1] != '\n' {
		return nil, nil, false
	}
	i := bytes.LastIndexByte(b[:len(b)-1], '\n')
	return b[:i+1], b[i+1 : len(b)-1], true
}

func itoa(n int) string { b, _ := Marshal(n); return string(b) }

// The tail is read backwards in chunks; a last line longer than one chunk
// must still be found whole.
func TestOpenWriterFindsALongLastLine(t *testing.T) {
	path := filepath.Join(t.TempDir(), "s1.jsonl")
	big := strings.Repeat("x", 3*tailChunk)
	content := `{"seq":0}` + "\n" + `{"seq":41,"pad":"` + big + `"}` + "\n" + `{"pad":"` + big + `","x`
	if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	if w := openTest(t, path, Options{}); w.NextSeq() != 42 {
		t.Fatalf("NextSeq = %d, want 42", w.NextSeq())
	}
}

func TestLogRejects(t *testing.T) {
	w := openTest(t, filepath.Join(t.TempDir(), "s1.jsonl"), Options{})
	for _, k := range []string{"timestamp", "sessionId", "event", "seq"} {
		if err := w.Log("user", F(k, "x")); err == nil {
			t.Errorf("field %q accepted", k)
		}
	}
	if err := w.Log("", F("a", 1)); err == nil {
		t.Error("empty event accepted")
	}
	if err := w.Log("user", F("x", json.RawMessage(`{`))); err == nil {
		t.Error("invalid raw accepted")
	}
	// Nothing was written and seq did not move.
	logOK(t, w, "user", F("content", "ok"))
	lines := readLines(t, w.Path())
	if len(lines) != 1 || gjson.Get(lines[0], "seq").Int() != 0 {
		t.Fatalf("lines = %q", lines)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatalf("second Close: %v", err)
	}
	if err := w.Log("user"); !errors.Is(err, os.ErrClosed) {
		t.Fatalf("Log after Close: %v", err)
	}
}

func TestOpenWriterRejectsUnsafeSessionIDs(t *testing.T) {
	for _, id := range []string{"", ".", "..", "../x", `a\b`, "a\x00"} {
		if _, err := OpenWriter(filepath.Join(t.TempDir(), "l.jsonl"), Options{SessionID: id}); err == nil {
			t.Errorf("session id %q accepted", id)
		}
	}
}

func TestSync(t *testing.T) {
	dir := t.TempDir()
	w := openTest(t, filepath.Join(dir, "s1.jsonl"), Options{PayloadThreshold: 10})
	logOK(t, w, "user", F("content", "a long enough string"))
	if err := w.Sync(); err != nil {
		t.Fatalf("Sync: %v", err)
	}
	if len(w.payloads.pending) != 0 {
		t.Fatalf("payloads still pending after Sync: %v", w.payloads.pending)
	}
}

// Two writers opened one after the other (two processes taking turns under
// the session lock) share seq and payload files without clashing.
func TestWritersInSequenceDoNotCollide(t *testing.T) {
	path := filepath.Join(t.TempDir(), "s1.jsonl")
	big := strings.Repeat("b", 100)
	for i := range 4 {
		w := openTest(t, path, Options{PayloadThreshold: 50})
		logOK(t, w, "tool_execution_result", F("result", big), F("round", i))
		logOK(t, w, "text_delta", F("delta", "d"))
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
	}
	if got := seqs(t, readLines(t, path)); !equalInts(got, []int64{0, 1, 2, 3, 4, 5, 6, 7}) {
		t.Fatalf("seqs = %v", got)
	}
	entries, _ := os.ReadDir(filepath.Join(filepath.Dir(path), "s1.payloads"))
	if len(entries) != 1 {
		t.Fatalf("payload folder holds %d entries, want 1", len(entries))
	}
}

// Size is where the next line starts: after a torn tail was repaired, and
// after each line; a reader starting there reads exactly the new lines.
func TestSizeFollowsTheFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "s1.jsonl")
	torn := `{"timestamp":"2025-01-01T00:00:00.000Z","sessionId":"s1","event":"user","seq":0}` + "\n" + `{"timestamp":"20`
	if err := os.WriteFile(path, []byte(torn), 0o600); err != nil {
		t.Fatal(err)
	}
	w := openTest(t, path, Options{SessionID: "s1"})
	check := func() {
		t.Helper()
		info, err := os.Stat(path)
		if err != nil {
			t.Fatal(err)
		}
		if w.Size() != info.Size() {
			t.Fatalf("Size = %d, the file has %d bytes", w.Size(), info.Size())
		}
	}
	check()
	logOK(t, w, "user", F("content", "next"))
	check()
	logOK(t, w, "user", F("content", strings.Repeat("big ", 20000))) // a payload: the line holds a reference
	check()
}

// Encode gives what a line would hold for a value: secrets scrubbed, big
// values inline (a replay resolves the payload back to them).
func TestEncodeIsTheLoggedForm(t *testing.T) {
	const key = "sk-ant-api03-abcdefghijklmnopqrstuvwxyz0123456789"
	w := openTest(t, filepath.Join(t.TempDir(), "s1.jsonl"), Options{SessionID: "s1", Secrets: []string{key}, PayloadThreshold: 16})
	got, err := w.Encode(Object{F("content", "my key is "+key), F("apiKey", "x"), F("long", strings.Repeat("y", 40))})
	if err != nil {
		t.Fatal(err)
	}
	want := `{"content":"my key is [REDACTED]","apiKey":"[REDACTED]","long":"` + strings.Repeat("y", 40) + `"}`
	if string(got) != want {
		t.Fatalf("Encode = %s\nwant     %s", got, want)
	}
	if entries, _ := os.ReadDir(filepath.Join(filepath.Dir(w.Path()), "s1.payloads")); len(entries) != 0 {
		t.Errorf("Encode wrote payload files: %v", entries)
	}
}
