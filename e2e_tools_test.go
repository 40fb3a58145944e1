package main_test

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"
)

func TestPipedDefaultModeDeniesChangesAndAllowsReads(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.writeFile("notes.txt", "hello world\nsecond line\n")
	s := e.script(calls(
		call("Write", map[string]any{"filePath": "new.txt", "content": "x"}),
		call("Edit", map[string]any{"filePath": "notes.txt", "oldString": "hello", "newString": "bye"}),
		call("Bash", map[string]any{"command": "touch made-by-bash"}),
		call("Read", map[string]any{"filePath": "notes.txt"}),
		call("Glob", map[string]any{"pattern": "*.txt"}),
		call("Grep", map[string]any{"pattern": "second", "outputMode": "content", "glob": "*.txt"}),
	), answer("done"))
	r := e.run("", "run", "--provider", "script", "--script", s, "-o", "json", "go")
	if r.code != 0 {
		t.Fatalf("%s", r)
	}
	if e.exists("new.txt") || e.exists("made-by-bash") || e.read("notes.txt") != "hello world\nsecond line\n" {
		t.Fatal("a denied tool changed the disk")
	}
	if r.stderr != "" {
		t.Errorf("piped stderr = %q, want nothing", r.stderr)
	}
	res := jsonResult(t, r)
	denials, _ := res["permission_denials"].([]any)
	var denied []string
	for _, d := range denials {
		m := d.(map[string]any)
		denied = append(denied, m["tool_name"].(string)+":"+m["tool_use_id"].(string))
		if m["tool_input"] == nil {
			t.Errorf("denial without tool_input: %v", m)
		}
	}
	if strings.Join(denied, ",") != "Write:call_0_0,Edit:call_0_1,Bash:call_0_2" {
		t.Fatalf("permission_denials = %v", denials)
	}
	id := e.onlySession()
	results := e.toolResults(id)
	for _, c := range []string{"call_0_0", "call_0_1", "call_0_2"} {
		if results[c]["success"] != false || !strings.Contains(results[c]["error"].(string), "not approved") {
			t.Errorf("%s result = %v", c, results[c])
		}
	}
	if out := results["call_0_3"]["output"]; out != "[File: notes.txt (2 lines)]\n1\thello world\n2\tsecond line" {
		t.Errorf("Read output = %q", out)
	}
	if out := results["call_0_4"]["output"]; out != "notes.txt" {
		t.Errorf("Glob output = %q", out)
	}
	if out := results["call_0_5"]["output"]; out != "notes.txt:2:second line" {
		t.Errorf("Grep output = %q", out)
	}
	sources := map[string]string{}
	for _, l := range e.events(id, "permission_decision") {
		sources[l["toolCallId"].(string)] = l["decision"].(string) + "/" + l["source"].(string)
	}
	want := map[string]string{"call_0_0": "deny/no_terminal", "call_0_1": "deny/no_terminal", "call_0_2": "deny/no_terminal",
		"call_0_3": "allow/mode", "call_0_4": "allow/mode", "call_0_5": "allow/mode"}
	for k, v := range want {
		if sources[k] != v {
			t.Errorf("permission_decision %s = %q, want %q", k, sources[k], v)
		}
	}
}

func TestAllowToolRuleRunsEchoButNotRm(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.writeFile("keep.txt", "keep")
	s := e.script(calls(
		call("Bash", map[string]any{"command": "echo hi > out.txt"}),
		call("Bash", map[string]any{"command": "rm keep.txt"}),
		call("Bash", map[string]any{"command": "echo sneaky; rm keep.txt"}),
	), answer("done"))
	r := e.must("", "run", "--provider", "script", "--script", s, "--allow-tool", "Bash(echo *)", "-v", "go")
	if e.read("out.txt") != "hi\n" {
		t.Fatalf("echo did not run: %s", r)
	}
	if !e.exists("keep.txt") {
		t.Fatal("rm ran: an allow rule for echo let it through")
	}
	for _, line := range []string{"✓ Bash(echo hi > out.txt)", "✗ Bash(rm keep.txt) denied", "✗ Bash(echo sneaky; rm keep.txt) denied"} {
		if !strings.Contains(r.stderr, line) {
			t.Errorf("--verbose stderr lacks %q:\n%s", line, r.stderr)
		}
	}
	l := e.events(e.onlySession(), "permission_decision")[0]
	if l["source"] != "rule" || l["rule"] != "Bash(echo *)" {
		t.Errorf("permission_decision = %v", l)
	}
}

