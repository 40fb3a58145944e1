package main_test

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// compactionPrompt returns what the provider was asked to summarise: the
// content of the log's compaction request.
func (e *env) compactionPrompts(id string) []string {
	e.t.Helper()
	var out []string
	for _, l := range e.events(id, "provider_request") {
		if l["purpose"] != "compaction" {
			continue
		}
		msgs := l["messages"].([]any)
		if len(msgs) != 1 {
			e.t.Fatalf("compaction request has %d messages, want 1", len(msgs))
		}
		content, ok := msgs[0].(map[string]any)["content"].(string)
		if !ok { // a value over 32 KiB is a payload file
			e.t.Fatalf("the compaction prompt is not inline in the log (over 32 KiB?): %.200v", msgs[0])
		}
		out = append(out, content)
	}
	return out
}

// golden compares got with testdata/golden/name (UPDATE_GOLDEN=1 rewrites it).
func golden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", "golden", name)
	if os.Getenv("UPDATE_GOLDEN") == "1" {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run with UPDATE_GOLDEN=1 to create it)", err)
	}
	if got != string(want) {
		t.Fatalf("%s differs:\n--- got\n%s\n--- want\n%s", name, got, want)
	}
}

func TestCompactReplacesTheConversationWithASummary(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	s := e.script(answer("Paris."), answer("About 2.1 million."), answer("The user asked about Paris: capital of France, 2.1M people."), answer("It is on the Seine."))
	e.must("", "run", "--provider", "script", "--script", s, "What is the capital of France?")
	id := e.onlySession()
	e.must("", "resume", id, "How many people live there?")
	r := e.must("", "compact", id)
	if r.stdout != "The user asked about Paris: capital of France, 2.1M people.\n" {
		t.Fatalf("compact prints the summary: %s", r)
	}
	msgs := e.messages(id)
	if len(msgs) != 2 || msgs[0]["role"] != "system" || msgs[1]["role"] != "assistant" ||
		msgs[1]["content"] != "[Context Summary]\nThe user asked about Paris: capital of France, 2.1M people." {
		t.Fatalf("messages after compact = %v", msgs)
	}
	prompts := e.compactionPrompts(id)
	if len(prompts) != 1 {
		t.Fatalf("%d compaction requests", len(prompts))
	}
	golden(t, "compact_prompt.txt", prompts[0])
	if strings.Contains(prompts[0], "Additional focus") {
		t.Fatal("no instructions were given, yet the prompt has an Additional focus section")
	}
	cc := e.events(id, "context_compact")
	if len(cc) != 1 || cc[0]["trigger"] != "manual" || cc[0]["before"] == nil || cc[0]["after"] == nil {
		t.Fatalf("context_compact = %v", cc)
	}
	var replaced bool
	for _, l := range e.events(id, "history_mutation") {
		if l["mutation"] == "replace_all" && len(l["messages"].([]any)) == 2 {
			replaced = true
		}
	}
	if !replaced {
		t.Fatal("no replace_all history_mutation with the new list")
	}
	var entry bool
	for _, h := range e.record(id)["history"].([]any) {
		if m := h.(map[string]any); m["category"] == "event" && m["type"] == "compaction" {
			entry = true
		}
	}
	if !entry {
		t.Fatal("no compaction history entry")
	}
	r = e.must("", "resume", id, "Which river?")
	if r.stdout != "It is on the Seine.\n" || len(e.messages(id)) != 4 {
		t.Fatalf("resume after compact: %s", r)
	}
}

func TestCompactInstructionsAndJSON(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	s := e.script(answer("done"), answer("summary with focus"))
	e.must("", "run", "--provider", "script", "--script", s, "--session-id", "focus-1", "refactor the parser")
	r := e.must("", "compact", "focus-1", "--instructions", "keep the file names", "-o", "json")
	res := jsonResult(t, r)
	if res["session_id"] != "focus-1" || res["summary"] != "summary with focus" {
		t.Fatalf("json = %v", res)
	}
	before, after := res["before"].(map[string]any), res["after"].(map[string]any)
	if before["usedTokens"] == nil || after["maxTokens"] == nil {
		t.Fatalf("before/after context states missing: %v", res)
	}
	golden(t, "compact_prompt_instructions.txt", e.compactionPrompts("focus-1")[0])
	if res["compacted"] != true {
		t.Errorf("json = %v, want compacted true", res)
	}
	// nothing left to compact: still one object, saying so
	r = e.must("", "compact", "focus-1", "--keep-last", "100", "-o", "json")
	res = jsonResult(t, r)
	if res["session_id"] != "focus-1" || res["compacted"] != false || res["summary"] != nil || res["after"] == nil {
		t.Errorf("json with nothing to compact = %v", res)
	}
}

