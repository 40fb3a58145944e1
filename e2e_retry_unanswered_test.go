package main_test

import (
	"strings"
	"testing"

	"github.com/tidwall/gjson"

	"trail/core/provider/wire/wiretest"
)

// A step the provider failed keeps the prompt. Typing it again would send
// it twice; the failure's hint names the way that does not, a resume with
// no prompt, which asks the model again for the missing answer.
func TestAResumeWithoutAPromptAsksAgainAfterAFailure(t *testing.T) {
	t.Parallel()
	srv := wiretest.NewServer(t,
		wiretest.Status(529, wiretest.Body(t, "anthropic/529.json")),
		wiretest.Replay(wiretest.Transcript(t, "anthropic/text.sse")))
	e := anthropicEnv(t)
	r := e.run("", "run", "-m", "claude-sonnet-4-5", "--base-url", srv.URL, "--max-retries", "0", "summarise the news")
	if r.code != 6 {
		t.Fatalf("exit %d, want 6\n%s", r.code, r)
	}
	id := e.onlySession()
	if want := "the prompt is kept: trail resume " + id + " (no prompt) asks again"; !strings.Contains(r.stderr, want) {
		t.Errorf("the failure's hint lacks %q:\n%s", want, r.stderr)
	}
	r = e.must("", "resume", id)
	if !strings.Contains(r.stderr, "asking the model again") || r.stdout == "" {
		t.Errorf("resume without a prompt:\n%s", r)
	}
	users := gjson.GetBytes(srv.Body(1), `messages.#(role=="user")#`).Array()
	if len(users) != 1 || strings.Count(users[0].Raw, "summarise the news") != 1 {
		t.Errorf("the second request's user turns: %v", users)
	}
	// Answered now: a resume without a prompt has nothing to do again.
	if r := e.run("", "resume", id); r.code != 2 || !strings.Contains(r.stderr, "no prompt") {
		t.Errorf("resume of an answered session without a prompt: %s", r)
	}
	if r := e.must("", "validate-log", "--strict", e.logPath(id)); r.code != 0 {
		t.Errorf("validate-log: %s", r)
	}
}
