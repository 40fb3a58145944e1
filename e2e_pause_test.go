package main_test

import (
	"encoding/json"
	"os"
	"reflect"
	"strings"
	"testing"
)

// pausedSession runs a script whose first round writes a file with Bash and
// reads one, under --on-ask pause, and returns the session id.
func pausedSession(t *testing.T, e *env, more ...map[string]any) string {
	t.Helper()
	e.writeFile("notes.txt", "notes")
	responses := append([]map[string]any{{"text": "I will write", "toolCalls": []any{
		call("Bash", map[string]any{"command": "echo written > out.txt"}),
		call("Read", map[string]any{"filePath": "notes.txt"}),
	}}}, more...)
	s := e.script(responses...)
	r := e.run("", "run", "--provider", "script", "--script", s, "--on-ask", "pause", "-o", "json", "go")
	if r.code != 4 {
		t.Fatalf("paused run: %s", r)
	}
	res := jsonResult(t, r)
	if res["subtype"] != "requires_action" || res["stop_reason"] != "requires_action" {
		t.Fatalf("result = %v", res)
	}
	pending := res["pending_tool_calls"].([]any)
	if len(pending) != 2 {
		t.Fatalf("pending_tool_calls = %v", pending)
	}
	p0 := pending[0].(map[string]any)
	if p0["id"] != "call_0_0" || p0["name"] != "Bash" || p0["decision"] != "ask" {
		t.Fatalf("pending[0] = %v", p0)
	}
	if p1 := pending[1].(map[string]any); p1["decision"] != "allow" {
		t.Fatalf("pending[1] = %v (Read is decided already)", p1)
	}
	if !strings.Contains(r.stderr, "call_0_0 Bash(echo written > out.txt)") || !strings.Contains(r.stderr, "--approve") {
		t.Errorf("stderr = %q", r.stderr)
	}
	return res["session_id"].(string)
}

func TestOnAskPauseSavesTheRoundUntouched(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	id := pausedSession(t, e)
	if e.exists("out.txt") {
		t.Fatal("a call of the paused round ran")
	}
	rec := e.record(id)
	if rec["status"] != "requires_action" || rec["stopReason"] != "requires_action" {
		t.Fatalf("status %v, stopReason %v", rec["status"], rec["stopReason"])
	}
	if p, _ := rec["pendingToolCalls"].([]any); len(p) != 2 {
		t.Fatalf("pendingToolCalls = %v", rec["pendingToolCalls"])
	}
	msgs := e.messages(id)
	last := msgs[len(msgs)-1]
	if last["role"] != "assistant" || len(last["toolCalls"].([]any)) != 2 {
		t.Fatalf("last message = %v, want the assistant message waiting for its calls", last)
	}
	if ra := e.events(id, "requires_action"); len(ra) != 1 {
		t.Fatalf("requires_action events: %v", ra)
	}
	if n := len(e.events(id, "tool_execution_request")); n != 0 {
		t.Errorf("%d tool_execution_request lines for a round that did not run", n)
	}
	assertReplayMatchesRecord(t, e, id)
}

func assertReplayMatchesRecord(t *testing.T, e *env, id string) {
	t.Helper()
	var fromRecord []any
	for _, m := range e.messages(id) {
		fromRecord = append(fromRecord, m)
	}
	if got := e.replayedMessages(id); !reflect.DeepEqual(got, fromRecord) {
		a, _ := json.Marshal(got)
		b, _ := json.Marshal(fromRecord)
		t.Fatalf("log replays to\n%s\nrecord has\n%s", a, b)
	}
}

func TestResumeWithoutADecisionExits4AndChangesNothing(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	id := pausedSession(t, e, answer("done"))
	before, _ := os.ReadFile(e.recordPath(id))
	logBefore, _ := os.ReadFile(e.logPath(id))
	for _, args := range [][]string{{"resume", id, "something else"}, {"resume", id}} {
		r := e.run("", args...)
		if r.code != 4 || !strings.Contains(r.stderr, "call_0_0 Bash(echo written > out.txt)") {
			t.Fatalf("trail %s: %s", strings.Join(args, " "), r)
		}
	}
	after, _ := os.ReadFile(e.recordPath(id))
	logAfter, _ := os.ReadFile(e.logPath(id))
	if string(before) != string(after) || string(logBefore) != string(logAfter) {
		t.Fatal("resume without a decision changed the record or the log")
	}
}

