package logfmt

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A log known to be of session s (ReplayOptions.Session) keeps s's lines
// and leaves out another session's, even when those come first, even in a
// strict replay (the conversation is whole without them); the lines of one
// other session are one warning, with their count.
func TestReplayOfAKnownSessionSkipsAnotherSessionsLinesFirst(t *testing.T) {
	msg := func(id, role string) string {
		return `{"id":"` + id + `","role":"` + role + `","content":"` + id + `"}`
	}
	other := func(line string) string { return strings.Replace(line, `"sessionId":"s"`, `"sessionId":"o"`, 1) }
	log := logOf(
		other(ev(0, "history_mutation", `"mutation":"append_message","index":0,"message":`+msg("os", "system"))),
		other(ev(0, "history_mutation", `"mutation":"append_message","index":1,"message":`+msg("ou", "user"))),
		ev(1, "history_mutation", `"mutation":"append_message","index":0,"message":`+msg("s", "system")),
		ev(2, "history_mutation", `"mutation":"append_message","index":1,"message":`+msg("u1", "user")),
	)
	path := filepath.Join(t.TempDir(), "s.jsonl")
	if err := os.WriteFile(path, []byte(log), 0o600); err != nil {
		t.Fatal(err)
	}
	// strict or not, streamed or not: without those lines the
	// conversation is whole, so they are left out with a warning
	streamed := 0
	for _, opts := range []ReplayOptions{
		{Session: "s", Strict: true, Context: func(json.RawMessage) error { streamed++; return nil }},
		{Session: "s", Strict: true, Transcript: true},
	} {
		rep, err := ReplayFile(path, opts)
		if err != nil || len(rep.Warnings) != 1 {
			t.Fatalf("strict replay: %v %+v", err, rep)
		}
	}
	if streamed != 2 {
		t.Fatalf("%d messages streamed, want s's 2", streamed)
	}
	rep, err := ReplayFile(path, ReplayOptions{Session: "s"})
	if err != nil {
		t.Fatal(err)
	}
	if rep.SessionID != "s" || len(rep.Messages) != 2 || !strings.Contains(string(rep.Messages[1]), `"u1"`) {
		t.Fatalf("replay of s: %s %d messages %s", rep.SessionID, len(rep.Messages), rep.Messages)
	}
	if len(rep.Warnings) != 1 || rep.Warnings[0].Line != 1 || !strings.HasPrefix(rep.Warnings[0].Message, `2 lines of session "o"`) {
		t.Fatalf("warnings %+v", rep.Warnings)
	}
	if rep.CreatedAt != "2026-01-01T00:00:01.000Z" {
		t.Errorf("createdAt %s, from another session's line", rep.CreatedAt)
	}
	// without the session known, the first line decides, as before
	if rep, err := ReplayFile(path, ReplayOptions{}); err != nil || rep.SessionID != "o" {
		t.Fatalf("unknown session: %v %+v", err, rep)
	}
}
