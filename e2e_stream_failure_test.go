package main_test

import (
	"strings"
	"testing"

	"github.com/tidwall/gjson"

	"trail/core/provider/wire/wiretest"
)

// A stream that fails after text reached the user (the connection cut, an
// event that is not JSON) keeps that text: it is saved as an interrupted
// assistant message, as after Ctrl-C, the log replays to it, the step
// still exits 6 with the error, and the next resume carries on from it.
func TestTextShownBeforeAStreamFailsIsSaved(t *testing.T) {
	t.Parallel()
	anthropic := wiretest.Transcript(t, "anthropic/text.sse")
	openai := wiretest.Transcript(t, "openai/text.sse")
	// The recordings up to their first text, then one event cut inside its JSON.
	anthropicBad := append(anthropic[:4:4], "event: content_block_delta\ndata: {\"type\": \"content_block_delta\", \"index\": 0, \"delta\": {\"type\": \"text_de\n\n")
	openaiBad := append(openai[:2:2], "data: {\"id\":\"chatcmpl-123\",\"object\":\"chat.completion.chunk\",\"choices\":[{\"index\":0,\"delta\":{\"content\":\" th\n\n")
	tests := []struct {
		name    string
		api     string
		first   wiretest.Step
		then    []string
		wantErr string
		wantRe  string // the interrupted answer as the next request sends it
	}{
		{"anthropic: the connection cut", "anthropic", wiretest.Cut(anthropic, 4), anthropic,
			"trail: anthropic: connection lost mid-stream", `{"role":"assistant","content":"Hello\n\n[This response was interrupted by the user]"}`},
		{"anthropic: a malformed event", "anthropic", wiretest.Replay(anthropicBad), anthropic,
			"trail: anthropic: malformed stream event: not JSON", `{"role":"assistant","content":"Hello\n\n[This response was interrupted by the user]"}`},
		{"openai: the connection cut", "openai", wiretest.Cut(openai, 2), openai,
			"trail: openai: ", `{"role":"assistant","content":"Hello\n\n[This response was interrupted by the user]"}`},
		{"openai: a malformed event", "openai", wiretest.Replay(openaiBad), openai,
			"trail: openai: malformed stream event", `{"role":"assistant","content":"Hello\n\n[This response was interrupted by the user]"}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			srv := wiretest.NewServer(t, tt.first, wiretest.Replay(tt.then))
			e := newEnv(t)
			e.setenv("TRAIL_RETRY_BASE_MS=1")
			base := srv.URL
			if tt.api == "openai" {
				e.setenv("OPENAI_API_KEY=sk-e2e-0123456789abcdefghijklmnop")
				base += "/v1"
			} else {
				e.setenv("ANTHROPIC_API_KEY=" + anthropicKey)
			}
			r := e.run("", "run", "--provider", tt.api, "--base-url", base, "-o", "json", "Hi")
			if r.code != 6 || !strings.HasPrefix(r.stderr, tt.wantErr) {
				t.Fatalf("exit %d, want 6 and stderr starting %q\n%s", r.code, tt.wantErr, r)
			}
			res := jsonResult(t, r)
			if res["subtype"] != "error_during_execution" || res["result"] != "Hello" || res["is_error"] != true {
				t.Errorf("result = %v", res)
			}
			id := e.onlySession()
			msgs := e.messages(id)
			last := msgs[len(msgs)-1]
			if len(msgs) != 3 || last["role"] != "assistant" || last["state"] != "interrupted" || last["content"] != "Hello" {
				t.Fatalf("messages = %v", msgs)
			}
			if rec := e.record(id); rec["status"] != "idle" || rec["stopReason"] != "error" {
				t.Errorf("status %v, stopReason %v", rec["status"], rec["stopReason"])
			}
			// The log holds the message the record keeps (the end-of-test
			// check replays the whole log against the record).
			found := false
			for _, m := range e.events(id, "history_mutation") {
				if msg, _ := m["message"].(map[string]any); msg["id"] == last["id"] && msg["state"] == "interrupted" {
					found = true
				}
			}
			if !found {
				t.Error("no history_mutation for the saved text")
			}
			checkProviderPairs(t, e.logLines(id))
			e.must("", "resume", id, "go on")
			if got := gjson.GetBytes(srv.Body(1), "messages").Raw; !strings.Contains(got, tt.wantRe) {
				t.Errorf("messages sent on resume = %s, want them to hold %s", got, tt.wantRe)
			}
		})
	}
}
