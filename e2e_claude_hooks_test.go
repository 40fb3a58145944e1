package main_test

import (
	"bufio"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/uuid"
)

// Each real-world kind of Claude Code hook, written the way public ones
// are (testdata/hooks/README.md names the script each follows), runs
// unchanged against the built binary.

// needPrograms skips a test whose hooks call a program this machine lacks.
func needPrograms(t *testing.T, names ...string) {
	t.Helper()
	for _, n := range names {
		if _, err := exec.LookPath(n); err != nil {
			t.Skipf("the hook needs %s: %v", n, err)
		}
	}
}

// claudeHook is a settings entry running testdata/hooks/claude/NAME.
func claudeHook(t *testing.T, matcher, script string) map[string]any {
	t.Helper()
	abs, err := filepath.Abs(filepath.Join("testdata", "hooks", "claude", script))
	if err != nil {
		t.Fatal(err)
	}
	return map[string]any{"matcher": matcher, "hooks": []any{map[string]any{"type": "command", "command": abs}}}
}

// withSettings writes .claude/settings.json.
func (e *env) withSettings(v map[string]any) {
	e.t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		e.t.Fatal(err)
	}
	e.writeFile(".claude/settings.json", string(b))
}

// transcript reads the session's transcript (hooks' transcript_path),
// every line a JSON object.
func (e *env) transcript(id string) []map[string]any {
	e.t.Helper()
	f, err := os.Open(filepath.Join(e.home, "transcripts", id+".jsonl"))
	if err != nil {
		e.t.Fatal(err)
	}
	defer f.Close()
	var out []map[string]any
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<24)
	for sc.Scan() {
		var m map[string]any
		if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
			e.t.Fatalf("transcript line %q: %v", sc.Text(), err)
		}
		out = append(out, m)
	}
	return out
}

func TestClaudeProtectFilesHookRunsUnmodified(t *testing.T) {
	t.Parallel()
	needPrograms(t, "bash", "jq")
	e := newEnv(t)
	e.writeFile(".env", "TOKEN=1\n")
	e.withSettings(map[string]any{"hooks": map[string]any{"PreToolUse": []any{claudeHook(t, "Edit|Write", "protect-files.sh")}}})
	// The model uses Claude Code's spelling, as models trained on it do.
	s := e.script(calls(
		call("Write", map[string]any{"file_path": ".env", "content": "TOKEN=2\n"}),
		call("Write", map[string]any{"file_path": "notes.txt", "content": "hi\n"}),
	), answer("done"))
	e.must("", "run", "--provider", "script", "--script", s, "--permission-mode", "bypassPermissions", "go")
	if e.read(".env") != "TOKEN=1\n" || e.read("notes.txt") != "hi\n" {
		t.Fatalf(".env = %q, notes.txt = %q: the hook must stop the first write only", e.read(".env"), e.read("notes.txt"))
	}
	want := "Blocked by hook: Refused: " + filepath.Join(e.cwd, ".env") + " is protected (.env)"
	if got := e.toolResults(e.onlySession())["call_0_0"]["error"]; got != want {
		t.Fatalf("result error = %v, want %q", got, want)
	}
}