func TestDenyRuleBeatsBypassPermissions(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.writeFile("keep.txt", "keep")
	s := e.script(calls(
		call("Bash", map[string]any{"command": "rm keep.txt"}),
		call("Bash", map[string]any{"command": "touch made"}),
	), answer("done"))
	r := e.must("", "run", "--provider", "script", "--script", s, "--permission-mode", "bypassPermissions", "--deny-tool", "Bash(rm *)", "-o", "json", "go")
	if !e.exists("keep.txt") || !e.exists("made") {
		t.Fatalf("keep.txt exists %v, made exists %v", e.exists("keep.txt"), e.exists("made"))
	}
	if d := jsonResult(t, r)["permission_denials"].([]any); len(d) != 1 {
		t.Errorf("permission_denials = %v", d)
	}
	if got := e.toolResults(e.onlySession())["call_0_0"]["error"]; got != "Permission denied by rule Bash(rm *)." {
		t.Errorf("denied result = %v", got)
	}
}

// rawCall is a scripted call whose arguments are the model's exact text.
func rawCall(name, arguments string) map[string]any {
	return map[string]any{"name": name, "arguments": arguments}
}

func TestRulesJudgeTheArgumentsThatRun(t *testing.T) {
	t.Parallel()
	t.Run("an allow rule reads the last of repeated keys, as Bash does", func(t *testing.T) {
		t.Parallel()
		e := newEnv(t)
		e.writeFile("keep.txt", "keep")
		s := e.script(calls(rawCall("Bash", `{"command":"echo hi","command":"rm keep.txt"}`)), answer("done"))
		e.must("", "run", "--provider", "script", "--script", s, "--allow-tool", "Bash(echo *)", "go")
		if !e.exists("keep.txt") {
			t.Fatal("Bash(echo *) let rm run: the rule read the first command, Bash the last")
		}
	})
	t.Run("a deny rule is not dodged by a key in other case or arguments sent as a string", func(t *testing.T) {
		t.Parallel()
		e := newEnv(t)
		e.writeFile("keep.txt", "keep")
		s := e.script(calls(
			call("Bash", map[string]any{"Command": "rm keep.txt"}),
			rawCall("Bash", `"{\"command\":\"rm keep.txt\"}"`),
		), answer("done"))
		e.must("", "run", "--provider", "script", "--script", s, "--permission-mode", "bypassPermissions", "--deny-tool", "Bash(rm *)", "go")
		if !e.exists("keep.txt") {
			t.Fatal("Bash(rm *) did not stop rm under bypassPermissions")
		}
		results := e.toolResults(e.onlySession())
		if got := results["call_0_0"]["error"]; got != "Invalid arguments for Bash: command is required" {
			t.Errorf("Command (not command) result = %v", got)
		}
		if got := results["call_0_1"]["error"]; got != "Permission denied by rule Bash(rm *)." {
			t.Errorf("string-encoded call result = %v", got)
		}
	})
	t.Run("a symlink does not lead around a path rule", func(t *testing.T) {
		t.Parallel()
		e := newEnv(t)
		e.writeFile(".env", "TOKEN=s3cret")
		if err := os.MkdirAll(filepath.Join(e.cwd, "docs"), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink("../.env", filepath.Join(e.cwd, "docs", "notes")); err != nil {
			t.Fatal(err)
		}
		s := e.script(calls(call("Read", map[string]any{"filePath": "docs/notes"})), answer("done"))
		e.must("", "run", "--provider", "script", "--script", s, "--deny-tool", "Read(.env)", "go")
		if got := e.toolResults(e.onlySession())["call_0_0"]; got["error"] != "Permission denied by rule Read(.env)." {
			t.Fatalf("Read through a link to .env = %v", got)
		}
	})
	t.Run("Read rules keep a file from Grep, Edit rules cover Write (Claude Code)", func(t *testing.T) {
		t.Parallel()
		e := newEnv(t)
		e.writeFile(".env", "TOKEN=s3cret\n")
		s := e.script(calls(
			call("Grep", map[string]any{"pattern": "TOKEN", "outputMode": "content"}),
			call("Write", map[string]any{"filePath": ".env", "content": "TOKEN=changed\n"}),
		), answer("done"))
		// The Edit rule comes first: a Read deny rule guards writes too,
		// and the first deny rule that matches is the one named.
		e.must("", "run", "--provider", "script", "--script", s, "--permission-mode", "acceptEdits",
			"--deny-tool", "Edit(.env)", "--deny-tool", "Read(.env)", "go")
		results := e.toolResults(e.onlySession())
		if out := results["call_0_0"]["output"]; strings.Contains(out.(string), "s3cret") {
			t.Errorf("Grep showed a file Read(.env) denies: %q", out)
		}
		if e.read(".env") != "TOKEN=s3cret\n" || results["call_0_1"]["error"] != "Permission denied by rule Edit(.env)." {
			t.Errorf("Write under Edit(.env): %v", results["call_0_1"])
		}
	})
	t.Run("./ paths and a trailing space-star match as in Claude Code", func(t *testing.T) {
		t.Parallel()
		e := newEnv(t)
		e.writeFile("src/secret.txt", "s3cret")
		s := e.script(calls(
			call("Read", map[string]any{"filePath": "src/secret.txt"}),
			call("Bash", map[string]any{"command": "touch pushed"}),
		), answer("done"))
		e.must("", "run", "--provider", "script", "--script", s, "--permission-mode", "bypassPermissions",
			"--deny-tool", "Read(./src/**)", "--deny-tool", "Bash(touch pushed *)", "go")
		results := e.toolResults(e.onlySession())
		if results["call_0_0"]["success"] != false || e.exists("pushed") {
			t.Fatalf("Read = %v, pushed exists %v", results["call_0_0"], e.exists("pushed"))
		}
	})
}

func TestModesDecideWriteAndEdit(t *testing.T) {
	t.Parallel()
	t.Run("plan denies Write", func(t *testing.T) {
		t.Parallel()
		e := newEnv(t)
		s := e.script(calls(call("Write", map[string]any{"filePath": "a.txt", "content": "x"})), answer("done"))
		e.must("", "run", "--provider", "script", "--script", s, "--permission-mode", "plan", "go")
		if e.exists("a.txt") {
			t.Fatal("plan mode wrote a file")
		}
		l := e.events(e.onlySession(), "permission_decision")[0]
		if l["decision"] != "deny" || l["source"] != "mode" {
			t.Errorf("permission_decision = %v", l)
		}
	})
	t.Run("acceptEdits allows Edit and still asks for Bash", func(t *testing.T) {
		t.Parallel()
		e := newEnv(t)
		e.writeFile("a.txt", "old")
		s := e.script(calls(
			call("Edit", map[string]any{"filePath": "a.txt", "oldString": "old", "newString": "new"}),
			call("Bash", map[string]any{"command": "touch made"}),
		), answer("done"))
		e.must("", "run", "--provider", "script", "--script", s, "--permission-mode", "acceptEdits", "go")
		if e.read("a.txt") != "new" || e.exists("made") {
			t.Fatalf("a.txt = %q, made exists %v", e.read("a.txt"), e.exists("made"))
		}
	})
	t.Run("settings defaultMode applies and the flag overrides it", func(t *testing.T) {
		t.Parallel()
		e := newEnv(t)
		e.writeFile(".trail/settings.json", `{"permissions":{"defaultMode":"acceptEdits"}}`)
		s := e.script(calls(call("Write", map[string]any{"filePath": "a.txt", "content": "x"})), answer("done"),
			calls(call("Write", map[string]any{"filePath": "b.txt", "content": "x"})), answer("done"))
		e.must("", "run", "--provider", "script", "--script", s, "go")
		id := e.onlySession()
		if !e.exists("a.txt") {
			t.Fatal("defaultMode acceptEdits did not allow Write")
		}
		e.must("", "resume", id, "--permission-mode", "plan", "again")
		if e.exists("b.txt") {
			t.Fatal("--permission-mode plan did not override the settings")
		}
		if rec := e.record(id); rec["permissionMode"] != "plan" {
			t.Errorf("record permissionMode = %v", rec["permissionMode"])
		}
	})
}

func TestClaudeSettingsRulesAreHonoured(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.writeFile(".claude/settings.json", `{"permissions":{"allow":["Bash(touch *)"],"ask":["Bash(touch pushed *)"],"deny":["Read(secret.txt)"]}}`)
	e.writeFile("secret.txt", "s3cret")
	s := e.script(calls(
		call("Bash", map[string]any{"command": "touch made"}),
		call("Read", map[string]any{"filePath": "secret.txt"}),
		call("Bash", map[string]any{"command": "touch pushed"}),
	), answer("done"))
	e.must("", "run", "--provider", "script", "--script", s, "--permission-mode", "bypassPermissions", "go")
	if !e.exists("made") {
		t.Fatal("the allow rule of .claude/settings.json was not honoured")
	}
	res := e.toolResults(e.onlySession())["call_0_1"]
	if res["success"] != false || strings.Contains(res["output"].(string), "s3cret") {
		t.Fatalf("the deny rule of .claude/settings.json was not honoured: %v", res)
	}
	if e.exists("pushed") {
		t.Fatal("the ask rule of .claude/settings.json was not honoured: with no one to ask, the call must be denied")
	}
}

func TestInvalidRulesAreUsageErrorsNamingThem(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	r := e.run("", "run", "--provider", "echo", "--allow-tool", "Bash(ls", "hi")
	if r.code != 2 || !strings.Contains(r.stderr, `"Bash(ls"`) || !strings.Contains(r.stderr, "--allow-tool") {
		t.Fatalf("%s", r)
	}
	settings := e.writeFile(".claude/settings.local.json", `{"permissions":{"deny":["Read()"]}}`)
	r = e.run("", "run", "--provider", "echo", "hi")
	if r.code != 2 || !strings.Contains(r.stderr, `"Read()"`) || !strings.Contains(r.stderr, settings) {
		t.Fatalf("%s", r)
	}
	if len(e.sessionIDs()) != 0 {
		t.Error("a session was created despite the bad rule")
	}
	for _, args := range [][]string{
		{"--permission-mode", "yolo", "yolo"}, {"--on-ask", "maybe", "maybe"}, {"--tools", "Read,Nope", `"Nope"`},
	} {
		r := e.run("", "run", "--provider", "echo", args[0], args[1], "hi")
		if r.code != 2 || !strings.Contains(r.stderr, args[2]) {
			t.Errorf("%v: %s", args, r)
		}
	}
}

func TestToolsFlagChoosesTheOfferedTools(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	s := e.script(calls(call("Bash", map[string]any{"command": "touch made"})), answer("done"))
	e.must("", "run", "--provider", "script", "--script", s, "--tools", "Read, Grep", "--permission-mode", "bypassPermissions", "go")
	id := e.onlySession()
	schemas, _ := e.record(id)["toolSchemas"].([]any)
	var names []string
	for _, sc := range schemas {
		names = append(names, sc.(map[string]any)["name"].(string))
	}
	if strings.Join(names, ",") != "Read,Grep" {
		t.Fatalf("toolSchemas = %v", names)
	}
	res := e.toolResults(id)["call_0_0"]
	if res["errorCode"] != "unknown_tool" || e.exists("made") {
		t.Fatalf("a tool not offered ran: %v", res)
	}
	e2 := newEnv(t)
	e2.must("", "run", "--provider", "echo", "--tools", "none", "hi")
	if _, ok := e2.record(e2.onlySession())["toolSchemas"]; ok {
		t.Error("--tools none still offered tools")
	}
	e3 := newEnv(t)
	e3.must("", "run", "--provider", "echo", "hi")
	if n := len(e3.record(e3.onlySession())["toolSchemas"].([]any)); n != 6 {
		t.Errorf("default offers %d tools, want 6", n)
	}
}

func TestBashUsesSettingsEnvAndTheSessionCwd(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.writeFile(".trail/settings.json", `{"env":{"GREETING":"from settings"}}`)
	s := e.script(calls(call("Bash", map[string]any{"command": "echo \"$GREETING\" in \"$(basename \"$PWD\")\""})), answer("done"))
	e.must("", "run", "--provider", "script", "--script", s, "--allow-tool", "Bash", "go")
	res := e.toolResults(e.onlySession())["call_0_0"]
	if res["output"] != "from settings in work\n" || res["exitCode"] != float64(0) {
		t.Fatalf("Bash result = %v", res)
	}
}

func TestKillDuringAToolLeavesTheLastCompleteRound(t *testing.T) {
	t.Parallel()
	e := newEnv(t) // the resume closes what the kill left open: the log ends valid, --strict
	s := e.script(
		calls(call("Bash", map[string]any{"command": "echo first"})),
		calls(call("Bash", map[string]any{"command": "echo $$ > pid; touch started; sleep 30"})),
		answer("never"))
	c := e.cmd("run", "--provider", "script", "--script", s, "--permission-mode", "bypassPermissions", "go")
	if err := c.Start(); err != nil {
		t.Fatal(err)
	}
	e.killMidTool(c)
	id := e.onlySession()
	msgs := e.messages(id) // fails the test when the record does not parse
	last := msgs[len(msgs)-1]
	if last["role"] != "tool" || last["toolCallId"] != "call_0_0" {
		t.Fatalf("last message = %v, want the first round's tool result", last)
	}
	if len(msgs) != 4 {
		t.Fatalf("%d messages, want system, user, assistant, tool", len(msgs))
	}
	var res map[string]any
	json.Unmarshal([]byte(last["content"].(string)), &res)
	if res["output"] != "first\n" {
		t.Errorf("first round result = %v", res)
	}
	// The log agrees with the record: the killed round is not in its
	// history, so the session goes on and replays to its record, and the
	// log's only errors are the killed round's missing results (SPEC 9).
	e.checkReplayMatchesRecord(id)
	again := e.script(answer("unused"), answer("resumed"))
	if r := e.must("", "resume", id, "--script", again, "go on"); r.stdout != "resumed\n" {
		t.Fatalf("%s", r)
	}
	e.checkReplayMatchesRecord(id)
	e.onlyKilledStepIssues(id, "TOOL_RESULT_MISSING")
	_ = time.Second
}

// onlyKilledStepIssues checks SPEC 9's promise for a killed step: the log
// validates apart from the killed step's missing responses (codes).
func (e *env) onlyKilledStepIssues(id string, codes ...string) {
	e.t.Helper()
	var report struct {
		Files []struct {
			Issues []struct{ Code, Message string }
		}
	}
	r := e.run("", "validate-log", "--strict", "--format", "json", id)
	if err := json.Unmarshal([]byte(r.stdout), &report); err != nil || len(report.Files) != 1 {
		e.t.Fatalf("validate-log: %v\n%s", err, r)
	}
	for _, issue := range report.Files[0].Issues {
		if !slices.Contains(codes, issue.Code) {
			e.t.Errorf("validate-log after the kill and a resume: %s %s", issue.Code, issue.Message)
		}
	}
}

func TestKillDuringAProviderCallLeavesALogThatReplaysToTheRecord(t *testing.T) {
	t.Parallel()
	e := newEnv(t) // the resume closes what the kill left open: the log ends valid, --strict
	s := e.script(answer("first"), map[string]any{"text": "slow", "delayMs": 30000})
	e.must("", "run", "--provider", "script", "--script", s, "go")
	id := e.onlySession()
	c := e.cmd("resume", id, "two")
	if err := c.Start(); err != nil {
		t.Fatal(err)
	}
	waitFor(t, func() bool { return len(e.events(id, "provider_request")) == 2 })
	c.Process.Signal(syscall.SIGKILL)
	c.Wait()
	// The prompt was logged before its request, as Robota logs it; the
	// record, saved at the answer, never had it.
	if got, want := e.replayMessages(id), e.recordMessages(id); len(got) != len(want)+1 ||
		!strings.Contains(string(got[len(want)]), `"content":"two"`) {
		t.Fatalf("replay after the kill: %d messages, the record %d", len(got), len(want))
	}
	again := e.script(answer("unused"), answer("third")) // the killed call was never counted
	if r := e.must("", "resume", id, "--script", again, "three"); r.stdout != "third\n" {
		t.Fatalf("%s", r)
	}
	e.checkReplayMatchesRecord(id) // the resume re-synced the log with the record
	if rs := e.events(id, "log_resync"); len(rs) != 1 || rs[0]["mutation"] != "replace_all" {
		t.Errorf("log_resync %v", rs)
	}
	e.onlyKilledStepIssues(id, "PROVIDER_NATIVE_RAW_PAYLOAD_MISSING", "PROVIDER_RESPONSE_RAW_MISSING", "PROVIDER_RESPONSE_NORMALIZED_MISSING")
}

func TestInterruptKillsARunningToolsProcessGroup(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	s := e.script(calls(call("Bash", map[string]any{"command": "(sleep 30; touch late) & echo $! > pid; touch started; wait"})), answer("never"))
	c := e.cmd("run", "--provider", "script", "--script", s, "--permission-mode", "bypassPermissions", "go")
	done := make(chan result, 1)
	go func() { done <- e.wait(c) }()
	waitFor(t, func() bool { return e.exists("started") })
	c.Process.Signal(syscall.SIGINT)
	var r result
	select {
	case r = <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("trail did not stop after SIGINT")
	}
	if r.code != 130 {
		t.Fatalf("%s", r)
	}
	id := e.onlySession()
	res := e.toolResults(id)["call_0_0"]
	if res["success"] != false || res["error"] != "Aborted" {
		t.Fatalf("interrupted tool result = %v", res)
	}
	waitFor(t, func() bool {
		st, err := os.ReadFile("/proc/" + strings.TrimSpace(e.read("pid")) + "/stat")
		return err != nil || strings.Contains(string(st), ") Z ")
	})
	if e.exists("late") {
		t.Fatal("the tool's background process outlived the interrupt")
	}
	if rec := e.record(id); rec["stopReason"] != "interrupted" {
		t.Errorf("stopReason = %v", rec["stopReason"])
	}
}

// A long tool loop saves the record only every so often; the rounds a
// killed step logged after its last save are taken from the log by the
// next step, which then goes on from the last complete round.
func TestKillInALongToolLoopKeepsEveryCompleteRound(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.writeFile("f.txt", "hello\n")
	const rounds = 150
	steps := make([]map[string]any, 0, rounds+2)
	for range rounds {
		steps = append(steps, calls(call("Read", map[string]any{"filePath": "f.txt"})))
	}
	steps = append(steps, calls(call("Bash", map[string]any{"command": "echo $$ > pid; touch started; sleep 30"})), answer("never"))
	c := e.cmd("run", "--provider", "script", "--script", e.script(steps...), "--permission-mode", "bypassPermissions", "go")
	if err := c.Start(); err != nil {
		t.Fatal(err)
	}
	e.killMidTool(c)
	id := e.onlySession()
	saved := len(e.messages(id))
	want := 2 + 2*rounds // system, prompt, then each round's call and result
	if saved >= want {
		t.Fatalf("the record holds all %d messages: it was saved every round", saved)
	}
	// The record says running, but no step holds its lock: list says idle,
	// so a script waiting for running to end goes on.
	if st := e.record(id)["status"]; st != "running" {
		t.Fatalf("the killed step's record says %v", st)
	}
	if r := e.must("", "list", "--json"); runtime.GOOS == "linux" && !strings.Contains(r.stdout, `"status":"idle"`) {
		t.Errorf("list after the kill: %s", r)
	}
	// The k-th call of a session gets the k-th answer: the killed step made
	// rounds+1 calls, and the record counts them once it has their rounds.
	again := make([]map[string]any, rounds+1, rounds+2)
	for i := range again {
		again[i] = answer("unused")
	}
	r := e.must("", "resume", id, "--script", e.script(append(again, answer("resumed"))...), "go on")
	if r.stdout != "resumed\n" || !strings.Contains(r.stderr, "messages behind its log") {
		t.Fatalf("%s", r)
	}
	msgs := e.messages(id)
	if len(msgs) != want+2 || msgs[want-1]["toolCallId"] != fmt.Sprintf("call_%d_0", rounds-1) {
		t.Fatalf("%d messages after the resume (saved %d), want the %d of the complete rounds and the new turn", len(msgs), saved, want)
	}
	e.checkReplayMatchesRecord(id)
	e.onlyKilledStepIssues(id, "TOOL_RESULT_MISSING")
}

// killMidTool SIGKILLs trail once the Bash tool it runs (a command that
// writes its pid to "pid", touches "started" and sleeps) has started, and
// ends that command's process group when the test does: a killed trail
// cannot end it.
func (e *env) killMidTool(c *exec.Cmd) {
	e.t.Helper()
	e.t.Cleanup(func() {
		if b, err := os.ReadFile(filepath.Join(e.cwd, "pid")); err == nil {
			var pid int
			if _, err := fmtSscan(strings.TrimSpace(string(b)), &pid); err == nil && pid > 0 {
				killGroup(pid)
			}
		}
	})
	waitFor(e.t, func() bool { return e.exists("started") })
	c.Process.Signal(syscall.SIGKILL)
	c.Wait()
}
