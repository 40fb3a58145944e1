package main_test

import (
	"strings"
	"testing"

	"github.com/tidwall/gjson"

	"trail/core/provider/wire/wiretest"
)

// The summary request carries what the tools did: an assistant turn that
// only calls tools shows its calls with their arguments, and a long tool
// result is cut with a note of how much.
func TestCompactPromptCarriesToolCalls(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.writeFile("big.txt", strings.Repeat("0123456789\n", 2000))
	s := e.script(
		calls(call("Write", map[string]any{"filePath": "a.go", "content": "package main\n\nfunc main() {}\n"})),
		calls(call("Read", map[string]any{"filePath": "big.txt"})),
		answer("Wrote a.go and read big.txt."),
		answer("the summary"))
	e.must("", "run", "--provider", "script", "--script", s, "--allow-tool", "Write", "--session-id", "tc-1", "write a.go, then read big.txt")
	e.must("", "compact", "tc-1")
	p := e.compactionPrompts("tc-1")[0]
	for _, want := range []string{
		"\nConversation:\nuser: write a.go, then read big.txt\n",
		`assistant: [tool call Write {"content":"package main\n\nfunc main() {}\n","filePath":"a.go"}]` + "\n",
		`assistant: [tool call Read {"filePath":"big.txt"}]` + "\n",
		" more characters cut]\nassistant: Wrote a.go and read big.txt.",
	} {
		if !strings.Contains(p, want) {
			t.Errorf("the summary request has no %q:\n%s", want, p)
		}
	}
	if len(p) > 5000 {
		t.Errorf("the Read result (22 KB) was not cut: the prompt is %d bytes", len(p))
	}
}

// A conversation far over the model's window is still compacted: the
// request sent to the provider fits the window, less the room for the
// answer, and keeps the first request and the latest turns.
func TestCompactPromptFitsTheWindow(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	s := e.script(
		answer(strings.Repeat("ten bytes\n", 200_000)), // 2 MB, ~500,000 tokens
		calls(call("Write", map[string]any{"filePath": "a.go", "content": "package main\n"})),
		answer("Wrote a.go."),
		answer("the last answer"))
	e.must("", "run", "--provider", "script", "--script", s, "--allow-tool", "Write", "--session-id", "big-1", "the first request")
	e.must("", "resume", "big-1", "--auto-compact", "off", "--allow-tool", "Write", "write a.go")
	e.must("", "resume", "big-1", "--auto-compact", "off", "the last request")

	srv := wiretest.NewServer(t, wiretest.Replay(wiretest.Transcript(t, "anthropic/text.sse")))
	e.setenv("ANTHROPIC_API_KEY="+anthropicKey, "TRAIL_RETRY_BASE_MS=1")
	r := e.must("", "compact", "big-1", "--provider", "anthropic", "-m", "claude-sonnet-4-5", "--base-url", srv.URL)
	if r.stdout != "Hello!\n" {
		t.Fatalf("compact: %s", r)
	}
	body := srv.Body(0)
	msgs := gjson.GetBytes(body, "messages").Array()
	if len(msgs) != 1 {
		t.Fatalf("the summary request has %d messages", len(msgs))
	}
	p := msgs[0].Get("content.0.text").String()
	// claude-sonnet-4-5: a 200,000-token window, 64,000 of them kept for
	// the answer; the estimator counts 4 bytes a token.
	if len(p) > (200_000-64_000)*4 || len(body) > 200_000*4 {
		t.Errorf("the summary request is %d bytes, its prompt %d: over the window", len(body), len(p))
	}
	for _, want := range []string{
		"\nConversation:\nuser: the first request\n[... 1 earlier message left out to fit the model's context window ...]\nuser: write a.go\n",
		`assistant: [tool call Write {"content":"package main\n","filePath":"a.go"}]`,
		"\nuser: the last request\nassistant: the last answer",
	} {
		if !strings.Contains(p, want) {
			t.Errorf("the summary request has no %q:\n%s", want, p[len(p)-min(len(p), 2000):])
		}
	}
	if msgs := e.messages("big-1"); len(msgs) != 2 || msgs[1]["content"] != "[Context Summary]\nHello!" {
		t.Errorf("messages after compact = %v", msgs)
	}
}