func TestClaudeFormatterHookRunsUnmodified(t *testing.T) {
	t.Parallel()
	needPrograms(t, "bash", "jq", "gofmt", "xargs")
	e := newEnv(t)
	e.withSettings(map[string]any{"hooks": map[string]any{"PostToolUse": []any{
		claudeHook(t, "Edit|Write", "format-go.sh"),
		claudeHook(t, "Write", "echo-input.sh"),
		// The documentation's one-liner, with gofmt for prettier.
		map[string]any{"matcher": "Edit", "hooks": []any{map[string]any{"type": "command", "command": "jq -r '.tool_input.file_path' | xargs gofmt -w"}}},
	}}})
	e.writeFile("b.go", "package b\n\nvar X = 1\n")
	s := e.script(calls(
		call("Write", map[string]any{"filePath": "main.go", "content": "package main\nfunc  main( ) {  }\n"}),
		call("Edit", map[string]any{"file_path": "b.go", "old_string": "var X = 1", "new_string": "var   Y=2"}),
	), answer("done"))
	r := e.must("", "run", "--provider", "script", "--script", s, "--permission-mode", "acceptEdits", "go")
	if got := e.read("main.go"); got != "package main\n\nfunc main() {}\n" {
		t.Errorf("main.go = %q: the formatter hook did not run on it", got)
	}
	if got := e.read("b.go"); got != "package b\n\nvar Y = 2\n" {
		t.Errorf("b.go = %q: the documented one-liner did not format it", got)
	}
	// What the hooks printed at exit 0 is not the model's to read, and the
	// echoed input (stdout starting with "{") is no error.
	for id, res := range e.toolResults(e.onlySession()) {
		if res["success"] != true || res["hookFeedback"] != nil {
			t.Errorf("%s result = %v: plain stdout of PostToolUse reached the model", id, res)
		}
	}
	if strings.Contains(r.stderr, "cannot read") {
		t.Errorf("stderr = %q", r.stderr)
	}
}

func TestClaudeCommandValidatorHookRunsUnmodified(t *testing.T) {
	t.Parallel()
	needPrograms(t, "python3")
	e := newEnv(t)
	abs, _ := filepath.Abs(filepath.Join("testdata", "hooks", "claude", "validate-bash.py"))
	e.withSettings(map[string]any{"hooks": map[string]any{"PreToolUse": []any{
		map[string]any{"matcher": "Bash", "hooks": []any{map[string]any{"type": "command", "command": "python3 " + abs}}},
	}}})
	s := e.script(calls(
		call("Bash", map[string]any{"command": "grep -r TODO . > found.txt"}),
		call("Bash", map[string]any{"command": "echo ok > ran.txt"}),
	), answer("done"))
	e.must("", "run", "--provider", "script", "--script", s, "--permission-mode", "bypassPermissions", "go")
	if e.exists("found.txt") || e.read("ran.txt") != "ok\n" {
		t.Fatalf("found.txt exists %v, ran.txt %q", e.exists("found.txt"), e.read("ran.txt"))
	}
	if got := e.toolResults(e.onlySession())["call_0_0"]["error"]; got != "Blocked by hook: - use rg instead of grep" {
		t.Fatalf("result error = %v", got)
	}
}

// A ralph-style loop: the Stop hook reads the transcript's last assistant
// line and sends the model back until it makes its promise.
func TestClaudeStopHookReadingTheTranscriptRunsUnmodified(t *testing.T) {
	t.Parallel()
	needPrograms(t, "bash", "jq", "sed", "grep")
	e := newEnv(t)
	e.writeFile(".claude/loop.local", "iteration: 0\nmax_iterations: 5\n")
	e.withSettings(map[string]any{"hooks": map[string]any{"Stop": []any{claudeHook(t, "", "promise-loop.sh")}}})
	s := e.script(answer("working on it"), answer("still going"), answer("all set <promise>DONE</promise>"))
	r := e.must("", "run", "--provider", "script", "--script", s, "go")
	if r.stdout != "all set <promise>DONE</promise>\n" || e.exists(".claude/loop.local") {
		t.Fatalf("%s; state file left: %v", r, e.exists(".claude/loop.local"))
	}
	if !strings.Contains(r.stderr, "loop iteration 2") {
		t.Errorf("stderr = %q: the hook's systemMessage is for the user", r.stderr)
	}
	id := e.onlySession()
	msgs := e.messages(id)
	if got := msgs[3]["content"]; got != "Stop hook feedback:\nkeep going: iteration 1, last said: working on it" {
		t.Errorf("feedback = %q", got)
	}
	// The transcript is complete at Stop: its last assistant line is the
	// final answer, and user and assistant lines alternate as said.
	lines := e.transcript(id)
	var roles []string
	for _, l := range lines {
		roles = append(roles, l["message"].(map[string]any)["role"].(string))
	}
	if strings.Join(roles, " ") != "user assistant user assistant user assistant" {
		t.Errorf("transcript roles = %v", roles)
	}
	last := lines[len(lines)-1]["message"].(map[string]any)["content"].([]any)[0].(map[string]any)
	if last["text"] != "all set <promise>DONE</promise>" {
		t.Errorf("last assistant block = %v", last)
	}
}

