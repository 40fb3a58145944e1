package main_test

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// hook is the settings entry running a script of testdata/hooks.
func hook(t *testing.T, matcher, script string, args ...string) map[string]any {
	t.Helper()
	abs, err := filepath.Abs(filepath.Join("testdata", "hooks", script))
	if err != nil {
		t.Fatal(err)
	}
	command := strings.Join(append([]string{abs}, args...), " ")
	return map[string]any{"matcher": matcher, "hooks": []any{map[string]any{"type": "command", "command": command}}}
}

// withHooks writes .claude/settings.json with the given hooks per event.
func (e *env) withHooks(hooks map[string][]map[string]any) {
	e.t.Helper()
	b, err := json.Marshal(map[string]any{"hooks": hooks})
	if err != nil {
		e.t.Fatal(err)
	}
	e.writeFile(".claude/settings.json", string(b))
}

func TestPreToolUseExit2BlocksEvenUnderBypassPermissions(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.withHooks(map[string][]map[string]any{"PreToolUse": {hook(t, "Bash", "block.sh")}})
	s := e.script(calls(
		call("Bash", map[string]any{"command": "touch made"}),
		call("Write", map[string]any{"filePath": "w.txt", "content": "x"}),
	), answer("done"))
	r := e.must("", "run", "--provider", "script", "--script", s, "--permission-mode", "bypassPermissions", "-o", "json", "go")
	if e.exists("made") {
		t.Fatal("a call blocked by a hook ran")
	}
	if !e.exists("w.txt") {
		t.Fatal("the matcher Bash blocked Write too")
	}
	id := e.onlySession()
	if got := e.toolResults(id)["call_0_0"]["error"]; got != "Blocked by hook: rm is not allowed here" {
		t.Fatalf("result error = %v", got)
	}
	if d := jsonResult(t, r)["permission_denials"].([]any); len(d) != 1 {
		t.Errorf("permission_denials = %v", d)
	}
	runs := e.events(id, "hook_run")
	if len(runs) != 1 || runs[0]["hookEvent"] != "PreToolUse" || runs[0]["exitCode"] != float64(2) || runs[0]["blocked"] != true {
		t.Fatalf("hook_run = %v", runs)
	}
	if _, ok := runs[0]["durationMs"].(float64); !ok || !strings.HasSuffix(runs[0]["command"].(string), "block.sh") {
		t.Errorf("hook_run = %v", runs[0])
	}
	d := e.events(id, "permission_decision")[0]
	if d["source"] != "hook" || d["decision"] != "deny" {
		t.Errorf("permission_decision = %v", d)
	}
}

func TestPreToolUseJSONDecisions(t *testing.T) {
	t.Parallel()
	t.Run("allow skips the question when piped", func(t *testing.T) {
		t.Parallel()
		e := newEnv(t)
		e.withHooks(map[string][]map[string]any{"PreToolUse": {hook(t, "Bash", "allow.sh")}})
		s := e.script(calls(call("Bash", map[string]any{"command": "touch made"})), answer("done"))
		e.must("", "run", "--provider", "script", "--script", s, "go")
		if !e.exists("made") {
			t.Fatal("permissionDecision allow did not run the call")
		}
	})
	t.Run("deny denies even under bypassPermissions", func(t *testing.T) {
		t.Parallel()
		e := newEnv(t)
		e.withHooks(map[string][]map[string]any{"PreToolUse": {hook(t, "", "deny.sh")}})
		s := e.script(calls(call("Bash", map[string]any{"command": "touch made"})), answer("done"))
		e.must("", "run", "--provider", "script", "--script", s, "--permission-mode", "bypassPermissions", "go")
		if e.exists("made") {
			t.Fatal("permissionDecision deny let the call run")
		}
		if got := e.toolResults(e.onlySession())["call_0_0"]["error"]; got != "Blocked by hook: policy says no" {
			t.Errorf("result error = %v", got)
		}
	})
	t.Run("allow does not override a deny rule", func(t *testing.T) {
		t.Parallel()
		e := newEnv(t)
		e.withHooks(map[string][]map[string]any{"PreToolUse": {hook(t, "", "allow.sh")}})
		s := e.script(calls(call("Bash", map[string]any{"command": "touch made"})), answer("done"))
		e.must("", "run", "--provider", "script", "--script", s, "--deny-tool", "Bash(touch *)", "go")
		if e.exists("made") {
			t.Fatal("a hook's allow beat a deny rule")
		}
	})
	t.Run("updatedInput replaces the arguments", func(t *testing.T) {
		t.Parallel()
		e := newEnv(t)
		e.withHooks(map[string][]map[string]any{"PreToolUse": {hook(t, "^Bash$", "rewrite.sh")}})
		s := e.script(calls(call("Bash", map[string]any{"command": "touch made"})), answer("done"))
		e.must("", "run", "--provider", "script", "--script", s, "go")
		if e.exists("made") || e.read("out.txt") != "rewritten\n" {
			t.Fatalf("made exists %v, out.txt = %q", e.exists("made"), e.read("out.txt"))
		}
		req := e.events(e.onlySession(), "tool_execution_request")[0]
		if req["parameters"].(map[string]any)["command"] != "echo rewritten > out.txt" {
			t.Errorf("logged parameters = %v", req["parameters"])
		}
	})
}

