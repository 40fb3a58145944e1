package logfmt

import (
	"strings"
	"testing"
)

// compactLog builds a log from short event descriptions.
func compactLog(events ...string) string {
	var b strings.Builder
	for i, ev := range events {
		b.WriteString(`{"timestamp":"2026-01-01T00:00:0` + string(rune('0'+i%10)) + `.000Z","sessionId":"s","event":` + ev + "}\n")
	}
	return b.String()
}

const (
	evInit    = `"session_init","systemPrompt":"be brief"`
	evPreRun  = `"pre_run","history":[{"id":"sys_robota","role":"system","content":"be brief","state":"complete","timestamp":"2026-01-01T00:00:00.000Z","metadata":{"k":1}}]`
	evUser    = `"history_mutation","mutation":"append_message","index":1,"message":{"id":"u1","role":"user","content":"hi"}`
	evCompact = `"context_compact","trigger":"auto","before":{},"after":{}`
	evUser2   = `"history_mutation","mutation":"append_message","index":2,"message":{"id":"u2","role":"user","content":"again"}`
	evReplace = `"history_mutation","mutation":"replace_all","messages":[{"id":"s2","role":"system","content":"be brief"},{"id":"sum","role":"assistant","content":"[Context Summary]\nhi"}]`
	evResync  = `"history_mutation","mutation":"replace_all","reason":"resync","messages":[{"id":"s2","role":"system","content":"be brief"},{"id":"sum","role":"assistant","content":"[Context Summary]\nhi"},{"id":"u2","role":"user","content":"again"}]`
)

func TestCompactionWithoutItsListIsWarnedUntilAResync(t *testing.T) {
	for _, tc := range []struct {
		name        string
		events      []string
		warnLine    int // 0: no warning
		messages    int
		transcripts int // summary-missing markers
	}{
		{"robota's compaction", []string{evInit, evPreRun, evUser, evCompact, evUser2}, 4, 3, 1},
		{"robota's compaction, log ends there", []string{evInit, evPreRun, evUser, evCompact}, 4, 2, 1},
		{"trail's compaction", []string{evInit, evUser, evCompact, evReplace, evUser2}, 0, 3, 0},
		{"re-synced after robota's compaction", []string{evInit, evPreRun, evUser, evCompact, evUser2, evResync}, 0, 3, 1},
		{"two compactions, the second re-synced", []string{evInit, evUser, evCompact, evUser2, evCompact, evResync}, 0, 3, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			log := compactLog(tc.events...)
			rep, err := Validate(strings.NewReader(log), ValidateOptions{Dir: t.TempDir(), SessionID: "s"})
			if err != nil {
				t.Fatal(err)
			}
			var got []Issue
			for _, is := range rep.Issues {
				if is.Code == CodeCompactionSummaryMissing {
					got = append(got, is)
				}
			}
			switch {
			case tc.warnLine == 0 && len(got) > 0:
				t.Errorf("warned: %+v", got)
			case tc.warnLine > 0 && (len(got) != 1 || got[0].Line != tc.warnLine || got[0].Severity != SeverityWarning):
				t.Errorf("want one warning at line %d, got %+v", tc.warnLine, got)
			}
			r, err := ReplayLog(strings.NewReader(log), ReplayOptions{Dir: t.TempDir(), SessionID: "s", Transcript: true})
			if err != nil {
				t.Fatal(err)
			}
			warned := 0
			for _, w := range r.Warnings {
				if strings.Contains(w.Message, "cannot be rebuilt") {
					warned = w.Line
				}
			}
			if warned != tc.warnLine {
				t.Errorf("replay warned at line %d, want %d: %+v", warned, tc.warnLine, r.Warnings)
			}
			if len(r.Messages) != tc.messages {
				t.Errorf("replay has %d messages, want %d", len(r.Messages), tc.messages)
			}
			markers := 0
			for _, it := range r.Transcript {
				if it.Compaction != nil && it.Compaction.SummaryMissing {
					markers++
				}
			}
			if markers != tc.transcripts || r.SummariesMissing != tc.transcripts {
				t.Errorf("%d summary-missing markers (%d counted), want %d", markers, r.SummariesMissing, tc.transcripts)
			}
		})
	}
}

func TestReplayTakesRobotasSystemMessageFromPreRun(t *testing.T) {
	r, err := ReplayLog(strings.NewReader(compactLog(evInit, evPreRun, evUser)), ReplayOptions{Dir: t.TempDir(), SessionID: "s"})
	if err != nil {
		t.Fatal(err)
	}
	want := `{"id":"sys_robota","role":"system","content":"be brief","state":"complete","timestamp":"2026-01-01T00:00:00.000Z","metadata":{"k":1}}`
	if len(r.Messages) != 2 || string(r.Messages[0]) != want {
		t.Fatalf("messages %s", r.Messages)
	}
	// Without a pre_run listing it, the message is built from session_init.
	r, err = ReplayLog(strings.NewReader(compactLog(evInit, evUser)), ReplayOptions{Dir: t.TempDir(), SessionID: "s"})
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Messages) != 2 || !strings.Contains(string(r.Messages[0]), `"id":"s-system"`) {
		t.Fatalf("messages %s", r.Messages)
	}
}