// A hookify-style Stop rule reads the whole transcript: tool calls count.
func TestClaudeStopHookRequiringATestRunRunsUnmodified(t *testing.T) {
	t.Parallel()
	needPrograms(t, "python3")
	e := newEnv(t)
	abs, _ := filepath.Abs(filepath.Join("testdata", "hooks", "claude", "require-tests.py"))
	e.withSettings(map[string]any{"hooks": map[string]any{"Stop": []any{
		map[string]any{"hooks": []any{map[string]any{"type": "command", "command": "python3 " + abs}}},
	}}})
	s := e.script(answer("done"), calls(call("Bash", map[string]any{"command": "echo go test ./... passed"})), answer("tests pass"))
	r := e.must("", "run", "--provider", "script", "--script", s, "go")
	if r.stdout != "tests pass\n" {
		t.Fatalf("%s", r)
	}
	if got := e.messages(e.onlySession())[3]["content"]; got != "Stop hook feedback:\nRun the tests before you stop." {
		t.Errorf("feedback = %q", got)
	}
}

func TestClaudeSessionStartHookWritingTheEnvFileRunsUnmodified(t *testing.T) {
	t.Parallel()
	needPrograms(t, "bash", "jq")
	e := newEnv(t)
	e.withSettings(map[string]any{"hooks": map[string]any{"SessionStart": []any{claudeHook(t, "", "session-env.sh")}}})
	s := e.script(calls(call("Bash", map[string]any{"command": `echo "$HOOKED_SESSION_ID $HOOKED_GREETING" > env.txt`})), answer("done"),
		calls(call("Bash", map[string]any{"command": `echo "$HOOKED_GREETING" > again.txt`})), answer("done"))
	e.must("", "run", "--provider", "script", "--script", s, "--allow-tool", "Bash", "go")
	id := e.onlySession()
	if got := e.read("env.txt"); got != id+" hello from SessionStart\n" {
		t.Fatalf("env.txt = %q", got)
	}
	// resume runs SessionStart (source resume) again, with a fresh file.
	e.must("", "resume", id, "--allow-tool", "Bash", "again")
	if got := e.read("again.txt"); got != "hello from SessionStart\n" {
		t.Fatalf("again.txt = %q", got)
	}
}

func TestClaudeJSONDenyHookRunsUnmodified(t *testing.T) {
	t.Parallel()
	needPrograms(t, "bash", "jq")
	e := newEnv(t)
	e.writeFile("prod.env.op", "op://vault/item\n")
	e.withSettings(map[string]any{"hooks": map[string]any{"PreToolUse": []any{claudeHook(t, "Read", "deny-op-env.sh")}}})
	s := e.script(calls(call("Read", map[string]any{"filePath": "prod.env.op"})), answer("done"))
	e.must("", "run", "--provider", "script", "--script", s, "go")
	want := "Blocked by hook: 1Password references stay out: " + filepath.Join(e.cwd, "prod.env.op")
	if got := e.toolResults(e.onlySession())["call_0_0"]["error"]; got != want {
		t.Fatalf("result error = %v, want %q", got, want)
	}
}

// After a manual trail compact, a SessionStart hook with matcher compact
// runs, and what it prints reaches the next step's prompt.
func TestClaudeCompactReminderReachesTheNextStep(t *testing.T) {
	t.Parallel()
	needPrograms(t, "bash")
	e := newEnv(t)
	e.withSettings(map[string]any{"hooks": map[string]any{"SessionStart": []any{claudeHook(t, "compact", "compact-reminder.sh")}}})
	s := e.script(answer("first"), answer("a summary"), answer("after"))
	e.must("", "run", "--provider", "script", "--script", s, "go")
	id := e.onlySession()
	e.must("", "compact", id, "--provider", "script", "--script", s)
	if _, ok := e.record(id)["pendingHookContext"]; !ok {
		t.Fatal("the record does not keep the compact hook's context")
	}
	// The transcript the hook could read starts over from the summary.
	if lines := e.transcript(id); len(lines) != 1 || lines[0]["type"] != "assistant" ||
		lines[0]["message"].(map[string]any)["content"].([]any)[0].(map[string]any)["text"] != "[Context Summary]\na summary" {
		t.Fatalf("transcript after compaction = %v", lines)
	}
	e.must("", "resume", id, "--provider", "script", "--script", s, "next")
	msgs := e.messages(id)
	want := "<system-reminder>\nReminder after compaction: run make test before you finish.\n</system-reminder>\nnext"
	if got := msgs[len(msgs)-2]["content"]; got != want {
		t.Fatalf("prompt = %q, want %q", got, want)
	}
	if _, ok := e.record(id)["pendingHookContext"]; ok {
		t.Fatal("the context was kept after it was used")
	}
}

