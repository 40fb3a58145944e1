package logfmt

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
)

// Emit hands out the transcript Replay.Transcript would keep, item for
// item and in order, and keeps neither it nor the context.
func TestReplayEmitStreamsTheSameTranscript(t *testing.T) {
	msg := func(id, role string) string {
		return `{"id":"` + id + `","role":"` + role + `","content":"` + id + `"}`
	}
	logs := map[string]string{
		"resync and a duplicate": logOf(
			ev(0, "history_mutation", `"mutation":"append_message","index":0,"message":`+msg("s", "system")),
			ev(1, "history_mutation", `"mutation":"append_message","index":1,"message":`+msg("u1", "user")),
			ev(2, "history_mutation", `"mutation":"append_message","index":2,"message":`+msg("lost", "assistant")),
			ev(3, "history_mutation", `"mutation":"replace_all","reason":"resync","messages":[`+msg("s", "system")+`,`+msg("u1", "user")+`,`+msg("new", "user")+`,`+msg("new", "user")+`]`),
			ev(4, "history_mutation", `"mutation":"replace_all","messages":[`+msg("s", "system")+`,`+msg("sum", "assistant")+`]`),
			ev(5, "history_mutation", `"mutation":"append_message","index":2,"message":`+msg("a2", "assistant")),
		),
	}
	data, err := os.ReadFile("../testdata/logs/valid-compaction.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	logs["testdata compaction"] = string(data)
	for name, log := range logs {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			kept, err := ReplayLog(strings.NewReader(log), ReplayOptions{Dir: dir, SessionID: "s", Transcript: true})
			if err != nil {
				t.Fatal(err)
			}
			if len(kept.Transcript) == 0 || kept.Compactions+kept.Resyncs == 0 {
				t.Fatalf("the log exercises nothing: %+v", kept)
			}
			var got []TranscriptItem
			streamed, err := ReplayLog(strings.NewReader(log), ReplayOptions{Dir: dir, SessionID: "s", Transcript: true,
				Emit: func(it TranscriptItem) error { got = append(got, it); return nil }})
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, kept.Transcript) {
				t.Errorf("emitted %+v\nkept    %+v", got, kept.Transcript)
			}
			if len(streamed.Transcript) != 0 || len(streamed.Messages) != 0 {
				t.Errorf("streamed replay kept %d items, %d messages", len(streamed.Transcript), len(streamed.Messages))
			}
			if streamed.Compactions != kept.Compactions || streamed.Resyncs != kept.Resyncs {
				t.Errorf("counts differ: %+v vs %+v", streamed, kept)
			}
		})
	}
}

// An error from Emit (a reader gone away) ends the replay with it.
func TestReplayEmitErrorStops(t *testing.T) {
	stop := errors.New("stop")
	n := 0
	log := logOf(
		ev(0, "history_mutation", `"mutation":"append_message","index":0,"message":{"id":"a","role":"user","content":"x"}`),
		ev(1, "history_mutation", `"mutation":"append_message","index":1,"message":{"id":"b","role":"user","content":"y"}`),
	)
	_, err := ReplayLog(strings.NewReader(log), ReplayOptions{Dir: t.TempDir(), Transcript: true,
		Emit: func(TranscriptItem) error { n++; return stop }})
	if !errors.Is(err, stop) || n != 1 {
		t.Fatalf("err %v after %d items", err, n)
	}
}

// Context hands out the messages Replay.Messages would hold, in order,
// from a file read twice; also when the last replace_all is skipped (the
// replay starts over) and when there is none.
func TestReplayContextStreamsTheSameMessages(t *testing.T) {
	msg := func(id, role string) string {
		return `{"id":"` + id + `","role":"` + role + `","content":"` + id + `"}`
	}
	data, err := os.ReadFile("../testdata/logs/valid-compaction.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	for name, log := range map[string]string{
		"testdata compaction": string(data),
		"no replace_all": logOf(
			ev(0, "history_mutation", `"mutation":"append_message","index":0,"message":`+msg("s", "system")),
			ev(1, "history_mutation", `"mutation":"append_message","index":1,"message":`+msg("u1", "user")),
		),
		"two compactions, appends between": logOf(
			ev(0, "history_mutation", `"mutation":"append_message","index":0,"message":`+msg("s", "system")),
			ev(1, "history_mutation", `"mutation":"replace_all","messages":[`+msg("s", "system")+`,`+msg("sum1", "assistant")+`]`),
			ev(2, "history_mutation", `"mutation":"append_message","index":2,"message":`+msg("u2", "user")),
			ev(3, "history_mutation", `"mutation":"replace_all","reason":"resync","messages":[`+msg("s", "system")+`,`+msg("sum2", "assistant")+`]`),
			ev(4, "history_mutation", `"mutation":"append_message","index":2,"message":`+msg("u3", "user")),
		),
		"the last replace_all is skipped": logOf(
			ev(0, "history_mutation", `"mutation":"append_message","index":0,"message":`+msg("s", "system")),
			ev(1, "history_mutation", `"mutation":"replace_all","messages":[`+msg("s", "system")+`,`+msg("sum1", "assistant")+`]`),
			ev(2, "history_mutation", `"mutation":"append_message","index":2,"message":`+msg("u2", "user")),
			ev(3, "history_mutation", `"mutation":"replace_all","messages":"not a list"`),
			ev(4, "history_mutation", `"mutation":"append_message","index":3,"message":`+msg("u3", "user")),
		),
	} {
		t.Run(name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "s.jsonl")
			if err := os.WriteFile(path, []byte(log), 0o600); err != nil {
				t.Fatal(err)
			}
			kept, err := ReplayFile(path, ReplayOptions{})
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			streamed, err := ReplayFile(path, ReplayOptions{Context: func(m json.RawMessage) error {
				got = append(got, string(m))
				return nil
			}})
			if err != nil {
				t.Fatal(err)
			}
			var want []string
			for _, m := range kept.Messages {
				want = append(want, string(m))
			}
			if !slices.Equal(got, want) || len(want) == 0 {
				t.Errorf("streamed %q\nkept     %q", got, want)
			}
			if len(streamed.Messages) != 0 || streamed.Compactions != kept.Compactions || len(streamed.Warnings) != len(kept.Warnings) {
				t.Errorf("streamed replay %+v, kept %+v", streamed, kept)
			}
		})
	}
}