func TestUserPromptSubmitAndSessionStartInjectContext(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.withHooks(map[string][]map[string]any{
		"SessionStart":     {hook(t, "startup", "context.sh", "branch-main")},
		"UserPromptSubmit": {hook(t, "", "context.sh", "use-tabs")},
	})
	r := e.must("", "run", "--provider", "echo", "hi")
	want := "<system-reminder>\nremember: branch-main\nremember: use-tabs\n</system-reminder>\nhi"
	if r.stdout != "echo: "+want+"\n" {
		t.Fatalf("stdout = %q", r.stdout)
	}
	id := e.onlySession()
	if got := e.messages(id)[1]["content"]; got != want {
		t.Fatalf("user message = %q", got)
	}
	if rec := e.record(id); rec["title"] != "hi" {
		t.Errorf("title = %v, want the prompt as typed", rec["title"])
	}
	// resume: the source is "resume", so the startup matcher skips SessionStart
	r = e.must("", "resume", id, "again")
	if r.stdout != "echo: <system-reminder>\nremember: use-tabs\n</system-reminder>\nagain\n" {
		t.Fatalf("resume stdout = %q", r.stdout)
	}
}

func TestUserPromptSubmitExit2RefusesThePrompt(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.must("", "run", "--provider", "echo", "hello")
	id := e.onlySession()
	before := len(e.messages(id))
	e.withHooks(map[string][]map[string]any{"UserPromptSubmit": {hook(t, "", "refuse.sh")}})
	r := e.run("", "resume", id, "print the secret")
	if r.code != 1 || !strings.Contains(r.stderr, "prompt refused: no secrets") || r.stdout != "" {
		t.Fatalf("%s", r)
	}
	if after := len(e.messages(id)); after != before {
		t.Fatalf("%d messages after a refused prompt, want %d", after, before)
	}
	if r := e.must("", "resume", id, "something else"); r.stdout != "echo: something else\n" {
		t.Fatalf("the session is not usable after a refusal: %s", r)
	}
}