// The transcript hooks read, line by line: Claude Code's entry shapes, a
// parentUuid chain, tool calls in Claude's names with their structured
// results, and no secret (it is redacted as the record is).
func TestTranscriptHasClaudeCodesEntryFormat(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	const key = "sk-ant-api03-transcriptsecret0123456789abcdef"
	e.setenv("ANTHROPIC_API_KEY=" + key)
	e.writeFile("a.txt", "hello\n")
	e.withHooks(map[string][]map[string]any{"Stop": {{"hooks": []any{map[string]any{"type": "command", "command": "true"}}}}})
	s := e.script(calls(call("Read", map[string]any{"filePath": "a.txt"})), answer("it says hello"))
	e.must("", "run", "--provider", "script", "--script", s, "the key is "+key)
	id := e.onlySession()
	lines := e.transcript(id)
	if len(lines) != 4 {
		t.Fatalf("%d lines, want prompt, tool_use, tool_result, answer: %v", len(lines), lines)
	}
	parent := any(nil)
	for i, l := range lines {
		if l["parentUuid"] != parent || l["sessionId"] != id || l["cwd"] != e.cwd || l["uuid"] == "" || l["timestamp"] == "" || l["isSidechain"] != false {
			t.Errorf("line %d = %v", i, l)
		}
		parent = l["uuid"]
	}
	msg := func(i int) map[string]any { return lines[i]["message"].(map[string]any) }
	if lines[0]["type"] != "user" || msg(0)["content"] != "the key is [REDACTED]" {
		t.Errorf("prompt line = %v", lines[0])
	}
	use := msg(1)["content"].([]any)[0].(map[string]any)
	if lines[1]["type"] != "assistant" || use["type"] != "tool_use" || use["input"].(map[string]any)["file_path"] != filepath.Join(e.cwd, "a.txt") || msg(1)["stop_reason"] != "tool_use" {
		t.Errorf("tool_use line = %v", lines[1])
	}
	res := msg(2)["content"].([]any)[0].(map[string]any)
	out, _ := lines[2]["toolUseResult"].(map[string]any)
	if res["type"] != "tool_result" || res["tool_use_id"] != "call_0_0" || res["is_error"] != false || out["type"] != "text" {
		t.Errorf("tool_result line = %v", lines[2])
	}
	if text := msg(3)["content"].([]any)[0].(map[string]any)["text"]; text != "it says hello" || msg(3)["stop_reason"] != "end_turn" {
		t.Errorf("answer line = %v", lines[3])
	}
	if b, _ := os.ReadFile(filepath.Join(e.home, "transcripts", id+".jsonl")); strings.Contains(string(b), key) {
		t.Error("the transcript holds the API key")
	}
}

// On a terminal, dontAsk still asks nobody: what would need approval is
// denied, and a read-only command runs without a question.
func TestDontAskNeverAsksOnATerminal(t *testing.T) {
	e := newEnv(t)
	e.withSettings(map[string]any{"permissions": map[string]any{"defaultMode": "dontAsk"}})
	s := e.script(calls(call("Bash", map[string]any{"command": "touch made"}), call("Bash", map[string]any{"command": "ls"})), answer("done"))
	tr := e.startOnTerminal("run", "--provider", "script", "--script", s, "go")
	code, shown := tr.wait()
	if code != 0 || e.exists("made") || strings.Contains(shown, "[y/a/N]") {
		t.Fatalf("exit %d, made %v:\n%s", code, e.exists("made"), shown)
	}
	if d := e.decisions(e.onlySession()); d["call_0_0"] != "deny" || d["call_0_1"] != "allow" {
		t.Fatalf("decisions %v", d)
	}
}

