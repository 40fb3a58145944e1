package logfmt

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A strict replay (trail replay printing a conversation) fails on a line
// it would skip; streaming, a line that is not JSON fails it before
// anything goes out (the first pass reads every line's shape, not every
// mutation's). The torn last line of a killed write stays a warning; a
// lenient replay (the repair paths) skips the line with a warning and
// keeps the rest.
func TestStrictReplayFailsOnALineItWouldSkip(t *testing.T) {
	msg := func(id, role string) string {
		return `{"id":"` + id + `","role":"` + role + `","content":"` + id + `"}`
	}
	good := []string{
		ev(0, "history_mutation", `"mutation":"append_message","index":0,"message":`+msg("s", "system")),
		ev(1, "history_mutation", `"mutation":"append_message","index":1,"message":`+msg("u1", "user")),
		ev(2, "history_mutation", `"mutation":"append_message","index":2,"message":`+msg("a1", "assistant")),
	}
	tests := []struct {
		name   string
		log    string
		broken int  // the line a strict replay names; 0: none
		first  bool // found by the first pass: nothing streams out
	}{
		{"not JSON in the middle", logOf(good[0], `{"timestamp":"2026-01-01T00:00:01.000Z","sessionId":"s","ev`, good[2]), 2, true},
		{"an append_message without its message", logOf(good[0], ev(1, "history_mutation", `"mutation":"append_message","index":1`), good[2]), 2, false},
		{"a replace_all whose messages is no list", logOf(good[0], good[1], ev(2, "history_mutation", `"mutation":"replace_all","messages":"x"`)), 3, false},
		{"a torn last line", strings.Join(append(good[:2:2], `{"timestamp":"2026-01-01T00:00:02.000Z","sess`), "\n"), 0, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "s.jsonl")
			if err := os.WriteFile(path, []byte(tt.log), 0o600); err != nil {
				t.Fatal(err)
			}
			lenient, err := ReplayFile(path, ReplayOptions{Transcript: true})
			if err != nil || len(lenient.Warnings) != 1 {
				t.Fatalf("lenient replay: %v, warnings %+v", err, lenient)
			}
			streamed := 0
			for _, opts := range []ReplayOptions{
				{Strict: true},
				{Strict: true, Transcript: true},
				{Strict: true, Context: func(json.RawMessage) error { streamed++; return nil }},
				{Strict: true, Transcript: true, Emit: func(TranscriptItem) error { streamed++; return nil }},
			} {
				rep, err := ReplayFile(path, opts)
				if tt.broken == 0 {
					if err != nil || len(rep.Warnings) != 1 {
						t.Errorf("strict replay of a torn tail: %v, %+v", err, rep)
					}
					continue
				}
				if !errors.Is(err, ErrBrokenLine) || !strings.Contains(err.Error(), "line "+string(rune('0'+tt.broken))+":") {
					t.Errorf("strict replay: err %v, want ErrBrokenLine at line %d", err, tt.broken)
				}
			}
			if tt.first && streamed > 0 {
				t.Errorf("%d messages streamed out before the error", streamed)
			}
		})
	}
}