func TestHooksReceiveTheDocumentedFields(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.withHooks(map[string][]map[string]any{
		"PostToolUse": {hook(t, "Read", "capture.sh", "PostToolUse")},
		"Stop":        {hook(t, "", "capture.sh", "Stop")},
		"SessionEnd":  {hook(t, "", "capture.sh", "SessionEnd")},
	})
	e.writeFile("notes.txt", "hello")
	s := e.script(calls(call("Read", map[string]any{"filePath": "notes.txt"})), answer("final answer"))
	e.must("", "run", "--provider", "script", "--script", s, "go")
	id := e.onlySession()
	read := func(event string) map[string]any {
		var m map[string]any
		if err := json.Unmarshal([]byte(e.read("captured-"+event+".json")), &m); err != nil {
			t.Fatalf("%s input: %v", event, err)
		}
		for k, want := range map[string]any{"session_id": id, "transcript_path": filepath.Join(e.home, "transcripts", id+".jsonl"), "cwd": e.cwd, "hook_event_name": event, "permission_mode": "default"} {
			if m[k] != want {
				t.Errorf("%s %s = %v, want %v", event, k, m[k], want)
			}
		}
		env := e.read("captured-" + event + ".env")
		for _, kv := range []string{"TRAIL_SESSION_ID=" + id, "CLAUDE_SESSION_ID=" + id, "TRAIL_PROJECT_DIR=" + e.cwd, "CLAUDE_PROJECT_DIR=" + e.cwd} {
			if !strings.Contains(env, kv+"\n") {
				t.Errorf("%s env lacks %s", event, kv)
			}
		}
		return m
	}
	post := read("PostToolUse")
	// Claude Code's names and shapes: file_path absolute, Read's {type, file}.
	if post["tool_name"] != "Read" || post["tool_use_id"] != "call_0_0" || post["tool_input"].(map[string]any)["file_path"] != filepath.Join(e.cwd, "notes.txt") {
		t.Errorf("PostToolUse = %v", post)
	}
	if resp, _ := post["tool_response"].(map[string]any); resp["type"] != "text" || resp["file"].(map[string]any)["content"] != "hello" {
		t.Errorf("tool_response = %v", post["tool_response"])
	}
	stop := read("Stop")
	if stop["response"] != "final answer" || stop["last_assistant_message"] != "final answer" || stop["stop_hook_active"] != false {
		t.Errorf("Stop = %v", stop)
	}
	if end := read("SessionEnd"); end["reason"] != "other" {
		t.Errorf("SessionEnd = %v", end)
	}
	// SessionEnd runs after the save: its hook_run is the last thing logged.
	lines := e.logLines(id)
	if last := lines[len(lines)-1]; last["event"] != "hook_run" || last["hookEvent"] != "SessionEnd" {
		t.Errorf("last log line = %v", last)
	}
}

func TestAHookPastItsTimeoutIsKilledAndTheStepGoesOn(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	slow := hook(t, "", "slow.sh")
	slow["hooks"].([]any)[0].(map[string]any)["timeout"] = 1
	e.withHooks(map[string][]map[string]any{"UserPromptSubmit": {slow}})
	start := time.Now()
	r := e.must("", "run", "--provider", "echo", "hi")
	if d := time.Since(start); d > 10*time.Second || d < time.Second {
		t.Fatalf("took %s, want about the 1 s timeout", d)
	}
	if r.stdout != "echo: hi\n" || !strings.Contains(r.stderr, "timed out") {
		t.Fatalf("%s", r)
	}
	runs := e.events(e.onlySession(), "hook_run")
	if len(runs) != 1 || runs[0]["timedOut"] != true || runs[0]["blocked"] != false {
		t.Fatalf("hook_run = %v", runs)
	}
}

func TestAStopHookThatBlocksSendsTheModelBackToWork(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.withHooks(map[string][]map[string]any{"Stop": {hook(t, "", "stop_once.sh")}})
	s := e.script(answer("I am done"), answer("tests pass now"))
	r := e.must("", "run", "--provider", "script", "--script", s, "go")
	if r.stdout != "tests pass now\n" {
		t.Fatalf("%s", r)
	}
	msgs := e.messages(e.onlySession())
	if got := msgs[3]["content"]; msgs[3]["role"] != "user" || got != "Stop hook feedback:\nrun the tests first" {
		t.Fatalf("feedback message = %v", msgs[3])
	}
}

func TestStopFailureRunsWhenTheProviderFails(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.withHooks(map[string][]map[string]any{"StopFailure": {hook(t, "", "capture.sh", "StopFailure")}})
	s := e.script(map[string]any{"error": map[string]any{"status": 400, "message": "bad request"}})
	r := e.run("", "run", "--provider", "script", "--script", s, "go")
	if r.code != 6 {
		t.Fatalf("%s", r)
	}
	var m map[string]any
	if err := json.Unmarshal([]byte(e.read("captured-StopFailure.json")), &m); err != nil {
		t.Fatalf("StopFailure did not run: %v", err)
	}
	if !strings.Contains(m["reason"].(string), "bad request") {
		t.Errorf("reason = %v", m["reason"])
	}
}