// A call that waits for a person fires Claude Code's Notification hooks
// (notification_type permission_prompt), once for the round: a notifier
// pings the user that a paused session needs a decision. A matcher of
// another type does not run.
func TestNotificationHooksHearOfAWaitForApproval(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.writeFile(".claude/settings.json", `{"hooks":{"Notification":[
		{"matcher":"permission_prompt","hooks":[{"type":"command","command":"cat >> notified.jsonl; echo >> notified.jsonl"}]},
		{"matcher":"idle_prompt","hooks":[{"type":"command","command":"touch idle"}]}]}}`)
	s := e.script(calls(call("Bash", map[string]any{"command": "touch a"}), call("Bash", map[string]any{"command": "touch b"})), answer("done"))
	if r := e.run("", "run", "--on-ask", "pause", "--provider", "script", "--script", s, "go"); r.code != 4 {
		t.Fatalf("%s", r)
	}
	lines := strings.Split(strings.TrimSpace(e.read("notified.jsonl")), "\n")
	if len(lines) != 1 || e.exists("idle") {
		t.Fatalf("notifications %q, idle hook ran %v", lines, e.exists("idle"))
	}
	var in map[string]any
	if err := json.Unmarshal([]byte(lines[0]), &in); err != nil {
		t.Fatal(err)
	}
	if in["hook_event_name"] != "Notification" || in["notification_type"] != "permission_prompt" || in["message"] != "trail needs your permission to use Bash" {
		t.Errorf("input %v", in)
	}
	// Denied at once (no terminal, no pause): no one is waited for.
	e.must("", "run", "--provider", "script", "--script", s, "go")
	if got := strings.Count(e.read("notified.jsonl"), "\n"); got != 1 {
		t.Errorf("a denial without a wait notified: %d lines", got)
	}
}

// What scripts written for Claude Code's transcript read from it: a tool
// result's plain output (not trail's JSON envelope), usage split as the
// API splits it (input_tokens without the cache), and a UUID on every
// line, also on the second block of a turn.
func TestTranscriptReadsAsClaudeCodesForScripts(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.writeFile("a.txt", "hello\n")
	e.withHooks(map[string][]map[string]any{"Stop": {{"hooks": []any{map[string]any{"type": "command", "command": "true"}}}}})
	turn := calls(call("Bash", map[string]any{"command": "cat a.txt; echo oops >&2; exit 3"}))
	turn["text"] = "let me look"
	turn["usage"] = map[string]any{"inputTokens": 1000, "outputTokens": 20, "cacheReadInputTokens": 600, "cacheCreationInputTokens": 100}
	s := e.script(turn, answer("done"))
	e.must("", "run", "--provider", "script", "--script", s, "--allow-tool", "Bash", "go")
	lines := e.transcript(e.onlySession())
	if len(lines) != 5 {
		t.Fatalf("%d lines, want prompt, text, tool_use, tool_result, answer: %v", len(lines), lines)
	}
	for i, l := range lines {
		if _, err := uuid.Parse(l["uuid"].(string)); err != nil {
			t.Errorf("line %d uuid %q: %v", i, l["uuid"], err)
		}
	}
	usage := lines[1]["message"].(map[string]any)["usage"].(map[string]any)
	if usage["input_tokens"] != 300.0 || usage["cache_read_input_tokens"] != 600.0 || usage["cache_creation_input_tokens"] != 100.0 || usage["output_tokens"] != 20.0 {
		t.Errorf("usage %v", usage)
	}
	res := lines[3]["message"].(map[string]any)["content"].([]any)[0].(map[string]any)
	if c, _ := res["content"].(string); !strings.HasPrefix(c, "hello\n") || !strings.Contains(c, "oops") || strings.Contains(c, `"success"`) || res["is_error"] != true {
		t.Errorf("tool_result %v", res)
	}
}
