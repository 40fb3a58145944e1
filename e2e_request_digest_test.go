package main_test

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// replayedRequest is one object of replay --view requests.
type replayedRequest struct {
	ExecutionID string            `json:"executionId"`
	Round       int               `json:"round"`
	Provider    string            `json:"provider"`
	Model       string            `json:"model"`
	Purpose     string            `json:"purpose"`
	Messages    []json.RawMessage `json:"messages"`
	Tools       json.RawMessage   `json:"tools"`
	SHA256      string            `json:"sha256"`
}

// requests runs replay --view requests on ref (jsonl) and parses it.
func (e *env) requests(ref string) []replayedRequest {
	e.t.Helper()
	r := e.must("", "replay", ref, "--view", "requests", "--format", "jsonl")
	var out []replayedRequest
	for _, line := range strings.Split(strings.TrimSuffix(r.stdout, "\n"), "\n") {
		if line == "" {
			continue
		}
		var q replayedRequest
		if err := json.Unmarshal([]byte(line), &q); err != nil {
			e.t.Fatalf("replay --view requests: %v\n%s", err, line)
		}
		out = append(out, q)
	}
	return out
}

// digestOf is messagesSha256 as docs/log-format.md defines it, computed
// here from the bytes replay printed: each message followed by "\n".
func digestOf(msgs []json.RawMessage) string {
	h := sha256.New()
	for _, m := range msgs {
		h.Write(m)
		h.Write([]byte{'\n'})
	}
	return hex.EncodeToString(h.Sum(nil))
}

// sameJSONList compares two message lists by meaning.
func sameJSONList(t *testing.T, got, want []json.RawMessage) bool {
	t.Helper()
	if len(got) != len(want) {
		return false
	}
	for i := range got {
		var a, b any
		if json.Unmarshal(got[i], &a) != nil || json.Unmarshal(want[i], &b) != nil || !reflect.DeepEqual(a, b) {
			return false
		}
	}
	return true
}

// logBytes is the log and its payload folder, in bytes.
func (e *env) logBytes(id string) int64 {
	e.t.Helper()
	var n int64
	if fi, err := os.Stat(e.logPath(id)); err == nil {
		n += fi.Size()
	}
	_ = filepath.Walk(filepath.Join(e.home, "logs", id), func(_ string, fi os.FileInfo, err error) error {
		if err == nil && !fi.IsDir() {
			n += fi.Size()
		}
		return nil
	})
	return n
}

// A long conversation's log grows with the conversation, not with its
// square: each request names the history by digest, and the history is
// logged once. Yet every request can still be rebuilt and proven.
func TestRequestDigestsKeepTheLogLinearAndProveEveryRequest(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	prompt := func(i int) string {
		return fmt.Sprintf("turn%d ", i) + strings.Repeat(fmt.Sprintf("word%d ", i%10), 2048/6)
	}
	e.must("", "run", "--provider", "echo", prompt(0))
	id := e.onlySession()
	var at20, at40 int64
	for i := 1; i <= 40; i++ {
		e.must("", "resume", id, "--provider", "echo", prompt(i))
		switch i {
		case 19:
			at20 = e.logBytes(id) // 20 turns
		case 39:
			at40 = e.logBytes(id) // 40 turns
		}
	}
	recFI, err := os.Stat(e.recordPath(id))
	if err != nil {
		t.Fatal(err)
	}
	final := e.logBytes(id)
	t.Logf("log+payloads: %d bytes at 20 turns, %d at 40 (%.2fx), %d at 41; record %d (%.2fx)",
		at20, at40, float64(at40)/float64(at20), final, recFI.Size(), float64(final)/float64(recFI.Size()))
	if float64(at40) > 2.3*float64(at20) {
		t.Errorf("the log grows faster than the conversation: %d bytes at 40 turns, %d at 20", at40, at20)
	}
	if float64(final) > 8*float64(recFI.Size()) {
		t.Errorf("log+payloads %d bytes are more than 8x the record's %d", final, recFI.Size())
	}

	reqs := e.requests(id)
	if len(reqs) != 41 {
		t.Fatalf("replay --view requests gave %d requests, want 41 (one per step)", len(reqs))
	}
	for i, q := range reqs {
		if q.SHA256 != digestOf(q.Messages) {
			t.Fatalf("request %d: sha256 %s is not the digest of its messages (%s)", i, q.SHA256, digestOf(q.Messages))
		}
		if q.Provider != "echo" || q.ExecutionID == "" || q.Round != 1 {
			t.Fatalf("request %d: %+v", i, q)
		}
	}
	// The last request carried every message of the record but the answer
	// it got back.
	rec := e.recordMessages(id)
	last := reqs[40]
	if !sameJSONList(t, last.Messages, rec[:len(rec)-1]) {
		t.Fatalf("the last request's %d messages are not the record's first %d", len(last.Messages), len(rec)-1)
	}
	if !strings.Contains(string(last.Messages[len(last.Messages)-1]), "turn40 ") {
		t.Fatal("the last request does not end with the last prompt")
	}
	// Its digest is the one the log wrote on the request line.
	var logged []string
	for _, l := range e.events(id, "provider_request") {
		if _, full := l["messages"]; full {
			t.Fatal("a provider_request carries its messages in digest mode")
		}
		logged = append(logged, l["messagesSha256"].(string))
	}
	if len(logged) != 41 || logged[40] != last.SHA256 {
		t.Fatalf("logged digests %d, last %q; replay says %q", len(logged), logged[len(logged)-1], last.SHA256)
	}

	// One word of one logged user message changed: validate-log names the
	// request it breaks.
	b, err := os.ReadFile(e.logPath(id))
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	edited := false
	for _, line := range strings.SplitAfter(string(b), "\n") {
		if !edited && strings.Contains(line, `"event":"history_mutation"`) && strings.Contains(line, "turn7 ") {
			line = strings.Replace(line, "turn7 word7", "turn7 wordX", 1)
			edited = true
		}
		out = append(out, line)
	}
	if !edited {
		t.Fatal("no logged user message to edit")
	}
	tampered := filepath.Join(e.cwd, "tampered.jsonl")
	if err := os.WriteFile(tampered, []byte(strings.Join(out, "")), 0o600); err != nil {
		t.Fatal(err)
	}
	r := e.run("", "validate-log", tampered)
	if r.code != 7 || !strings.Contains(r.stdout+r.stderr, "LOG_REQUEST_DIGEST_MISMATCH") {
		t.Fatalf("an edited user message: %s", r)
	}
	r = e.run("", "replay", tampered, "--view", "requests")
	if r.code != 7 || r.stdout != "" || strings.Count(strings.TrimSpace(r.stderr), "\n") > 1 {
		t.Fatalf("replay --view requests of an edited log: %s", r)
	}
}

