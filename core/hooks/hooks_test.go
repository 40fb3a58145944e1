package hooks

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"trail/core/permission"
	"trail/core/settings"
)

func TestParseHookOutput(t *testing.T) {
	tests := []struct {
		name   string
		event  string
		stdout string
		want   Outcome
		block  bool
	}{
		{"plain text is context", UserPromptSubmit, "remember the rules\n", Outcome{Context: []string{"remember the rules"}}, false},
		{"continue false stops with its reason", PreToolUse, `{"continue":false,"stopReason":"enough"}`,
			Outcome{Blocked: true, Reason: "enough", Stop: true, StopReason: "enough"}, true},
		{"decision block blocks with its reason", UserPromptSubmit, `{"decision":"block","reason":"no secrets"}`,
			Outcome{Blocked: true, Reason: "no secrets"}, true},
		{"permissionDecision allow", PreToolUse, `{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"allow","permissionDecisionReason":"safe"}}`,
			Outcome{Permission: permission.DecisionAllow, PermissionReason: "safe"}, false},
		{"permissionDecision deny stops further hooks", PreToolUse, `{"hookSpecificOutput":{"permissionDecision":"deny","permissionDecisionReason":"no"}}`,
			Outcome{Permission: permission.DecisionDeny, PermissionReason: "no"}, true},
		{"permissionDecision ask", PreToolUse, `{"hookSpecificOutput":{"permissionDecision":"ask"}}`,
			Outcome{Permission: permission.DecisionAsk}, false},
		{"an unknown permissionDecision is ignored", PreToolUse, `{"hookSpecificOutput":{"permissionDecision":"maybe"}}`,
			Outcome{}, false},
		{"permissionDecision outside PreToolUse is ignored", PostToolUse, `{"hookSpecificOutput":{"permissionDecision":"deny"}}`,
			Outcome{}, false},
		{"the older approve spelling allows", PreToolUse, `{"decision":"approve"}`, Outcome{Permission: permission.DecisionAllow}, false},
		{"updatedInput replaces the arguments", PreToolUse, `{"hookSpecificOutput":{"permissionDecision":"allow","updatedInput":{"command":"echo safe"}}}`,
			Outcome{Permission: permission.DecisionAllow, UpdatedInput: json.RawMessage(`{"command":"echo safe"}`)}, false},
		{"updatedInput that is not an object is ignored", PreToolUse, `{"hookSpecificOutput":{"updatedInput":"rm"}}`, Outcome{}, false},
		{"additionalContext is context", SessionStart, `{"hookSpecificOutput":{"hookEventName":"SessionStart","additionalContext":"branch main"}}`,
			Outcome{Context: []string{"branch main"}}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var out Outcome
			parsed, isJSON, err := parseAnswer([]byte(tt.stdout))
			if err != nil {
				t.Fatal(err)
			}
			block := false
			if isJSON {
				block = out.apply(tt.event, parsed)
			} else {
				out.Context = append(out.Context, strings.TrimSpace(tt.stdout))
			}
			if block != tt.block {
				t.Errorf("blocked = %v, want %v", block, tt.block)
			}
			g, _ := json.Marshal(out)
			w, _ := json.Marshal(tt.want)
			if string(g) != string(w) {
				t.Errorf("got %s\nwant %s", g, w)
			}
		})
	}
	if _, _, err := parseAnswer([]byte(`{"continue":"no"}`)); err == nil {
		t.Error("a wrongly typed field was accepted")
	}
}

func TestPermissionPriorityAcrossHooks(t *testing.T) {
	var out Outcome
	out.apply(PreToolUse, &answerJSON{HookSpecificOutput: &specificJSON{PermissionDecision: "allow"}})
	out.apply(PreToolUse, &answerJSON{HookSpecificOutput: &specificJSON{PermissionDecision: "ask", PermissionDecisionReason: "check"}})
	out.apply(PreToolUse, &answerJSON{HookSpecificOutput: &specificJSON{PermissionDecision: "allow"}})
	if out.Permission != permission.DecisionAsk || out.PermissionReason != "check" {
		t.Errorf("got %s %q, want ask to beat allow", out.Permission, out.PermissionReason)
	}
}

