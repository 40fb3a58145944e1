package main_test

import (
	"fmt"
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

// A failure after text had streamed keeps that text as an answer cut
// short: the hint says how to go on from it, and a resume without a
// prompt does not send a request that ends on the model's own turn.
func TestAMidStreamFailureSaysHowToGoOn(t *testing.T) {
	t.Parallel()
	srv := wiretest.NewServer(t,
		wiretest.Replay(wiretest.Transcript(t, "anthropic/error_midstream.sse")),
		wiretest.Replay(wiretest.Transcript(t, "anthropic/text.sse")))
	e := anthropicEnv(t)
	r := e.run("", "run", "-m", "claude-sonnet-4-5", "--base-url", srv.URL, "--max-retries", "0", "tell me a story")
	if r.code != 6 {
		t.Fatalf("exit %d, want 6\n%s", r.code, r)
	}
	id := e.onlySession()
	if !strings.Contains(r.stderr, "the answer so far is kept: trail resume "+id+` "continue" goes on from it`) {
		t.Errorf("no hint to go on:\n%s", r.stderr)
	}
	if r := e.run("", "resume", id); r.code != 2 || srv.Requests() != 1 {
		t.Errorf("a resume without a prompt: exit %d, %d requests\n%s", r.code, srv.Requests(), r)
	}
	e.must("", "resume", id, "continue")
	if users := gjson.GetBytes(srv.Body(1), `messages.#(role=="user")#`).Array(); len(users) != 2 {
		t.Errorf("the second request's user turns: %v", users)
	}
}

// A compaction after a failure keeps the unanswered prompt after the
// summary (as the context-overflow hint has it: compact, then resume), so
// a resume without a prompt still asks again.
func TestACompactionKeepsTheUnansweredPrompt(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	tooLong := map[string]any{"error": map[string]any{"status": 400, "message": "prompt is too long: 208310 tokens > 200000 maximum"}}
	// the session's provider calls in order: a failure, an answer, a
	// failure, the summary, the answer after the compaction
	s := e.script(tooLong, answer("first answer"), tooLong, answer("what was said"), answer("the answer"))
	if r := e.run("", "run", "--provider", "script", "--script", s, "the question"); r.code != 6 {
		t.Fatalf("exit %d, want 6\n%s", r.code, r)
	}
	id := e.onlySession()
	e.must("", "resume", id, "an earlier question")
	if r := e.run("", "resume", id, "the last question"); r.code != 6 {
		t.Fatalf("exit %d, want 6\n%s", r.code, r)
	}
	e.must("", "compact", id)
	e.must("", "resume", id)
	msgs := e.messages(id)
	last := msgs[len(msgs)-2]
	if last["role"] != "user" || !strings.Contains(fmt.Sprint(last["content"]), "the last question") || msgs[len(msgs)-1]["content"] != "the answer" {
		t.Errorf("the conversation ends %v, %v", last, msgs[len(msgs)-1])
	}
}
