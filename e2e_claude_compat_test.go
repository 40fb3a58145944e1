package main_test

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
)

// compatRow is one case of Claude Code compatibility: a tool call the model
// makes, the settings (permissions and hooks, written as in
// .claude/settings.json) and the mode, and what must follow: the
// permission decision of each call and what the hooks did. The cases are
// those of the Claude Code compatibility issue, built from the examples of
// Claude Code's permissions and hooks documentation.
type compatRow struct {
	name     string
	settings map[string]any
	user     map[string]any // ~/.claude/settings.json
	mode     string
	files    map[string]string
	calls    []map[string]any // the model's first turn (none: it answers)
	after    []map[string]any // the script's later answers (default: "done")
	flags    []string
	code     int
	decide   map[string]string // tool call id -> decision logged
	check    func(t *testing.T, e *env, id string, r result)
}

// hooksOf builds settings hooks: event, matcher, command, in threes.
func hooksOf(spec ...string) map[string]any {
	h := map[string]any{}
	for i := 0; i+2 < len(spec); i += 3 {
		list, _ := h[spec[i]].([]any)
		h[spec[i]] = append(list, map[string]any{"matcher": spec[i+1], "hooks": []any{map[string]any{"type": "command", "command": spec[i+2]}}})
	}
	return map[string]any{"hooks": h}
}

// rules builds settings permissions.
func rules(allow, deny []string) map[string]any {
	p := map[string]any{}
	if allow != nil {
		p["allow"] = allow
	}
	if deny != nil {
		p["deny"] = deny
	}
	return map[string]any{"permissions": p}
}

// merge joins settings objects (hooks and permissions side by side).
func merge(ms ...map[string]any) map[string]any {
	out := map[string]any{}
	for _, m := range ms {
		for k, v := range m {
			out[k] = v
		}
	}
	return out
}

func bashCall(command string) map[string]any {
	return call("Bash", map[string]any{"command": command})
}

const (
	allowJSON = `echo '{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"allow"}}'`
	deferJSON = `echo '{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"defer"}}'`
)

func wantFile(name, content string) func(t *testing.T, e *env, id string, r result) {
	return func(t *testing.T, e *env, id string, r result) {
		t.Helper()
		if got := e.read(name); got != content {
			t.Errorf("%s = %q, want %q\n%s", name, got, content, r)
		}
	}
}

func wantWarning(text string) func(t *testing.T, e *env, id string, r result) {
	return func(t *testing.T, e *env, id string, r result) {
		t.Helper()
		if !strings.Contains(r.stderr, text) {
			t.Errorf("stderr = %q, want a warning with %q", r.stderr, text)
		}
	}
}