func TestCompactKeepLastNeverOrphansAToolResult(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.writeFile("notes.txt", "hello")
	s := e.script(calls(call("Read", map[string]any{"filePath": "notes.txt"})), answer("The file says hello."), answer("short summary"))
	e.must("", "run", "--provider", "script", "--script", s, "--session-id", "keep-1", "read notes.txt")
	// [system, user, assistant(call), tool, assistant]: the last 2 would start
	// with the tool result, so the assistant call that made it is kept too.
	e.must("", "compact", "keep-1", "--keep-last", "2")
	msgs := e.messages("keep-1")
	var roles []string
	for _, m := range msgs {
		roles = append(roles, m["role"].(string))
	}
	if got := strings.Join(roles, ","); got != "system,assistant,assistant,tool,assistant" {
		t.Fatalf("roles after --keep-last 2: %s", got)
	}
	calls := map[string]bool{}
	for _, m := range msgs {
		if tcs, ok := m["toolCalls"].([]any); ok {
			for _, tc := range tcs {
				calls[tc.(map[string]any)["id"].(string)] = true
			}
		}
		if m["role"] == "tool" && !calls[m["toolCallId"].(string)] {
			t.Fatalf("tool result %v has no call before it", m["toolCallId"])
		}
	}
	if p := e.compactionPrompts("keep-1")[0]; !strings.HasSuffix(p, "Conversation:\nuser: read notes.txt") {
		t.Fatalf("only the replaced messages are summarised:\n%s", p)
	}
}

func TestAutoCompactionBeforeThePrompt(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	s := e.script(answer(strings.Repeat("long answer ", 100)), answer("auto summary"), answer("fresh answer"))
	e.must("", "run", "--provider", "script", "--script", s, "--session-id", "auto-1", "first")
	r := e.must("", "resume", "auto-1", "second", "--context-window", "500")
	if r.stdout != "fresh answer\n" || strings.Contains(r.stderr, "auto-compaction left") {
		t.Fatalf("resume after auto-compaction: %s", r)
	}
	cc := e.events("auto-1", "context_compact")
	if len(cc) != 1 || cc[0]["trigger"] != "auto" {
		t.Fatalf("context_compact = %v", cc)
	}
	msgs := e.messages("auto-1")
	if len(msgs) != 4 || msgs[1]["content"] != "[Context Summary]\nauto summary" || msgs[2]["content"] != "second" {
		t.Fatalf("messages = %v", msgs)
	}

	off := newEnv(t)
	s = off.script(answer(strings.Repeat("long answer ", 100)), answer("plain answer"))
	off.must("", "run", "--provider", "script", "--script", s, "--session-id", "auto-2", "first")
	r = off.must("", "resume", "auto-2", "second", "--context-window", "500", "--auto-compact", "off")
	if r.stdout != "plain answer\n" || len(off.events("auto-2", "context_compact")) != 0 {
		t.Fatalf("--auto-compact off compacted: %s", r)
	}
	// a threshold from the settings file
	set := newEnv(t)
	set.writeFile(".trail/settings.json", `{"autoCompactThreshold": false}`)
	s = set.script(answer(strings.Repeat("long answer ", 100)), answer("plain answer"))
	set.must("", "run", "--provider", "script", "--script", s, "--session-id", "auto-3", "first")
	set.must("", "resume", "auto-3", "second", "--context-window", "500")
	if len(set.events("auto-3", "context_compact")) != 0 {
		t.Fatal("autoCompactThreshold false in settings did not turn auto-compaction off")
	}
}

func TestPreCompactHookBlocksAndLeavesTheRecord(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.withHooks(map[string][]map[string]any{"PreCompact": {hook(t, "manual", "block.sh")}})
	s := e.script(answer("one"), answer("never used"))
	e.must("", "run", "--provider", "script", "--script", s, "--session-id", "pre-1", "hello")
	before, _ := os.ReadFile(e.recordPath("pre-1"))
	r := e.run("", "compact", "pre-1")
	if r.code != 1 || !strings.Contains(r.stderr, "rm is not allowed here") {
		t.Fatalf("blocked compact: %s", r)
	}
	after, _ := os.ReadFile(e.recordPath("pre-1"))
	if !bytes.Equal(before, after) {
		t.Fatal("a blocked compaction changed the record")
	}
}