// Claude Code's matcher table: exact names and lists for plain words, an
// unanchored regular expression for anything else; StopFailure's narrower set.
func TestMatcherAccepts(t *testing.T) {
	tests := []struct {
		event, matcher, target string
		want                   bool
	}{
		{PreToolUse, "", "Bash", true},
		{PreToolUse, "*", "Bash", true},
		{PreToolUse, "Bash", "Bash", true},
		{PreToolUse, "Edit|Write", "Write", true},
		{PreToolUse, "Edit|Write", "Bash", false},
		{PreToolUse, "Edit, Bash", "Bash", true}, // a comma list, spaces around
		{PreToolUse, "Edit , Write", "Write", true},
		{PreToolUse, "ash", "Bash", false}, // plain words are exact, not a search
		{PreToolUse, "code-reviewer", "senior-code-reviewer", false},
		{PreToolUse, "Edit.*", "NotebookEdit", true}, // a regexp is unanchored
		{PreToolUse, "^Bash$", "BashX", false},
		{PreToolUse, "mcp__memory__.*", "mcp__memory__save", true},
		{PreToolUse, "mcp__memory", "mcp__memory__save", false},
		{PreToolUse, "(", "(", true}, // not a regexp: exact text
		{PreToolUse, "(", "Bash", false},
		{StopFailure, "rate_limit|overloaded", "overloaded", true},
		{StopFailure, "rate_limit, overloaded", "overloaded", false}, // a regexp for StopFailure: ", " is text
		{StopFailure, "rate_limit, overloaded", "rate_limit", false},
		{StopFailure, "server_error", "server_error", true},
		{StopFailure, "server", "server_error", false},
	}
	for _, tt := range tests {
		if got := matcherAccepts(tt.event, tt.matcher, tt.target); got != tt.want {
			t.Errorf("%s matcher %q on %q = %v, want %v", tt.event, tt.matcher, tt.target, got, tt.want)
		}
	}
}

func runner(t *testing.T, event string, groups ...settings.HookMatcher) (*Runner, *[]Execution, *[]string) {
	t.Helper()
	runs, msgs := &[]Execution{}, &[]string{}
	return &Runner{
		Hooks:     map[string][]settings.HookMatcher{event: groups},
		SessionID: "s1", TranscriptPath: "/t/s1.json", Cwd: t.TempDir(), PermissionMode: permission.ModeDefault,
		Env:       []string{"FROM_SETTINGS=yes"},
		OnRun:     func(r Execution) { *runs = append(*runs, r) },
		OnMessage: func(s string) { *msgs = append(*msgs, s) },
	}, runs, msgs
}

func cmd(c string) settings.HookCommand { return settings.HookCommand{Type: "command", Command: c} }

func TestHookRunnerExitCodes(t *testing.T) {
	h, runs, msgs := runner(t, PreToolUse,
		settings.HookMatcher{Matcher: "Write", Hooks: []settings.HookCommand{cmd("echo never")}},
		settings.HookMatcher{Matcher: "Ba.*", Hooks: []settings.HookCommand{cmd("echo context"), cmd("echo oops >&2; exit 1"), cmd("echo no rm >&2; exit 2"), cmd("echo after")}},
	)
	out := h.Run(context.Background(), PreToolUse, PreToolUseInput(Call{Name: "Bash", ID: "c1", Input: json.RawMessage(`{"command":"rm x"}`)}))
	if !out.Blocked || out.Reason != "no rm" {
		t.Fatalf("outcome %+v", out)
	}
	if len(*runs) != 3 || (*runs)[2].ExitCode != 2 || !(*runs)[2].Blocked || (*runs)[1].Blocked {
		t.Fatalf("runs %+v: the hook after the block must not run", *runs)
	}
	if len(out.Plain) != 1 || out.Plain[0] != "context" || len(out.Context) != 0 {
		t.Errorf("plain %q context %q: plain stdout is not additionalContext", out.Plain, out.Context)
	}
	if len(*msgs) != 1 || !strings.Contains((*msgs)[0], "exited 1: oops") {
		t.Errorf("messages %q", *msgs)
	}
}

func TestHookExit2OnAnEventThatCannotBlockIsShown(t *testing.T) {
	for _, event := range []string{SessionStart, SessionEnd, PostCompact} {
		h, runs, msgs := runner(t, event, settings.HookMatcher{Hooks: []settings.HookCommand{cmd("echo not ready >&2; exit 2"), cmd("echo after")}})
		out := h.Run(context.Background(), event, Input{})
		if len(*msgs) != 1 || !strings.Contains((*msgs)[0], "exited 2: not ready") {
			t.Errorf("%s: messages %q, want the hook's stderr shown", event, *msgs)
		}
		if out.Blocked || len(*runs) != 2 || (*runs)[0].Blocked {
			t.Errorf("%s: outcome %+v runs %+v", event, out, *runs)
		}
	}
}