func TestResumeOfAnIdleSessionWithoutAPromptIsAUsageError(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.must("", "run", "--provider", "echo", "hi")
	id := e.onlySession()
	logBefore, _ := os.ReadFile(e.logPath(id))
	r := e.run("", "resume", id)
	if r.code != 2 || !strings.Contains(r.stderr, "no prompt") {
		t.Fatalf("%s", r)
	}
	if logAfter, _ := os.ReadFile(e.logPath(id)); string(logBefore) != string(logAfter) {
		t.Fatal("a resume with nothing to do wrote to the log")
	}
}

func TestResumeApproveAllRunsTheBatchThenContinues(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	id := pausedSession(t, e, answer("all done"), answer("and the prompt"))
	r := e.must("", "resume", id, "--approve", "all", "-o", "json")
	res := jsonResult(t, r)
	if res["result"] != "all done" || res["subtype"] != "success" {
		t.Fatalf("result = %v", res)
	}
	if e.read("out.txt") != "written\n" {
		t.Fatal("the approved call did not run")
	}
	rec := e.record(id)
	if rec["status"] != "idle" || rec["pendingToolCalls"] != nil {
		t.Fatalf("status %v, pendingToolCalls %v", rec["status"], rec["pendingToolCalls"])
	}
	results := e.toolResults(id)
	if results["call_0_1"]["success"] != true || !strings.Contains(results["call_0_1"]["output"].(string), "notes") {
		t.Errorf("Read result = %v", results["call_0_1"])
	}
	flag := false
	for _, l := range e.events(id, "permission_decision") {
		if l["toolCallId"] == "call_0_0" && l["source"] == "flag" && l["decision"] == "allow" {
			flag = true
		}
	}
	if !flag {
		t.Error("no permission_decision with source flag")
	}
	assertReplayMatchesRecord(t, e, id)
	// The session is usable again, and a prompt given with the decision runs after the loop.
	r = e.must("", "resume", id, "more")
	if r.stdout != "and the prompt\n" {
		t.Fatalf("%s", r)
	}
}

func TestResumeWithDecisionAndPromptRunsBoth(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	id := pausedSession(t, e, answer("batch done"), answer("prompt answered"))
	r := e.must("", "resume", id, "--approve", "call_0_0", "now this")
	if r.stdout != "prompt answered\n" || e.read("out.txt") != "written\n" {
		t.Fatalf("%s", r)
	}
	msgs := e.messages(id)
	var roles []string
	for _, m := range msgs {
		roles = append(roles, m["role"].(string))
	}
	if strings.Join(roles, ",") != "system,user,assistant,tool,tool,assistant,user,assistant" {
		t.Fatalf("roles = %v", roles)
	}
}

func TestResumeDenyDeniesAndUnnamedCallsAreDenied(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	id := pausedSession(t, e, answer("ok, not written"))
	r := e.must("", "resume", id, "--deny", "all", "-o", "json")
	if e.exists("out.txt") {
		t.Fatal("a denied call ran")
	}
	res := jsonResult(t, r)
	if d := res["permission_denials"].([]any); len(d) != 1 || d[0].(map[string]any)["tool_use_id"] != "call_0_0" {
		t.Fatalf("permission_denials = %v", d)
	}
	if res["result"] != "ok, not written" {
		t.Fatalf("result = %v", res)
	}
	if got := e.toolResults(id)["call_0_1"]["success"]; got != true {
		t.Errorf("the Read decided before the pause did not run: %v", got)
	}

	// --approve naming other ids denies the unnamed ones.
	e2 := newEnv(t)
	e2.writeFile("a", "")
	s := e2.script(calls(
		call("Bash", map[string]any{"command": "touch one"}),
		call("Bash", map[string]any{"command": "touch two"}),
	), answer("done"))
	r = e2.run("", "run", "--provider", "script", "--script", s, "--on-ask", "pause", "go")
	if r.code != 4 {
		t.Fatalf("%s", r)
	}
	id2 := e2.onlySession()
	e2.must("", "resume", id2, "--approve", "call_0_1")
	if e2.exists("one") || !e2.exists("two") {
		t.Fatalf("one exists %v (want false), two exists %v (want true)", e2.exists("one"), e2.exists("two"))
	}
}