// A failed compaction leaves the conversation as it was, and counts its
// provider call (SPEC 4.4), so a script's next answer is the next one: a
// script of "the compaction fails, then succeeds" gets past the failure.
func TestFailedCompactionLeavesTheConversationAndCountsItsCall(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	s := e.script(answer("one"), map[string]any{"error": map[string]any{"status": 400, "message": "bad"}}, answer("SUMMARY"), answer("two"))
	e.must("", "run", "--provider", "script", "--script", s, "--session-id", "fail-1", "hello")
	before := e.record("fail-1")
	r := e.run("", "compact", "fail-1")
	if r.code != 6 || !strings.Contains(r.stderr, "bad") {
		t.Fatalf("failed compact: %s", r)
	}
	after := e.record("fail-1")
	if !reflect.DeepEqual(before["messages"], after["messages"]) || before["status"] != after["status"] {
		t.Fatal("a failed compaction changed the conversation")
	}
	if after["providerCalls"] != 2.0 {
		t.Errorf("providerCalls after a failed compaction = %v, want 2", after["providerCalls"])
	}
	if r := e.must("", "compact", "fail-1"); !strings.Contains(r.stdout, "SUMMARY") {
		t.Errorf("the retried compaction did not get the next answer: %s", r)
	}
	if r := e.must("", "resume", "fail-1", "go on"); r.stdout != "two\n" {
		t.Errorf("resume after the compaction: %s", r)
	}
}

// The session a tool loop overflowed (trail's exit 6 hint says to compact
// it) compacts: its rounds are summarised, the prompt kept, and a resume
// without a prompt goes on. A summary cut at the output limit replaces
// nothing, exit 1.
func TestASessionThatOverflowedInOneToolLoopCompacts(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.writeFile("a.txt", "hello\n")
	var steps []map[string]any
	for range 30 {
		steps = append(steps, calls(call("Read", map[string]any{"filePath": "a.txt"})))
	}
	steps = append(steps, map[string]any{"error": map[string]any{"status": 400, "message": "prompt is too long: 250000 tokens > 200000 maximum"}},
		map[string]any{"text": "Summary: read a.txt thirty times; next: 1) rena", "stopReason": "max_tokens"},
		answer("Summary: read a.txt thirty times; next: write the report."), answer("the report"))
	s := e.script(steps...)
	r := e.run("", "run", "--provider", "script", "--script", s, "--name", "big", "refactor the whole repo")
	if r.code != 6 {
		t.Fatalf("the overflowing run: %s", r)
	}
	id := e.onlySession()
	if n := len(e.messages(id)); n != 62 {
		t.Fatalf("%d messages before compacting, want 62", n)
	}
	r = e.run("", "compact", "big", "-o", "json")
	if r.code != 1 || !strings.Contains(r.stderr, "the compaction summary hit its output limit") || len(e.messages(id)) != 62 {
		t.Errorf("a cut summary: %s (%d messages)", r, len(e.messages(id)))
	}
	if res := jsonResult(t, r); res["compacted"] != false || !strings.Contains(fmt.Sprint(res["error"]), "output limit") || res["summary"] != nil {
		t.Errorf("-o json of a cut summary = %v", res)
	}
	r = e.must("", "compact", "big", "--keep-last", "2")
	if !strings.Contains(r.stdout, "write the report") {
		t.Errorf("compact: %s", r)
	}
	msgs := e.messages(id)
	var roles []string
	for _, m := range msgs {
		roles = append(roles, m["role"].(string))
	}
	if got := strings.Join(roles, " "); got != "system assistant user assistant tool" || msgs[2]["content"] != "refactor the whole repo" {
		t.Errorf("after compacting: %s, prompt %v", got, msgs[2]["content"])
	}
	if r := e.must("", "resume", "big"); r.stdout != "the report\n" {
		t.Errorf("resume without a prompt: %s", r)
	}
	e.checkReplayMatchesRecord(id)
}