// A tool round's second request carries the tool's result, and the log
// validates strictly.
func TestToolRoundRequestsCarryTheResult(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.writeFile("notes.txt", "the notes say hello\n")
	script := e.script(
		map[string]any{"text": "Reading.", "toolCalls": []any{map[string]any{"name": "Read", "arguments": map[string]any{"file_path": "notes.txt"}}}},
		map[string]any{"text": "They say hello."},
	)
	e.must("", "run", "--provider", "script", "--script", script, "--allow-tool", "Read", "what do the notes say?")
	id := e.onlySession()
	e.validateAll()
	reqs := e.requests(id)
	if len(reqs) != 2 {
		t.Fatalf("%d requests, want 2", len(reqs))
	}
	second := reqs[1]
	lastMsg := map[string]any{}
	if err := json.Unmarshal(second.Messages[len(second.Messages)-1], &lastMsg); err != nil {
		t.Fatal(err)
	}
	if lastMsg["role"] != "tool" || !strings.Contains(fmt.Sprint(lastMsg["content"]), "the notes say hello") {
		t.Fatalf("the second request does not end with the tool result: %v", lastMsg)
	}
	if second.SHA256 != digestOf(second.Messages) || !strings.Contains(string(second.Tools), `"Read"`) {
		t.Fatalf("second request: sha %s, tools %s", second.SHA256, second.Tools)
	}
}

// --log-requests full writes every request whole, as Robota does; such a
// log and one written before digests existed validate and replay alike.
func TestFullRequestLogsAndOldLogsStillValidateAndReplay(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.must("", "run", "--provider", "echo", "--log-requests", "full", "first")
	id := e.onlySession()
	e.must("", "resume", id, "--provider", "echo", "--log-requests", "full", "second")
	for _, l := range e.events(id, "provider_request") {
		if _, ok := l["messages"]; !ok {
			t.Fatalf("--log-requests full wrote a request without its messages: %v", l)
		}
	}
	for _, l := range e.events(id, "assistant") {
		if _, ok := l["historyStructure"]; !ok {
			t.Fatal("--log-requests full dropped the assistant's historyStructure")
		}
	}
	e.validateAll()
	reqs := e.requests(id)
	if len(reqs) != 2 || len(reqs[1].Messages) != 4 || reqs[1].SHA256 != digestOf(reqs[1].Messages) {
		t.Fatalf("full-form requests: %+v", reqs)
	}
	if r := e.run("", "run", "--provider", "echo", "--log-requests", "all", "x"); r.code != 2 {
		t.Fatalf("--log-requests all: %s", r)
	}

	old, err := filepath.Abs(filepath.Join("testdata", "logs", "before-digests", "full-form-before-digests.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	if r := e.run("", "validate-log", "--strict", old); r.code != 0 {
		t.Fatalf("a log from before digests: %s", r)
	}
	oldReqs := e.requests(old)
	if len(oldReqs) != 3 {
		t.Fatalf("%d requests in the old log, want 3", len(oldReqs))
	}
	for i, q := range oldReqs {
		if q.SHA256 != digestOf(q.Messages) || len(q.Tools) < 10 {
			t.Fatalf("old request %d: %+v", i, q)
		}
	}
	if !strings.Contains(string(oldReqs[1].Messages[3]), `"role":"tool"`) {
		t.Fatalf("the old log's second request lost its tool result: %s", oldReqs[1].Messages[3])
	}
}

// A log another tool re-wrote with spaces between tokens (Python's
// json.dumps, `jq .` then joined) holds the same messages: their request
// digests, taken over compact JSON, still hold.
func TestALogRewrittenWithSpacesKeepsItsDigests(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.must("", "run", "--provider", "echo", "--name", "spaced", "hi")
	e.must("", "resume", "spaced", "--provider", "echo", "again")
	id := e.onlySession()
	data, err := os.ReadFile(e.logPath(id))
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	for _, line := range bytes.Split(bytes.TrimSpace(data), []byte("\n")) {
		var b bytes.Buffer
		if err := json.Indent(&b, line, "", " "); err != nil {
			t.Fatal(err)
		}
		out.Write(bytes.ReplaceAll(b.Bytes(), []byte("\n"), nil)) // `{ "a": 1, ...}` on one line
		out.WriteByte('\n')
	}
	spaced := filepath.Join(t.TempDir(), "spaced.jsonl")
	if err := os.WriteFile(spaced, out.Bytes(), 0o600); err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(out.Bytes(), []byte(`"role": "user"`)) {
		t.Fatal("the rewrite kept the log compact")
	}
	if r := e.run("", "validate-log", "--strict", spaced); r.code != 0 {
		t.Fatalf("%s", r)
	}
}
