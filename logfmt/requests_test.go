package logfmt

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// requestLog writes a log the way trail's engine does in digest form: a
// step's user message is logged after its first request (it waits for
// the answer), so a request may settle on messages logged after it.
func requestLog(t *testing.T, full bool, tamper func(string) string) string {
	t.Helper()
	dir := t.TempDir()
	path := filepath.Join(dir, "s1.jsonl")
	w, err := OpenWriter(path, Options{SessionID: "s1"})
	if err != nil {
		t.Fatal(err)
	}
	tools := json.RawMessage(`[{"name":"Read","parameters":{"type":"object"}}]`)
	sys := json.RawMessage(`{"id":"m0","role":"system","content":"be brief","state":"complete","timestamp":"t"}`)
	u1 := json.RawMessage(`{"id":"m1","role":"user","content":"hi` + "\u2028" + `there","state":"complete","timestamp":"t"}`)
	a1 := json.RawMessage(`{"id":"m2","role":"assistant","content":"half","state":"interrupted","timestamp":"t"}`)
	u2 := json.RawMessage(`{"id":"m3","role":"user","content":"again","state":"complete","timestamp":"t"}`)
	log := func(event string, fields ...Field) {
		if err := w.Log(event, fields...); err != nil {
			t.Fatal(err)
		}
	}
	mut := func(i int, m json.RawMessage) {
		log("history_mutation", F("executionId", "e"), F("mutation", "append_message"), F("index", i), F("message", m))
	}
	request := func(round int, msgs ...json.RawMessage) {
		f := []Field{F("executionId", "e"), F("conversationId", "main"), F("round", round), F("provider", "echo"), F("model", "echo-1")}
		if full {
			f = append(f, F("messages", msgs), F("tools", tools))
		} else {
			f = append(f, F("messageCount", len(msgs)), F("messagesSha256", MessagesSHA256(msgs)), F("toolsSha256", ToolsSHA256(tools)))
		}
		log("provider_request", f...)
	}
	log("session_init", F("cwd", "/w"), F("systemPrompt", "be brief"), F("toolSchemas", tools))
	mut(0, sys)
	request(1, sys, u1)
	mut(1, u1)
	mut(2, a1)
	log("session_init", F("cwd", "/w"), F("toolSchemasSha256", ToolsSHA256(tools)))
	request(1, sys, u1, RequestForm(a1), u2)
	mut(3, u2)
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if tamper != nil {
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(tamper(string(b))), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	return path
}

func readRequestsAll(t *testing.T, path string) []Request {
	t.Helper()
	var out []Request
	if err := ReadRequests(path, func(r Request) error { out = append(out, r); return nil }); err != nil {
		t.Fatal(err)
	}
	return out
}

func TestReadRequestsRebuildsDigestFormRequests(t *testing.T) {
	for _, full := range []bool{false, true} {
		reqs := readRequestsAll(t, requestLog(t, full, nil))
		if len(reqs) != 2 {
			t.Fatalf("full=%v: %d requests, want 2", full, len(reqs))
		}
		for i, r := range reqs {
			if !r.DigestOK || r.Missing != 0 || r.SHA256 != MessagesSHA256(r.Messages) {
				t.Fatalf("full=%v request %d: %+v", full, i, r)
			}
			if r.Provider != "echo" || r.Model != "echo-1" || r.Round != 1 || r.ExecutionID != "e" {
				t.Fatalf("full=%v request %d keys: %+v", full, i, r)
			}
			if string(r.Tools) != `[{"name":"Read","parameters":{"type":"object"}}]` {
				t.Fatalf("full=%v request %d tools: %s", full, i, r.Tools)
			}
		}
		if n := len(reqs[1].Messages); n != 4 {
			t.Fatalf("full=%v: second request has %d messages", full, n)
		}
		if !strings.Contains(string(reqs[1].Messages[2]), InterruptedNote[2:]) {
			t.Fatalf("full=%v: the interrupted answer is not sent with its note: %s", full, reqs[1].Messages[2])
		}
	}
}

func TestReadRequestsCatchesAnEditedMessage(t *testing.T) {
	path := requestLog(t, false, func(s string) string { return strings.Replace(s, `"again"`, `"AGAIN"`, 1) })
	reqs := readRequestsAll(t, path)
	if len(reqs) != 2 || !reqs[0].DigestOK || reqs[1].DigestOK {
		t.Fatalf("edited user message: %+v", reqs)
	}
}

func TestReadRequestsWithMessagesNeverLogged(t *testing.T) {
	// The last mutation dropped: a step killed before it logged its prompt.
	path := requestLog(t, false, func(s string) string {
		lines := strings.SplitAfter(s, "\n")
		return strings.Join(lines[:len(lines)-2], "")
	})
	reqs := readRequestsAll(t, path)
	if len(reqs) != 2 || reqs[1].DigestOK || reqs[1].Missing != 1 || len(reqs[1].Messages) != 3 {
		t.Fatalf("unlogged prompt: %+v", reqs[1])
	}
}