func TestClaudeCodeCompatibility(t *testing.T) {
	t.Parallel()
	needPrograms(t, "bash", "jq", "grep")
	envFile := map[string]string{".env": "ROOT=1\n", "config/.env": "KEY=secret\n", "a.txt": "hello\n", "src/a.go": "package a\n", "vendor/pkg/src/lib.go": "package lib\n", "keep.txt": "keep\n"}
	rows := []compatRow{
		// Hook input and environment
		{name: "a hook reads .tool_input.file_path, always absolute", mode: "acceptEdits",
			settings: hooksOf("PreToolUse", "Write", "jq -r .tool_input.file_path > seen.txt"),
			calls:    []map[string]any{call("Write", map[string]any{"filePath": "new.txt", "content": "x"})},
			check: func(t *testing.T, e *env, id string, r result) {
				wantFile("seen.txt", filepath.Join(e.cwd, "new.txt")+"\n")(t, e, id, r)
			}},
		{name: "Edit's tool_input has old_string, new_string and replace_all", mode: "acceptEdits",
			settings: hooksOf("PreToolUse", "Edit", `jq -c '.tool_input | [.old_string, .new_string, .replace_all]' > seen.txt`),
			calls:    []map[string]any{call("Edit", map[string]any{"filePath": "a.txt", "oldString": "hello", "newString": "bye", "replaceAll": true})},
			check:    wantFile("seen.txt", `["hello","bye",true]`+"\n")},
		{name: "Grep's tool_input has output_mode and -C",
			settings: hooksOf("PreToolUse", "Grep", `jq -c '.tool_input | [.output_mode, ."-C"]' > seen.txt`),
			calls:    []map[string]any{call("Grep", map[string]any{"pattern": "hello", "outputMode": "content", "contextLines": 2})},
			check:    wantFile("seen.txt", `["content",2]`+"\n")},
		{name: "Bash's tool_response has stdout, stderr, interrupted and isImage",
			settings: hooksOf("PostToolUse", "Bash", `jq -c '.tool_response | [.stdout, .stderr, .interrupted, .isImage]' > seen.txt`),
			calls:    []map[string]any{bashCall("echo hi")},
			check:    wantFile("seen.txt", `["hi\n","",false,false]`+"\n")},
		{name: "Write's tool_response has filePath and success", mode: "acceptEdits",
			settings: hooksOf("PostToolUse", "Write", `jq -c '.tool_response | [.filePath, .success, .type]' > seen.txt`),
			calls:    []map[string]any{call("Write", map[string]any{"filePath": "w.txt", "content": "x"})},
			check: func(t *testing.T, e *env, id string, r result) {
				wantFile("seen.txt", `["`+filepath.Join(e.cwd, "w.txt")+`",true,"create"]`+"\n")(t, e, id, r)
			}},
		{name: "updatedInput in Claude's names is mapped back to the tool's",
			settings: hooksOf("PreToolUse", "Write", `echo '{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"allow","updatedInput":{"file_path":"redirected.txt","content":"from the hook"}}}'`),
			calls:    []map[string]any{call("Write", map[string]any{"filePath": "asked.txt", "content": "x"})},
			decide:   map[string]string{"call_0_0": "allow"},
			check: func(t *testing.T, e *env, id string, r result) {
				if e.exists("asked.txt") || e.read("redirected.txt") != "from the hook" {
					t.Errorf("asked.txt exists %v, redirected.txt %q", e.exists("asked.txt"), e.read("redirected.txt"))
				}
				if p := e.events(id, "tool_execution_request")[0]["parameters"].(map[string]any); p["filePath"] != "redirected.txt" || p["file_path"] != nil {
					t.Errorf("logged parameters %v: the log keeps Robota's names", p)
				}
			}},
		{name: "a tool accepts the model's file_path",
			calls: []map[string]any{call("Read", map[string]any{"file_path": "a.txt"})},
			check: func(t *testing.T, e *env, id string, r result) {
				if out := e.toolResults(id)["call_0_0"]; out["success"] != true || !strings.Contains(out["output"].(string), "hello") {
					t.Errorf("Read with file_path = %v", out)
				}
			}},
		{name: "transcript_path exists from the first hook of the first step",
			settings: hooksOf("SessionStart", "startup", `test -f "$(jq -r .transcript_path)" && echo yes > seen.txt`),
			check:    wantFile("seen.txt", "yes\n")},
		{name: "the transcript holds the final answer at Stop",
			settings: hooksOf("Stop", "", `grep '"role":"assistant"' "$(jq -r .transcript_path)" | tail -n 1 | jq -r '.message.content[0].text' > seen.txt`),
			after:    []map[string]any{answer("the final answer")},
			check:    wantFile("seen.txt", "the final answer\n")},
		{name: "CLAUDE_ENV_FILE from SessionStart reaches later Bash calls",
			settings: hooksOf("SessionStart", "", `echo 'export FROM_HOOK=yes' >> "$CLAUDE_ENV_FILE"`),
			calls:    []map[string]any{bashCall(`echo "$FROM_HOOK" > seen.txt`)},
			flags:    []string{"--allow-tool", "Bash"},
			check:    wantFile("seen.txt", "yes\n")},
		{name: "a chat exporter reads the transcript line by line",
			settings: hooksOf("Stop", "", `t=$(jq -r .transcript_path); jq -r '"\(.message.role): \(.message.content | if type == "string" then . else map(.text) | join("") end)"' "$t" > chat.md`),
			after:    []map[string]any{answer("hello there")},
			check:    wantFile("chat.md", "user: go\nassistant: hello there\n")},
		{name: "StopFailure gets error, error_details and last_assistant_message", code: 6,
			settings: hooksOf("StopFailure", "rate_limit", `jq -c '[.error, .error_details, .last_assistant_message]' > seen.txt`),
			after:    []map[string]any{{"error": map[string]any{"status": 429, "message": "slow down"}}},
			flags:    []string{"--max-retries", "0"},
			check:    wantFile("seen.txt", `["rate_limit","429 Too Many Requests: slow down","API Error: script: 429 slow down"]`+"\n")},
		{name: "StopFailure is matched on the error type", code: 6,
			settings: hooksOf("StopFailure", "rate_limit", `touch seen.txt`),
			after:    []map[string]any{{"error": map[string]any{"status": 400, "message": "bad request"}}},
			check: func(t *testing.T, e *env, id string, r result) {
				if e.exists("seen.txt") {
					t.Error("a rate_limit StopFailure hook ran for an invalid request")
				}
			}},
		{name: "Stop gets background_tasks and session_crons, empty, and a prompt_id",
			settings: hooksOf("Stop", "", `jq -c '[.background_tasks, .session_crons, (.prompt_id | type), .stop_hook_active]' > seen.txt`),
			check:    wantFile("seen.txt", `[[],[],"string",false]`+"\n")},
		// Hook output
		{name: "PreToolUse additionalContext reaches the model beside the result",
			settings: hooksOf("PreToolUse", "Bash", `echo '{"hookSpecificOutput":{"hookEventName":"PreToolUse","additionalContext":"mind the tabs"}}'`),
			calls:    []map[string]any{bashCall("echo hi")},
			check: func(t *testing.T, e *env, id string, r result) {
				if got := e.toolResults(id)["call_0_0"]["hookFeedback"]; got != "mind the tabs" {
					t.Errorf("hookFeedback = %v", got)
				}
			}},
		{name: "plain stdout of a PostToolUse hook at exit 0 does not reach the model",
			settings: hooksOf("PostToolUse", "Bash", `echo lint says hello`),
			calls:    []map[string]any{bashCall("echo hi")},
			check: func(t *testing.T, e *env, id string, r result) {
				if got := e.toolResults(id)["call_0_0"]; got["hookFeedback"] != nil {
					t.Errorf("result = %v", got)
				}
			}},
		{name: "PostToolUse runs after a success only, PostToolUseFailure after a failure",
			settings: merge(hooksOf("PostToolUse", "Bash", `echo ok >> post.txt`, "PostToolUseFailure", "Bash", `jq -r .error >> failed.txt`)),
			calls:    []map[string]any{bashCall("echo hi"), bashCall("echo oops; exit 3")},
			flags:    []string{"--allow-tool", "Bash"},
			check: func(t *testing.T, e *env, id string, r result) {
				wantFile("post.txt", "ok\n")(t, e, id, r)
				wantFile("failed.txt", "Exit code 3\noops\n\n")(t, e, id, r)
			}},
		// "Claude Code only processes JSON on exit 0": a guard that printed
		// allow and then crashed approves nothing; the mode decides.
		{name: "exit 1 with valid JSON: the JSON is ignored and the mode decides",
			settings: hooksOf("PreToolUse", "Bash", `echo '{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"allow"}}'; echo crashed >&2; exit 1`),
			calls:    []map[string]any{bashCall("touch made")},
			decide:   map[string]string{"call_0_0": "deny"},
			check: func(t *testing.T, e *env, id string, r result) {
				if e.exists("made") || !strings.Contains(r.stderr, "exited 1: crashed; its JSON answer is ignored") {
					t.Errorf("made %v, stderr %q", e.exists("made"), r.stderr)
				}
			}},
		{name: "defer stops with the call pending (exit 4); resume asks the hook again", code: 4,
			settings: hooksOf("PreToolUse", "Bash", `if [ -f answered ]; then `+allowJSON+`; else `+deferJSON+`; fi`),
			calls:    []map[string]any{bashCall("touch made")},
			flags:    []string{"-o", "json"},
			decide:   map[string]string{"call_0_0": "ask"},
			check: func(t *testing.T, e *env, id string, r result) {
				res := jsonResult(t, r)
				d, _ := res["deferred_tool_use"].(map[string]any)
				if res["terminal_reason"] != "tool_deferred" || d["name"] != "Bash" || d["input"].(map[string]any)["command"] != "touch made" || e.exists("made") {
					t.Fatalf("result %v, made %v", res, e.exists("made"))
				}
				e.writeFile("answered", "")
				s := e.script(answer("(the first turn)"), answer("after")) // the k-th call of the session gets the k-th answer
				if r := e.run("", "resume", id, "--provider", "script", "--script", s); r.code != 0 || !e.exists("made") {
					t.Fatalf("resume: %s, made %v", r, e.exists("made"))
				}
			}},
		{name: "defer with several calls in the turn is ignored, with a warning",
			settings: hooksOf("PreToolUse", "Bash", deferJSON),
			calls:    []map[string]any{bashCall("touch a1"), bashCall("touch a2")},
			decide:   map[string]string{"call_0_0": "deny", "call_0_1": "deny"},
			check:    wantWarning("defer works for a single call")},
		// Matchers
		{name: "a comma-separated matcher list", mode: "bypassPermissions",
			settings: hooksOf("PreToolUse", "Edit, Bash", `touch hooked`),
			calls:    []map[string]any{bashCall("echo hi")},
			check: func(t *testing.T, e *env, id string, r result) {
				if !e.exists("hooked") {
					t.Error("the hook of matcher \"Edit, Bash\" did not run for Bash")
				}
			}},
		{name: "if spawns the hook only when its rule matches", mode: "bypassPermissions",
			settings: map[string]any{"hooks": map[string]any{"PreToolUse": []any{map[string]any{"matcher": "Bash", "hooks": []any{
				map[string]any{"type": "command", "if": "Bash(rm *)", "command": `jq -r .tool_input.command >> spawned.txt`}}}}}},
			calls: []map[string]any{bashCall("echo a"), bashCall("FOO=1 rm -f nothing")},
			check: wantFile("spawned.txt", "FOO=1 rm -f nothing\n")},
		{name: "Stop blocks continue the turn up to 8 consecutive times",
			settings: hooksOf("Stop", "", `echo '{"decision":"block","reason":"again"}'`),
			after:    []map[string]any{answer("1"), answer("2"), answer("3"), answer("4"), answer("5"), answer("6"), answer("7"), answer("8"), answer("9"), answer("10")},
			check: func(t *testing.T, e *env, id string, r result) {
				n := 0
				for _, m := range e.messages(id) {
					if m["role"] == "assistant" {
						n++
					}
				}
				if n != 9 || r.stdout != "9\n" || !strings.Contains(r.stderr, "8 times in a row") {
					t.Errorf("%d answers, %s; want the first and 8 continuations", n, r)
				}
			}},
		// Permission rules
		{name: "Bash(npm run test:*) does not allow npm run testing",
			settings: rules([]string{"Bash(npm run test:*)"}, nil),
			calls:    []map[string]any{bashCall("npm run testing")},
			decide:   map[string]string{"call_0_0": "deny"}},
		{name: "Bash(ls:*) does not allow lsof",
			settings: rules([]string{"Bash(ls:*)"}, nil),
			calls:    []map[string]any{bashCall("lsof -i")},
			decide:   map[string]string{"call_0_0": "deny"}},
		{name: "* anywhere in a Bash pattern",
			settings: rules([]string{"Bash(git -C * log:*)"}, nil),
			calls:    []map[string]any{bashCall("git -C . log -1 > /dev/null 2>&1; true")},
			decide:   map[string]string{"call_0_0": "deny"}}, // "true" is a second command no rule allows
		{name: "* anywhere in a Bash pattern allows the command it matches",
			settings: rules([]string{"Bash(git -C * log:*)"}, nil),
			calls:    []map[string]any{bashCall("git -C . log -1")},
			decide:   map[string]string{"call_0_0": "allow"}},
		{name: "Bash(*) allows any command",
			settings: rules([]string{"Bash(*)"}, nil),
			calls:    []map[string]any{bashCall("touch made && echo $(date) > /dev/null")},
			decide:   map[string]string{"call_0_0": "allow"}},
		{name: "a deny rule sees past an env assignment", mode: "bypassPermissions",
			settings: rules(nil, []string{"Bash(rm *)"}),
			calls:    []map[string]any{bashCall("FOO=bar rm -f keep.txt")},
			decide:   map[string]string{"call_0_0": "deny"},
			check:    wantFile("keep.txt", "keep\n")},
		{name: "a deny rule sees past timeout", mode: "bypassPermissions",
			settings: rules(nil, []string{"Bash(rm *)"}),
			calls:    []map[string]any{bashCall("timeout 30 rm -f keep.txt")},
			decide:   map[string]string{"call_0_0": "deny"},
			check:    wantFile("keep.txt", "keep\n")},
		{name: "an allow rule sees past nice and nohup",
			settings: rules([]string{"Bash(touch *)"}, nil),
			calls:    []map[string]any{bashCall("nice -n 5 nohup touch made")},
			decide:   map[string]string{"call_0_0": "allow"}},
		{name: "read-only ls and pwd run in default mode",
			calls:  []map[string]any{bashCall("ls -la"), bashCall("pwd")},
			decide: map[string]string{"call_0_0": "allow", "call_0_1": "allow"}},
		{name: "cat of a file the Read rules allow runs in default mode",
			settings: rules(nil, []string{"Read(.env)"}),
			calls:    []map[string]any{bashCall("cat a.txt")},
			decide:   map[string]string{"call_0_0": "allow"}},
		{name: "Read(.env) denies .env at any depth",
			settings: rules(nil, []string{"Read(.env)"}),
			calls:    []map[string]any{call("Read", map[string]any{"filePath": "config/.env"})},
			decide:   map[string]string{"call_0_0": "deny"}},
		{name: "Read(.env) stops cat config/.env though Bash(cat *) is allowed",
			settings: rules([]string{"Bash(cat *)"}, []string{"Read(.env)"}),
			calls:    []map[string]any{bashCall("cat config/.env")},
			decide:   map[string]string{"call_0_0": "deny"},
			check:    secretStaysOut},
		{name: "...under acceptEdits", mode: "acceptEdits",
			settings: rules([]string{"Bash(cat *)"}, []string{"Read(.env)"}),
			calls:    []map[string]any{bashCall("cat config/.env")},
			decide:   map[string]string{"call_0_0": "deny"},
			check:    secretStaysOut},
		{name: "...and under bypassPermissions", mode: "bypassPermissions",
			settings: rules(nil, []string{"Read(.env)"}),
			calls:    []map[string]any{bashCall("head -n 1 config/.env")},
			decide:   map[string]string{"call_0_0": "deny"},
			check:    secretStaysOut},
		{name: "Edit(/src/**) is relative to the settings file's project", mode: "acceptEdits",
			settings: rules(nil, []string{"Edit(/src/**)"}),
			calls: []map[string]any{
				call("Edit", map[string]any{"filePath": "src/a.go", "oldString": "package a", "newString": "package b"}),
				call("Edit", map[string]any{"filePath": "vendor/pkg/src/lib.go", "oldString": "package lib", "newString": "package lib2"}),
			},
			decide: map[string]string{"call_0_0": "deny", "call_0_1": "allow"}},
		{name: "a deny Edit(src/**) covers nested src folders", mode: "acceptEdits",
			settings: rules(nil, []string{"Edit(src/**)"}),
			calls:    []map[string]any{call("Edit", map[string]any{"filePath": "vendor/pkg/src/lib.go", "oldString": "package lib", "newString": "package lib2"})},
			decide:   map[string]string{"call_0_0": "deny"}},
		{name: "~/ is the home folder", mode: "bypassPermissions",
			settings: rules(nil, []string{"Read(~/notes/**)"}),
			check: func(t *testing.T, e *env, id string, r result) {
				e.writeFile(filepath.Join(e.user, "notes", "n.txt"), "n")
				s := e.script(answer("(the first turn)"), calls(call("Read", map[string]any{"filePath": filepath.Join(e.user, "notes", "n.txt")})), answer("done"))
				e.must("", "resume", id, "--provider", "script", "--script", s, "again")
				if d := e.decisions(id)["call_1_0"]; d != "deny" {
					t.Errorf("decision %q, want deny by Read(~/notes/**)", d)
				}
			}},
		{name: "// is the filesystem root", mode: "bypassPermissions",
			settings: rules(nil, []string{"Read(//etc/hostname)"}),
			calls:    []map[string]any{call("Read", map[string]any{"filePath": "/etc/hostname"})},
			decide:   map[string]string{"call_0_0": "deny"}},
		{name: "defaultMode dontAsk: a warning, and what would ask is denied",
			settings: map[string]any{"permissions": map[string]any{"defaultMode": "dontAsk"}},
			calls:    []map[string]any{bashCall("touch made"), call("Read", map[string]any{"filePath": "a.txt"})},
			decide:   map[string]string{"call_0_0": "deny", "call_0_1": "allow"},
			check:    wantWarning("dontAsk runs as default mode with every question denied")},
		{name: "defaultMode auto: a warning, and default mode",
			user:   map[string]any{"permissions": map[string]any{"defaultMode": "auto"}},
			calls:  []map[string]any{bashCall("touch made")},
			decide: map[string]string{"call_0_0": "deny"},
			check:  wantWarning("auto (a classifier approving calls) is not available")},
		{name: "defaultMode manual: a warning, and default mode",
			settings: map[string]any{"permissions": map[string]any{"defaultMode": "manual"}},
			calls:    []map[string]any{call("Write", map[string]any{"filePath": "w.txt", "content": "x"})},
			decide:   map[string]string{"call_0_0": "deny"},
			check:    wantWarning("manual is default mode")},
		{name: "mcp__* and mcp__server__* rules load and match MCP-named calls",
			settings: rules([]string{"mcp__github__get_*", "mcp__*"}, []string{"mcp__puppeteer", "mcp__*__delete_*"}),
			check:    wantWarning("allow rule mcp__* in")},
		{name: "disableBypassPermissionsMode refuses --permission-mode bypassPermissions", mode: "bypassPermissions", code: 2,
			settings: map[string]any{"permissions": map[string]any{"disableBypassPermissionsMode": "disable"}},
			check:    wantWarning("disabled by permissions.disableBypassPermissionsMode")},
		{name: "disableBypassPermissionsMode turns a bypassPermissions defaultMode into default",
			user:   map[string]any{"permissions": map[string]any{"disableBypassPermissionsMode": "disable", "defaultMode": "bypassPermissions"}},
			calls:  []map[string]any{bashCall("touch made")},
			decide: map[string]string{"call_0_0": "deny"},
			check:  wantWarning("bypassPermissions is disabled")},
		{name: "a project's defaultMode bypassPermissions is ignored, with one warning naming the file",
			settings: map[string]any{"permissions": map[string]any{"defaultMode": "bypassPermissions"}},
			calls:    []map[string]any{bashCall("touch made")},
			decide:   map[string]string{"call_0_0": "deny"},
			check:    projectModeIgnored("bypassPermissions", "default")},
		{name: "...and so is its auto; the user's mode stays in effect",
			settings: map[string]any{"permissions": map[string]any{"defaultMode": "auto"}},
			user:     map[string]any{"permissions": map[string]any{"defaultMode": "acceptEdits"}},
			calls:    []map[string]any{bashCall("touch made"), call("Write", map[string]any{"filePath": "w.txt", "content": "x"})},
			decide:   map[string]string{"call_0_0": "deny", "call_0_1": "allow"},
			check:    projectModeIgnored("auto", "acceptEdits")},
		{name: "~/.claude/settings.json may set bypassPermissions",
			user:   map[string]any{"permissions": map[string]any{"defaultMode": "bypassPermissions"}},
			calls:  []map[string]any{bashCall("touch made")},
			decide: map[string]string{"call_0_0": "allow"},
			check: func(t *testing.T, e *env, id string, r result) {
				if !e.exists("made") || strings.Contains(r.stderr, "warning") {
					t.Errorf("made %v\n%s", e.exists("made"), r)
				}
			}},
		{name: "--settings may set bypassPermissions",
			settings: map[string]any{"permissions": map[string]any{"defaultMode": "plan"}},
			files:    map[string]string{"../extra.json": `{"permissions":{"defaultMode":"bypassPermissions"}}`},
			flags:    []string{"--settings", "../extra.json"},
			calls:    []map[string]any{bashCall("touch made")},
			decide:   map[string]string{"call_0_0": "allow"}},
		{name: "settings keys Claude Code accepts do not stop a run",
			settings: map[string]any{"statusLine": map[string]any{"type": "command", "command": "echo x"}, "enabledPlugins": map[string]any{"a@b": true},
				"permissions": map[string]any{"additionalDirectories": []any{"../docs/"}, "ask": []any{"Bash(git push *)"}},
				"hooks":       map[string]any{"PermissionRequest": []any{}, "Notification": []any{map[string]any{"matcher": "permission_prompt", "hooks": []any{map[string]any{"type": "command", "command": "true"}}}}}}},
		// Print-mode output and flags
		{name: "-o json carries Claude's keys and tool_input in Claude's names",
			calls: []map[string]any{call("Write", map[string]any{"filePath": "w.txt", "content": "x"})},
			flags: []string{"-o", "json"},
			check: func(t *testing.T, e *env, id string, r result) {
				res := jsonResult(t, r)
				d := res["permission_denials"].([]any)[0].(map[string]any)["tool_input"].(map[string]any)
				if d["file_path"] != filepath.Join(e.cwd, "w.txt") || d["content"] != "x" {
					t.Errorf("denial tool_input = %v", d)
				}
				// The script model has no price: its usage is listed, its cost unknown.
				mu, _ := res["modelUsage"].(map[string]any)
				if res["terminal_reason"] != "completed" || res["uuid"] == "" || res["total_cost_usd"] != nil || mu["script"] == nil {
					t.Errorf("result = %v", res)
				}
			}},
		{name: "--allowedTools with space-separated rules, as Claude Code's docs write it",
			calls:  []map[string]any{bashCall("touch made")},
			flags:  []string{"--allowedTools", "Bash(git log *)", "Bash(touch *)", "Read"},
			decide: map[string]string{"call_0_0": "allow"}},
		{name: "--allowed-tools with a comma list",
			calls:  []map[string]any{bashCall("touch made"), call("Write", map[string]any{"filePath": "w.txt", "content": "x"})},
			flags:  []string{"--allowed-tools", "Bash,Write"},
			decide: map[string]string{"call_0_0": "allow", "call_0_1": "allow"}},
		{name: "--disallowedTools denies", mode: "bypassPermissions",
			calls:  []map[string]any{bashCall("touch made")},
			flags:  []string{"--disallowedTools", "Bash(touch *)"},
			decide: map[string]string{"call_0_0": "deny"}},
		{name: "--system-prompt and --append-system-prompt",
			flags: []string{"--system-prompt", "You are terse.", "--append-system-prompt", "Answer in French."},
			check: func(t *testing.T, e *env, id string, r result) {
				if sp := e.record(id)["systemPrompt"]; sp != "You are terse.\n\nAnswer in French." {
					t.Errorf("systemPrompt = %q", sp)
				}
			}},
		{name: "--output-format json",
			flags: []string{"--output-format", "json"},
			check: func(t *testing.T, e *env, id string, r result) {
				if res := jsonResult(t, r); res["type"] != "result" {
					t.Errorf("result = %v", res)
				}
			}},
		{name: "-c continues the latest session of the folder, -r ID resumes one",
			check: func(t *testing.T, e *env, id string, r result) {
				s := e.script(answer("(the first turn)"), answer("again"), answer("third"))
				if r := e.must("", "-c", "--provider", "script", "--script", s, "next"); r.stdout != "again\n" {
					t.Fatalf("-c: %s", r)
				}
				if r := e.must("", "-r", id, "--provider", "script", "--script", s, "third"); r.stdout != "third\n" {
					t.Fatalf("-r: %s", r)
				}
				if len(e.sessionIDs()) != 1 || len(e.messages(id)) != 7 {
					t.Fatalf("sessions %v, %d messages", e.sessionIDs(), len(e.messages(id)))
				}
			}},
	}
	runCompatRows(t, rows, envFile)
}