func TestPostCompactAndSessionStartHooksSeeTheCompaction(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.withHooks(map[string][]map[string]any{
		"PostCompact":  {hook(t, "", "capture.sh", "post")},
		"SessionStart": {hook(t, "compact", "capture.sh", "start")},
	})
	s := e.script(answer("one"), answer("the summary"))
	e.must("", "run", "--provider", "script", "--script", s, "--session-id", "post-1", "hello")
	e.must("", "compact", "post-1")
	post := e.read("captured-post.json")
	if !strings.Contains(post, `"compact_summary":"the summary"`) || !strings.Contains(post, `"trigger":"manual"`) {
		t.Fatalf("PostCompact input = %s", post)
	}
	if start := e.read("captured-start.json"); !strings.Contains(start, `"source":"compact"`) {
		t.Fatalf("SessionStart input = %s", start)
	}
}

func TestReplayAfterCompaction(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.writeFile("notes.txt", "hello")
	s := e.script(
		calls(call("Read", map[string]any{"filePath": "notes.txt"})), answer("It says hello."),
		answer("second answer"),
		answer("the summary"),
		answer("after the summary"),
		answer(strings.Repeat("long ", 200)), answer("auto summary"), answer("after auto"),
		answer("in the fork"),
	)
	e.must("", "run", "--provider", "script", "--script", s, "--session-id", "rc-1", "read notes.txt")
	e.must("", "resume", "rc-1", "second")
	e.must("", "compact", "rc-1", "--keep-last", "1")
	e.must("", "resume", "rc-1", "third")
	e.must("", "resume", "rc-1", "fourth")
	e.must("", "resume", "rc-1", "fifth", "--context-window", "300")
	if n := len(e.events("rc-1", "context_compact")); n != 2 {
		t.Fatalf("%d compactions, want a manual and an auto one", n)
	}
	// the context view is the record
	e.checkReplayMatchesRecord("rc-1")
	e.validateAll()
	// the transcript view still holds what was summarised away
	r := e.must("", "replay", "rc-1", "--view", "transcript", "--format", "jsonl")
	for _, said := range []string{"read notes.txt", "It says hello.", "second answer", "the summary", `"compaction"`} {
		if !strings.Contains(r.stdout, said) {
			t.Errorf("the transcript has no %q:\n%s", said, r.stdout)
		}
	}
	r = e.must("", "replay", "rc-1", "--format", "jsonl")
	if strings.Contains(r.stdout, "It says hello.") {
		t.Errorf("the context view still holds a compacted message:\n%s", r.stdout)
	}
	// A fork of the compacted session starts from its context, and its
	// own log replays to its record.
	e.must("", "resume", "rc-1", "--fork", "--name", "rc-fork", "sixth")
	fork := e.replayMessages("rc-fork")
	if len(fork) != len(e.recordMessages("rc-1"))+2 || strings.Contains(string(fork[1]), "It says hello.") {
		t.Fatalf("the fork replays %d messages", len(fork))
	}
	for _, id := range e.sessionIDs() {
		e.checkReplayMatchesRecord(id)
	}
}

// The threshold comes from the flag, else the settings, else 0.835. The
// first answer reports 600 tokens used, so with a window of 1,000 the
// context is 60% full when the next prompt comes.
func TestAutoCompactThresholdFromSettingsAndFlags(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name        string
		settings    string
		flags       []string
		wantCompact bool
	}{
		{"the default 0.835 waits", "", nil, false},
		{"settings 0.5 compacts", `{"autoCompactThreshold": 0.5}`, nil, true},
		{"--auto-compact 0.9 beats settings 0.5", `{"autoCompactThreshold": 0.5}`, []string{"--auto-compact", "0.9"}, false},
		{"--auto-compact off beats settings 0.5", `{"autoCompactThreshold": 0.5}`, []string{"--auto-compact", "off"}, false},
		{"--auto-compact 0.5 beats settings false", `{"autoCompactThreshold": false}`, []string{"--auto-compact", "0.5"}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			e := newEnv(t)
			if tt.settings != "" {
				e.writeFile(".trail/settings.json", tt.settings)
			}
			s := e.script(map[string]any{"text": "one", "usage": map[string]any{"inputTokens": 590, "outputTokens": 10}},
				answer("the summary"), answer("two"))
			e.must("", "run", "--provider", "script", "--script", s, "--session-id", "th-1", "first")
			e.must("", append([]string{"resume", "th-1", "second", "--context-window", "1000"}, tt.flags...)...)
			cc := e.events("th-1", "context_compact")
			if got := len(cc) == 1 && cc[0]["trigger"] == "auto"; got != tt.wantCompact || len(cc) > 1 {
				t.Fatalf("context_compact = %v, want a compaction: %v", cc, tt.wantCompact)
			}
		})
	}
}