func TestHookRunnerInputAndEnv(t *testing.T) {
	h, _, _ := runner(t, PostToolUse, settings.HookMatcher{Hooks: []settings.HookCommand{cmd(`cat > in.json; env > env.txt`)}})
	h.Run(context.Background(), PostToolUse, PostToolUseInput(Call{Name: "Read", ID: "c9", Input: json.RawMessage(`{"file_path":"/p/a"}`)}, json.RawMessage(`{"type":"text"}`), 12*time.Millisecond))
	b, err := os.ReadFile(filepath.Join(h.Cwd, "in.json"))
	if err != nil {
		t.Fatal(err)
	}
	want := `{"session_id":"s1","transcript_path":"/t/s1.json","cwd":"` + h.Cwd + `","permission_mode":"default","hook_event_name":"PostToolUse","tool_name":"Read","tool_input":{"file_path":"/p/a"},"tool_response":{"type":"text"},"tool_use_id":"c9","duration_ms":12}`
	if string(b) != want {
		t.Errorf("stdin\n got %s\nwant %s", b, want)
	}
	env, _ := os.ReadFile(filepath.Join(h.Cwd, "env.txt"))
	for _, kv := range []string{"TRAIL_SESSION_ID=s1", "CLAUDE_SESSION_ID=s1", "CLAUDE_CODE_SESSION_ID=s1", "CLAUDECODE=1", "TRAIL_PROJECT_DIR=" + h.Cwd, "CLAUDE_PROJECT_DIR=" + h.Cwd, "FROM_SETTINGS=yes"} {
		if !strings.Contains(string(env), kv+"\n") {
			t.Errorf("env lacks %s", kv)
		}
	}
	if strings.Contains(string(env), "CLAUDE_ENV_FILE") {
		t.Error("CLAUDE_ENV_FILE reached a PostToolUse hook: it is SessionStart's")
	}
}

func TestHookRunnerTimeoutKillsTheGroup(t *testing.T) {
	h, runs, msgs := runner(t, Stop, settings.HookMatcher{Hooks: []settings.HookCommand{{Command: "(sleep 30; touch late) & sleep 30", Timeout: 0.3}}})
	start := time.Now()
	out := h.Run(context.Background(), Stop, StopInput("done", false))
	if time.Since(start) > 5*time.Second {
		t.Fatalf("took %s", time.Since(start))
	}
	if out.Blocked || len(*runs) != 1 || !(*runs)[0].TimedOut || (*runs)[0].ExitCode != -1 {
		t.Fatalf("outcome %+v runs %+v", out, *runs)
	}
	if len(*msgs) != 1 || !strings.Contains((*msgs)[0], "timed out") {
		t.Errorf("messages %q", *msgs)
	}
}

func TestHookRunnerSkipsEventsWithoutHooksAndMatchesTargets(t *testing.T) {
	h, runs, _ := runner(t, SessionEnd,
		settings.HookMatcher{Matcher: "clear", Hooks: []settings.HookCommand{cmd("true")}},
		settings.HookMatcher{Matcher: "other", Hooks: []settings.HookCommand{cmd("true")}})
	h.Run(context.Background(), SessionEnd, SessionEndInput("other"))
	h.Run(context.Background(), Stop, StopInput("x", false))
	if len(*runs) != 1 {
		t.Fatalf("runs %+v", *runs)
	}
	// Events without a target ignore matchers.
	h2, runs2, _ := runner(t, UserPromptSubmit, settings.HookMatcher{Matcher: "Bash", Hooks: []settings.HookCommand{cmd("true")}})
	h2.Run(context.Background(), UserPromptSubmit, UserPromptSubmitInput("hi"))
	if len(*runs2) != 1 {
		t.Fatalf("UserPromptSubmit with a matcher did not run: %+v", *runs2)
	}
}

// A hook's duration is measured with the runner's clock, so the engine's
// injected clock decides what hook_run's durationMs says.
func TestHookDurationComesFromTheInjectedClock(t *testing.T) {
	h, runs, _ := runner(t, Stop, settings.HookMatcher{Hooks: []settings.HookCommand{cmd("true")}})
	t0 := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	ticks := 0
	h.Now = func() time.Time { ticks++; return t0.Add(time.Duration(ticks) * 1500 * time.Millisecond) }
	h.Run(context.Background(), Stop, StopInput("x", false))
	if len(*runs) != 1 || (*runs)[0].Duration != 1500*time.Millisecond {
		t.Fatalf("runs %+v, want one of 1.5s", *runs)
	}
}

// A long hook command is quoted cut to 200 characters in what the user
// reads, however long the settings file made it.
func TestHookMessagesQuoteALongCommandCut(t *testing.T) {
	long := "exit 1 #" + strings.Repeat("x", 5000)
	h, _, msgs := runner(t, Stop, settings.HookMatcher{Hooks: []settings.HookCommand{cmd(long), {Type: "prompt" + strings.Repeat("y", 5000), Command: "true"}}})
	h.Run(context.Background(), Stop, StopInput("x", false))
	if len(*msgs) != 2 {
		t.Fatalf("messages %q", *msgs)
	}
	for _, m := range *msgs {
		if len(m) > 400 || !strings.Contains(m, " bytes)") {
			t.Errorf("message of %d bytes, want the input cut to 200 characters: %.300s", len(m), m)
		}
	}
}