// runCompatRows runs each row as its own session: envFile and the row's
// files written, its settings in place, the scripted calls made.
func runCompatRows(t *testing.T, rows []compatRow, envFile map[string]string) {
	for _, row := range rows {
		t.Run(row.name, func(t *testing.T) {
			t.Parallel()
			e := newEnv(t)
			for name, content := range envFile {
				e.writeFile(name, content)
			}
			for name, content := range row.files {
				e.writeFile(name, content)
			}
			if row.settings != nil {
				e.withSettings(row.settings)
			}
			if row.user != nil {
				b, _ := json.Marshal(row.user)
				e.writeFile(filepath.Join(e.user, ".claude", "settings.json"), string(b))
			}
			var script []map[string]any
			if len(row.calls) > 0 {
				script = append(script, calls(row.calls...))
			}
			after := row.after
			if after == nil {
				after = []map[string]any{answer("done")}
			}
			s := e.script(append(script, after...)...)
			args := []string{"run", "--provider", "script", "--script", s}
			if row.mode != "" {
				args = append(args, "--permission-mode", row.mode)
			}
			args = append(append(args, row.flags...), "go")
			r := e.run("", args...)
			if r.code != row.code {
				t.Fatalf("exit %d, want %d\n%s", r.code, row.code, r)
			}
			id := ""
			if ids := e.sessionIDs(); len(ids) == 1 {
				id = ids[0]
			}
			if len(row.decide) > 0 {
				got := e.decisions(id)
				for callID, want := range row.decide {
					if got[callID] != want {
						t.Errorf("%s decision %q, want %q (all: %v)\n%s", callID, got[callID], want, got, r)
					}
				}
			}
			if row.check != nil {
				row.check(t, e, id, r)
			}
		})
	}
}