// A failed auto-compaction is a warning: the conversation stays as it was
// and the prompt is answered.
func TestFailedAutoCompactionWarnsAndStillAnswers(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	s := e.script(answer("one"), map[string]any{"error": map[string]any{"status": 500, "message": "boom"}}, answer("two"))
	e.must("", "run", "--provider", "script", "--script", s, "--session-id", "fa-1", "first")
	// 50 tokens: the prompt fits (a larger one is refused), the conversation does not.
	r := e.must("", "resume", "fa-1", "second", "--context-window", "50")
	if r.stdout != "two\n" || !strings.Contains(r.stderr, "auto-compaction failed") || !strings.Contains(r.stderr, "boom") {
		t.Fatalf("resume: %s", r)
	}
	if cc := e.events("fa-1", "context_compact"); len(cc) != 0 {
		t.Fatalf("context_compact = %v", cc)
	}
	var said []string
	for _, m := range e.messages("fa-1")[1:] {
		said = append(said, m["content"].(string))
	}
	if got := strings.Join(said, "|"); got != "first|one|second|two" {
		t.Fatalf("conversation = %s", got)
	}
	// With the conversation past the window the context reads full, never more.
	ctx := e.events("fa-1", "context")
	if last := ctx[len(ctx)-1]; last["usedPercentage"] != float64(100) || last["remainingPercentage"] != float64(0) {
		t.Fatalf("context = %v", last)
	}
}

// An auto-compaction whose summary is as long as what it replaced (a model
// that repeats its input) leaves the context full: the step says so once,
// then answers the prompt.
func TestIneffectiveAutoCompactionWarns(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	s := e.script(answer(strings.Repeat("long answer ", 100)), answer(strings.Repeat("long summary ", 200)), answer("fresh answer"))
	e.must("", "run", "--provider", "script", "--script", s, "--session-id", "ineff-1", "first")
	r := e.must("", "resume", "ineff-1", "second", "--context-window", "500")
	const want = "trail: warning: auto-compaction left the context at 100% of the window (threshold 83.5%); "
	if r.stdout != "fresh answer\n" || strings.Count(r.stderr, "auto-compaction left") != 1 || !strings.Contains(r.stderr, want) {
		t.Fatalf("resume after an auto-compaction that did not help: %s", r)
	}
	if cc := e.events("ineff-1", "context_compact"); len(cc) != 1 || cc[0]["trigger"] != "auto" {
		t.Fatalf("context_compact = %v", cc)
	}
}

func TestKillAfterAutoCompactionLeavesALogThatReplaysToTheRecord(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	s := e.script(answer(strings.Repeat("long answer ", 100)), answer("auto summary"), map[string]any{"text": "slow answer that never ends", "delayMs": 30000})
	e.must("", "run", "--provider", "script", "--script", s, "--session-id", "kill-1", "first")
	c := e.cmd("resume", "kill-1", "second", "--context-window", "500")
	if err := c.Start(); err != nil {
		t.Fatal(err)
	}
	waitFor(t, func() bool {
		b, _ := os.ReadFile(e.logPath("kill-1"))
		return bytes.Count(b, []byte(`"provider_request"`)) >= 3 // first, the summary, then the prompt
	})
	c.Process.Kill()
	c.Wait()
	msgs := e.messages("kill-1")
	if len(msgs) < 2 || msgs[1]["content"] != "[Context Summary]\nauto summary" {
		t.Fatalf("the compaction was not saved before the prompt's provider call: %v", msgs)
	}
	// The prompt was logged before its request (as Robota logs it), the
	// record not saved since the compaction: replay has one message more,
	// and the next step re-syncs the two.
	if got, want := e.replayMessages("kill-1"), e.recordMessages("kill-1"); len(got) != len(want)+1 {
		t.Fatalf("replay after the kill: %d messages, the record %d", len(got), len(want))
	}
	e.must("", "resume", "kill-1", "--script", e.script(answer("unused"), answer("unused"), answer("third")), "third")
	e.checkReplayMatchesRecord("kill-1")
	e.rawLogs = true // the killed step's request has no response, as SPEC 9 allows
}