// The same hook in ~/.claude/settings.json and the project's settings runs
// once, with the project's (the later file's) timeout: the user's 1 s
// does not cut a guard the project gives longer, and let the call through.
func TestAHookInTwoFilesRunsOnceWithTheLaterFilesTimeout(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	const guard = "sleep 2; echo slow guard says no >&2; exit 2"
	entry := func(timeout int) string {
		return `{"hooks":{"PreToolUse":[{"matcher":"Bash","hooks":[{"type":"command","command":"` + guard + `","timeout":` + fmt.Sprint(timeout) + `}]}]}}`
	}
	e.writeFile(filepath.Join(e.user, ".claude", "settings.json"), entry(1))
	e.writeFile(".claude/settings.json", entry(30))
	s := e.script(calls(call("Bash", map[string]any{"command": "touch made"})), answer("done"))
	r := e.must("", "run", "--provider", "script", "--script", s, "--dangerously-skip-permissions", "go")
	runs := e.events(e.onlySession(), "hook_run")
	if e.exists("made") || len(runs) != 1 || runs[0]["blocked"] != true || strings.Contains(r.stderr, "timed out") {
		t.Fatalf("made %v, hook_run %v\n%s", e.exists("made"), runs, r)
	}
}

// Claude Code's "shell" field: "bash" runs the command with bash -c; a
// shell trail does not run makes a guarded call a question, and config
// --check names it; a command sh cannot parse blocks (exit 2 still does)
// with a reason saying so; a missing bash fails the hook, not falling
// back to sh.
func TestTheHookShellField(t *testing.T) {
	t.Parallel()
	needPrograms(t, "bash")
	prompt := func(shell, command string) map[string]any {
		h := map[string]any{"type": "command", "command": command}
		if shell != "" {
			h["shell"] = shell
		}
		return map[string]any{"hooks": []any{h}}
	}
	// bash -c, not sh -c: neither dash nor bash as sh (posix mode) says so
	const underBash = `if [ -n "$BASH_VERSION" ] && ! shopt -oq posix; then echo CTX=bash; else echo CTX=sh; fi`

	t.Run("bash", func(t *testing.T) {
		t.Parallel()
		e := newEnv(t)
		e.withHooks(map[string][]map[string]any{"UserPromptSubmit": {prompt("bash", underBash)}})
		if r := e.must("", "run", "--provider", "echo", "hi"); !strings.Contains(r.stdout, "CTX=bash") || r.stderr != "" {
			t.Errorf("%s", r)
		}
	})
	t.Run("a syntax error of sh", func(t *testing.T) {
		t.Parallel()
		e := newEnv(t)
		e.withHooks(map[string][]map[string]any{"UserPromptSubmit": {prompt("", "if then fi")}})
		r := e.run("", "run", "--provider", "echo", "hi")
		if r.code != 1 || !strings.HasPrefix(r.stderr, "trail: UserPromptSubmit hook blocked the step: the hook command does not parse under sh (sh: ") ||
			!strings.Contains(r.stderr, `; if it is written for bash, add "shell": "bash" to the hook`) {
			t.Errorf("%s", r)
		}
	})
	t.Run("powershell", func(t *testing.T) {
		t.Parallel()
		e := newEnv(t)
		guard := prompt("powershell", "Write-Output ok")
		guard["matcher"] = "Bash"
		e.withHooks(map[string][]map[string]any{"PreToolUse": {guard}})
		s := e.script(calls(call("Bash", map[string]any{"command": "touch made"})), answer("done"))
		r := e.must("", "run", "--provider", "script", "--script", s, "--dangerously-skip-permissions", "go")
		if e.exists("made") || !strings.Contains(r.stderr, `trail: PreToolUse hook "Write-Output ok" with shell "powershell" skipped: trail runs hooks with sh, or bash ("shell": "bash"); the call is a question instead`) {
			t.Errorf("made %v\n%s", e.exists("made"), r)
		}
		r = e.run("", "config", "--check")
		if r.code != 7 || !strings.Contains(r.stdout, `hooks.PreToolUse hook shell "powershell" is not one trail runs`) {
			t.Errorf("config --check: %s", r)
		}
	})
	t.Run("no bash", func(t *testing.T) {
		t.Parallel()
		e := newEnv(t)
		e.withHooks(map[string][]map[string]any{"UserPromptSubmit": {prompt("bash", "echo CTX=ran")}})
		e.setenv("PATH=" + t.TempDir())
		r := e.must("", "run", "--provider", "echo", "hi")
		if strings.Contains(r.stdout, "CTX=ran") || !strings.Contains(r.stderr, `trail: UserPromptSubmit hook "echo CTX=ran" failed: its "shell": "bash" needs bash, which is not in PATH`) {
			t.Errorf("%s", r)
		}
	})
}
