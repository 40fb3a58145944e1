//go:build unix

package logfmt

import (
	"path/filepath"
	"strings"
	"testing"
)

// validate-log reads each payload of a line once: checking it, reading
// its message's role and adding it to the request digest all use the
// bytes that were checked.
func TestValidateReadsEachPayloadOnce(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "w.jsonl")
	w := openTest(t, path, Options{SessionID: "w", PayloadThreshold: 64})
	logOK(t, w, "session_init", F("cwd", "/"), F("systemPrompt", "sp"))
	for i, text := range []string{"first", "second", "third"} {
		msg := Object{F("id", "m"+itoa(i)), F("role", "user"), F("content", strings.Repeat(text+" ", 40)), F("state", "complete"),
			F("timestamp", "2026-01-01T00:00:00.000Z")}
		logOK(t, w, "history_mutation", F("mutation", "append_message"), F("index", i+1), F("message", msg))
	}
	if err := w.Sync(); err != nil {
		t.Fatal(err)
	}
	files := payloadFiles(t, path, "w")
	if len(files) < 3 {
		t.Fatalf("%d payload files, want at least one a message", len(files))
	}
	opens := countOpens(t)
	rep, err := ValidateFile(path, ValidateOptions{})
	if err != nil || len(rep.Issues) != 0 {
		t.Fatalf("%v\n%s", err, issuesText(rep))
	}
	if n := opens.Load(); int(n) != len(files) {
		t.Errorf("validating opened payload files %d times, want %d (once each)", n, len(files))
	}
}