// projectModeIgnored: the step ran in mode, and one warning named the
// project's file and the mode it ignored there.
func projectModeIgnored(ignored, mode string) func(t *testing.T, e *env, id string, r result) {
	return func(t *testing.T, e *env, id string, r result) {
		t.Helper()
		want := "trail: warning: permissions.defaultMode " + ignored + " in " + filepath.Join(e.cwd, ".claude", "settings.json") + " is ignored: a project's settings may not set it"
		if strings.Count(r.stderr, "trail: warning: ") != 1 || !strings.Contains(r.stderr, want) || !strings.Contains(r.stderr, "; running in "+mode+" mode\n") || e.exists("made") {
			t.Errorf("want one warning %q, running in %s mode; made %v\n%s", want, mode, e.exists("made"), r)
		}
	}
}

// secretStaysOut: the .env value reached neither the model nor any file
// trail keeps.
func secretStaysOut(t *testing.T, e *env, id string, r result) {
	t.Helper()
	if out, _ := json.Marshal(e.toolResults(id)); strings.Contains(string(out), "KEY=secret") {
		t.Errorf("the tool result holds the secret: %s", out)
	}
}

// decisions maps each tool call id to the decision its last
// permission_decision logged.
func (e *env) decisions(id string) map[string]string {
	e.t.Helper()
	out := map[string]string{}
	for _, d := range e.events(id, "permission_decision") {
		out[d["toolCallId"].(string)] = d["decision"].(string)
	}
	return out
}
