package main_test

import (
	"encoding/json"
	"strings"
	"testing"
)

// Where request digests, Robota round trips, streamed replay and the
// cassette meet: each case runs the built binary on logs the other
// features wrote.

// replayFormatsAgree checks that replay's streamed jsonl (the context from
// the last compaction on, read twice) and its kept json say the same, in
// the context view and in the transcript view (markers included), and
// that the context is the record's messages.
func (e *env) replayFormatsAgree(id string) {
	e.t.Helper()
	lines := func(out string) []json.RawMessage {
		var msgs []json.RawMessage
		for _, l := range strings.Split(strings.TrimSuffix(out, "\n"), "\n") {
			if l != "" {
				msgs = append(msgs, json.RawMessage(l))
			}
		}
		return msgs
	}
	var doc struct {
		Messages []json.RawMessage `json:"messages"`
		History  []struct {
			Category string          `json:"category"`
			Type     string          `json:"type"`
			Data     json.RawMessage `json:"data"`
		} `json:"history"`
	}
	kept := e.must("", "replay", id, "--format", "json")
	if err := json.Unmarshal([]byte(kept.stdout), &doc); err != nil {
		e.t.Fatalf("replay --format json: %v", err)
	}
	streamed := e.must("", "replay", id, "--format", "jsonl")
	if !sameJSONList(e.t, lines(streamed.stdout), doc.Messages) {
		e.t.Errorf("session %s: replay --format jsonl and --format json give other context messages", id)
	}
	if streamed.stderr != kept.stderr {
		e.t.Errorf("session %s: warnings differ:\njsonl %q\njson  %q", id, streamed.stderr, kept.stderr)
	}
	e.sameMessages(id, lines(streamed.stdout))

	// The transcript: a jsonl marker {"compaction": data-with-timestamp}
	// is the json history's event entry; a message is its chat entry's data.
	tr := lines(e.must("", "replay", id, "--view", "transcript", "--format", "jsonl").stdout)
	if len(tr) != len(doc.History) {
		e.t.Fatalf("session %s: transcript jsonl has %d lines, json history %d entries", id, len(tr), len(doc.History))
	}
	for i, h := range doc.History {
		if h.Category == "chat" {
			if !sameJSONList(e.t, tr[i:i+1], []json.RawMessage{h.Data}) {
				e.t.Errorf("session %s: transcript item %d differs", id, i)
			}
			continue
		}
		var marker map[string]map[string]any
		var data map[string]any
		if err := json.Unmarshal(tr[i], &marker); err != nil || json.Unmarshal(h.Data, &data) != nil {
			e.t.Fatalf("session %s: transcript item %d: %s / %s", id, i, tr[i], h.Data)
		}
		m, ok := marker[h.Type]
		if !ok {
			e.t.Fatalf("session %s: transcript item %d is %s in jsonl, a %s in json", id, i, tr[i], h.Type)
		}
		delete(m, "timestamp")
		sameJSON(e.t, "transcript marker", data, m)
	}
}

// Streamed and kept replay agree, and give the record, on the logs each
// feature writes: a compaction with full request lines, Robota's compaction
// without its summary (before and after trail re-syncs it), a re-sync of a
// log in other bytes, and a paused then approved round.
func TestReplayFormatsAgreeAcrossFeatures(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	s := e.script(answer("Paris."), answer("About 2.1 million."), answer("Summary: Paris."), answer("On the Seine."))
	e.must("", "run", "--provider", "script", "--script", s, "--session-id", "cmp", "--log-requests", "full", "Capital of France?")
	e.must("", "resume", "cmp", "How many people?")
	e.must("", "compact", "cmp")
	e.must("", "resume", "cmp", "Which river?", "--log-requests", "digest")
	e.replayFormatsAgree("cmp")

	pz := pausedSession(t, e, answer("done"))
	e.must("", "resume", pz, "--approve", "all", "--log-requests", "full")
	e.replayFormatsAgree(pz)

	raw := newEnv(t)
	raw.rawLogs = true // Robota's log lacks the compaction's list until trail re-syncs it
	raw.robotaFixture(robotaCompactedID)
	kept, streamed := raw.replayMessages(robotaCompactedID), raw.must("", "replay", robotaCompactedID, "--format", "jsonl")
	if got := strings.Count(streamed.stdout, "\n"); got != len(kept) || !strings.Contains(streamed.stderr, "holds no summary") {
		t.Fatalf("a log without its summary: jsonl %d messages, json %d; stderr %q", got, len(kept), streamed.stderr)
	}
	raw.must("", "resume", robotaCompactedID, "and now?", "--provider", "echo", "--log-requests", "full")
	raw.must("", "compact", robotaCompactedID, "--provider", "echo")
	raw.must("", "resume", robotaCompactedID, "after", "--provider", "echo")
	raw.must("", "validate-log", "--strict", robotaCompactedID)
	raw.replayFormatsAgree(robotaCompactedID)
	if r := raw.must("", "replay", robotaCompactedID, "--view", "transcript", "--format", "jsonl"); !strings.Contains(r.stdout, `"summaryMissing":true`) || !strings.Contains(r.stdout, `{"resync":`) {
		t.Errorf("transcript lacks a marker:\n%s", r.stdout)
	}
}