// The README's call-by-call form: a call one flag names is decided by that
// flag, whatever "all" the other flag gives.
func TestANamedCallBeatsAllOfTheOtherFlag(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		flags     []string
		one, two  bool // which file the run leaves
		denialsID string
	}{
		{[]string{"--approve", "call_0_0", "--deny", "all"}, true, false, "call_0_1"},
		{[]string{"--deny", "all", "--approve", "call_0_0"}, true, false, "call_0_1"},
		{[]string{"--approve", "all", "--deny", "call_0_0"}, false, true, "call_0_0"},
	} {
		t.Run(strings.Join(tt.flags, " "), func(t *testing.T) {
			e := newEnv(t)
			s := e.script(calls(
				call("Bash", map[string]any{"command": "touch one"}),
				call("Bash", map[string]any{"command": "touch two"}),
			), answer("done"))
			if r := e.run("", "run", "--provider", "script", "--script", s, "--on-ask", "pause", "go"); r.code != 4 {
				t.Fatalf("%s", r)
			}
			id := e.onlySession()
			res := jsonResult(t, e.must("", append(append([]string{"resume", id}, tt.flags...), "-o", "json")...))
			if e.exists("one") != tt.one || e.exists("two") != tt.two {
				t.Fatalf("one exists %v (want %v), two exists %v (want %v)", e.exists("one"), tt.one, e.exists("two"), tt.two)
			}
			if d := res["permission_denials"].([]any); len(d) != 1 || d[0].(map[string]any)["tool_use_id"] != tt.denialsID {
				t.Fatalf("permission_denials = %v", d)
			}
		})
	}
}

func TestApprovalFlagsAreChecked(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	id := pausedSession(t, e, answer("done"))
	for _, args := range [][]string{
		{"resume", id, "--approve", "call_9_9"},
		{"resume", id, "--approve", "all", "--deny", "all"},
		{"resume", id, "--approve", "call_0_0", "--deny", "call_0_0,all"},
	} {
		if r := e.run("", args...); r.code != 2 {
			t.Errorf("%v: %s", args, r)
		}
	}
	if e.record(id)["status"] != "requires_action" {
		t.Fatal("a rejected decision changed the session")
	}
	e2 := newEnv(t)
	e2.must("", "run", "--provider", "echo", "hi")
	if r := e2.run("", "resume", e2.onlySession(), "--approve", "all"); r.code != 2 || !strings.Contains(r.stderr, "not waiting for approval") {
		t.Errorf("approve on an idle session: %s", r)
	}
	if r := e2.run("", "run", "--provider", "echo", "--approve", "all", "hi"); r.code != 2 {
		t.Errorf("run --approve: %s", r)
	}
}

func TestForkOfAPausedSessionCarriesTheDecision(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	id := pausedSession(t, e, answer("forked done"))
	r := e.must("", "resume", id, "--fork", "--approve", "all")
	if r.stdout != "forked done\n" || e.read("out.txt") != "written\n" {
		t.Fatalf("%s", r)
	}
	if e.record(id)["status"] != "requires_action" {
		t.Error("the fork changed the parent")
	}
}

// --approve (and --deny) may be given once per call: each names more
// calls, as repeating a flag does in every CLI. Only the last counted, and
// the first call named was denied.
func TestApproveRepeatedNamesEveryCall(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	s := e.script(calls(call("Bash", map[string]any{"command": "echo a > a.txt"}), call("Bash", map[string]any{"command": "echo b > b.txt"})), answer("done"))
	if r := e.run("", "run", "--provider", "script", "--script", s, "--on-ask", "pause", "go"); r.code != 4 {
		t.Fatalf("paused run: %s", r)
	}
	id := e.onlySession()
	e.must("", "resume", id, "--approve", "call_0_0", "--approve", "call_0_1")
	if !e.exists("a.txt") || !e.exists("b.txt") {
		t.Errorf("a.txt %v, b.txt %v: a call named by a repeated --approve did not run", e.exists("a.txt"), e.exists("b.txt"))
	}
}
