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

func bash(command string) Call {
	args := json.RawMessage(`{"command":` + string(must(json.Marshal(command))) + `}`)
	return Call{Name: "Bash", ID: "c1", Input: args, Args: args}
}

func must(b []byte, err error) []byte {
	if err != nil {
		panic(err)
	}
	return b
}

// Claude Code reads a hook's JSON only on exit 0 ("Claude Code only
// processes JSON on exit 0. If you exit 2, any JSON is ignored."): a guard
// that printed allow and then crashed approves nothing, and its stderr is
// shown.
func TestJSONIsReadOnlyOnExit0(t *testing.T) {
	for _, d := range []string{"allow", "deny"} {
		h, _, msgs := runner(t, PreToolUse, settings.HookMatcher{Hooks: []settings.HookCommand{
			cmd(`echo '{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"` + d + `"}}'; echo crashed >&2; exit 1`),
		}})
		out := h.Run(context.Background(), PreToolUse, PreToolUseInput(bash("ls")))
		if out.Permission != "" || out.Blocked {
			t.Errorf("%s then exit 1: outcome %+v, want no decision", d, out)
		}
		if len(*msgs) != 1 || !strings.Contains((*msgs)[0], "exited 1: crashed; its JSON answer is ignored") {
			t.Errorf("%s then exit 1: messages %q", d, *msgs)
		}
	}
}

// Exit 2 blocks with stderr as the reason; JSON on stdout is ignored, its
// blocking reason and its allow alike.
func TestExit2ReasonIsStderr(t *testing.T) {
	for _, tt := range []struct{ command, reason string }{
		{`echo '{"decision":"block","reason":"from json"}'; echo from stderr >&2; exit 2`, "from stderr"},
		{`echo '{"hookSpecificOutput":{"permissionDecision":"allow"}}'; echo from stderr >&2; exit 2`, "from stderr"},
		{`echo '{"decision":"block","reason":"from json"}'; exit 2`, "blocked by PreToolUse hook"},
	} {
		h, _, _ := runner(t, PreToolUse, settings.HookMatcher{Hooks: []settings.HookCommand{cmd(tt.command)}})
		out := h.Run(context.Background(), PreToolUse, PreToolUseInput(bash("ls")))
		if !out.Blocked || out.Reason != tt.reason || out.Permission != "" {
			t.Errorf("%s: outcome %+v, want blocked by %q", tt.command, out, tt.reason)
		}
	}
}

// An answer with a value outside Claude Code's schema is refused whole and
// said so: a guard answering "Deny" must not pass for silence.
func TestAnAnswerTrailDoesNotKnowIsRefusedAloud(t *testing.T) {
	for _, tt := range []struct{ answer, want string }{
		{`{"hookSpecificOutput":{"permissionDecision":"Deny"}}`, `permissionDecision "Deny", which is not allow, deny, ask or defer`},
		{`{"hookSpecificOutput":{"permissionDecision":"allow","updatedInput":"rm -rf /"}}`, "an updatedInput that is not an object"},
		{`{"decision":"deny","reason":"no"}`, `decision "deny", which is not "block"`},
		{`{"continue":"false"}`, "continue must be true or false, not a string"},
		{`{"hookSpecificOutput":{"hookEventName":"PostToolUse","permissionDecision":"allow"}}`, `hookSpecificOutput for "PostToolUse", not "PreToolUse"`},
	} {
		h, _, msgs := runner(t, PreToolUse, settings.HookMatcher{Hooks: []settings.HookCommand{cmd("echo '" + tt.answer + "'")}})
		out := h.Run(context.Background(), PreToolUse, PreToolUseInput(bash("ls")))
		if out.Permission != "" || out.Blocked || out.UpdatedInput != nil {
			t.Errorf("%s: outcome %+v, want the answer ignored", tt.answer, out)
		}
		if len(*msgs) != 1 || !strings.Contains((*msgs)[0], tt.want) || !strings.Contains((*msgs)[0], "its answer is ignored") {
			t.Errorf("%s: messages %q, want %q", tt.answer, *msgs, tt.want)
		}
	}
}

// What one hook hands the model is capped at Claude Code's 10,000
// characters, with the cut marked and announced.
func TestHookTextIsCappedAt10000Characters(t *testing.T) {
	h, _, msgs := runner(t, UserPromptSubmit, settings.HookMatcher{Hooks: []settings.HookCommand{
		cmd(`yes x | head -n 50000 | tr -d '\n'`),
		cmd(`printf '{"hookSpecificOutput":{"hookEventName":"UserPromptSubmit","additionalContext":"%s"}}' "$(yes é | head -n 20000 | tr -d '\n')"`),
	}})
	out := h.Run(context.Background(), UserPromptSubmit, UserPromptSubmitInput("hi"))
	if len(out.Plain) != 1 || !strings.HasPrefix(out.Plain[0], strings.Repeat("x", 10000)+"\n[... 40000 more characters") {
		t.Fatalf("plain text not capped: %d bytes", len(out.Plain[0]))
	}
	if len(out.Context) != 1 || !strings.HasPrefix(out.Context[0], strings.Repeat("é", 10000)+"\n[... 10000 more characters") {
		t.Fatalf("context not capped by characters: %.40q…", out.Context)
	}
	if len(*msgs) != 2 || !strings.Contains((*msgs)[0], "cut to 10000 characters") {
		t.Errorf("messages %q", *msgs)
	}
}

func TestDeferRanksBetweenDenyAndAsk(t *testing.T) {
	var out Outcome
	for _, d := range []string{"allow", "defer", "ask"} {
		out.apply(PreToolUse, &answerJSON{HookSpecificOutput: &specificJSON{PermissionDecision: d}})
	}
	if out.Permission != DecisionDefer {
		t.Fatalf("got %s, want defer over ask and allow", out.Permission)
	}
	out.apply(PreToolUse, &answerJSON{HookSpecificOutput: &specificJSON{PermissionDecision: "deny"}})
	if out.Permission != permission.DecisionDeny {
		t.Fatalf("got %s, want deny over defer", out.Permission)
	}
}

// The "if" field: the hook runs only when the call matches its rule, and
// on events that are not about a tool a hook with "if" never runs.
func TestIfFiltersWhichHooksSpawn(t *testing.T) {
	h, runs, _ := runner(t, PreToolUse, settings.HookMatcher{Matcher: "Bash", Hooks: []settings.HookCommand{
		{Command: "true", If: "Bash(rm *)"},
	}})
	h.Run(context.Background(), PreToolUse, PreToolUseInput(bash("ls -la")))
	if len(*runs) != 0 {
		t.Fatalf("the hook ran for ls: %+v", *runs)
	}
	h.Run(context.Background(), PreToolUse, PreToolUseInput(bash("FOO=1 rm -rf build")))
	if len(*runs) != 1 {
		t.Fatalf("the hook did not run for rm: %+v", *runs)
	}
	h2, runs2, _ := runner(t, Stop, settings.HookMatcher{Hooks: []settings.HookCommand{{Command: "true", If: "Bash(rm *)"}}})
	h2.Run(context.Background(), Stop, StopInput("x", false))
	if len(*runs2) != 0 {
		t.Fatalf("a Stop hook with if ran: %+v", *runs2)
	}
}

// The same handler in two settings files runs once, with the later
// file's fields: a project's longer timeout is not cut to the user's.
func TestTheSameCommandRunsOnce(t *testing.T) {
	h, runs, _ := runner(t, Stop,
		settings.HookMatcher{Hooks: []settings.HookCommand{cmd("echo x >> ran")}},
		settings.HookMatcher{Matcher: "", Hooks: []settings.HookCommand{cmd("echo x >> ran")}})
	h.Run(context.Background(), Stop, StopInput("x", false))
	if len(*runs) != 1 {
		t.Fatalf("runs %+v", *runs)
	}
	const slow = "sleep 1; echo no >&2; exit 2"
	for _, tt := range []struct {
		name          string
		first, second float64 // timeouts in seconds
		wantBlocked   bool
	}{
		{"the later copy's longer timeout", 0.2, 10, true},
		{"the later copy's shorter timeout", 10, 0.2, false},
	} {
		h, runs, _ := runner(t, PreToolUse,
			settings.HookMatcher{Matcher: "Bash", Hooks: []settings.HookCommand{{Type: "command", Command: slow, Timeout: tt.first}}},
			settings.HookMatcher{Matcher: "Bash", Hooks: []settings.HookCommand{{Type: "command", Command: slow, Timeout: tt.second}}})
		out := h.Run(context.Background(), PreToolUse, PreToolUseInput(bash("ls")))
		if len(*runs) != 1 || out.Blocked != tt.wantBlocked || (*runs)[0].TimedOut == tt.wantBlocked {
			t.Errorf("%s: outcome %+v, runs %+v", tt.name, out, *runs)
		}
	}
}

func TestStopFailureOutputIsIgnored(t *testing.T) {
	h, runs, msgs := runner(t, StopFailure, settings.HookMatcher{Matcher: "rate_limit", Hooks: []settings.HookCommand{cmd(`echo '{"decision":"block"}'; echo x >&2; exit 2`)}})
	out := h.Run(context.Background(), StopFailure, StopFailureInput(ErrRateLimit, "429", "anthropic: 429 slow down"))
	if len(*runs) != 1 || out.Blocked || len(*msgs) != 0 {
		t.Fatalf("outcome %+v runs %+v messages %q", out, *runs, *msgs)
	}
	h.Run(context.Background(), StopFailure, StopFailureInput(ErrServer, "500", "boom"))
	if len(*runs) != 1 {
		t.Fatal("the rate_limit matcher ran for a server error")
	}
}

func TestSessionStartHooksGetTheEnvFile(t *testing.T) {
	h, _, _ := runner(t, SessionStart, settings.HookMatcher{Hooks: []settings.HookCommand{cmd(`echo "export A=1" >> "$CLAUDE_ENV_FILE"`)}})
	h.EnvFile = filepath.Join(h.Cwd, "env.sh")
	h.Run(context.Background(), SessionStart, SessionStartInput("startup", "m"))
	if b, _ := os.ReadFile(h.EnvFile); string(b) != "export A=1\n" {
		t.Fatalf("env file = %q", b)
	}
}

// SessionEnd hooks share a 1.5 s budget, raised by a longer timeout one
// of them names.
func TestSessionEndHooksShareABudget(t *testing.T) {
	h, runs, _ := runner(t, SessionEnd, settings.HookMatcher{Hooks: []settings.HookCommand{cmd("sleep 5")}})
	start := time.Now()
	h.Run(context.Background(), SessionEnd, SessionEndInput("other"))
	if d := time.Since(start); d > 4*time.Second || len(*runs) != 1 || !(*runs)[0].TimedOut {
		t.Fatalf("took %s, runs %+v", d, *runs)
	}
	h2, _, _ := runner(t, SessionEnd, settings.HookMatcher{Hooks: []settings.HookCommand{{Command: "true", Timeout: 30}}})
	if got := h2.sessionEndBudget(); got != 30*time.Second {
		t.Fatalf("budget %s, want the hook's 30s", got)
	}
	h2.Getenv = func(k string) string {
		if k == "CLAUDE_CODE_SESSIONEND_HOOKS_TIMEOUT_MS" {
			return "2500"
		}
		return ""
	}
	if got := h2.sessionEndBudget(); got != 2500*time.Millisecond {
		t.Fatalf("budget %s, want the variable's", got)
	}
}

func TestExecFormRunsWithoutAShell(t *testing.T) {
	h, _, _ := runner(t, Stop, settings.HookMatcher{Hooks: []settings.HookCommand{{Command: "touch", Args: []string{"${CLAUDE_PROJECT_DIR}/a $b"}}}})
	h.Run(context.Background(), Stop, StopInput("x", false))
	if _, err := os.Stat(filepath.Join(h.Cwd, "a $b")); err != nil {
		t.Fatalf("exec form: %v", err)
	}
}

func TestDisableAllHooks(t *testing.T) {
	h, runs, _ := runner(t, Stop, settings.HookMatcher{Hooks: []settings.HookCommand{cmd("true")}})
	h.Disabled = true
	h.Run(context.Background(), Stop, StopInput("x", false))
	if len(*runs) != 0 || h.Has(Stop) {
		t.Fatal("a hook ran with disableAllHooks")
	}
}

func TestPromptIDJoinsTheCommonInput(t *testing.T) {
	h, _, _ := runner(t, UserPromptSubmit, settings.HookMatcher{Hooks: []settings.HookCommand{cmd("cat > in.json")}})
	h.PromptID = "p-1"
	h.Run(context.Background(), UserPromptSubmit, UserPromptSubmitInput("hi"))
	b, _ := os.ReadFile(filepath.Join(h.Cwd, "in.json"))
	if !strings.Contains(string(b), `"cwd":"`+h.Cwd+`","prompt_id":"p-1","permission_mode"`) {
		t.Fatalf("input %s", b)
	}
}

// A PreToolUse guard of a type trail cannot run makes the call a
// question; one whose "if" does not match the call is not even mentioned.
func TestASkippedGuardAsks(t *testing.T) {
	h, _, msgs := runner(t, PreToolUse, settings.HookMatcher{Matcher: "Bash", Hooks: []settings.HookCommand{
		{Type: "prompt"},
		{Type: "http", If: "Bash(rm *)"},
	}})
	out := h.Run(context.Background(), PreToolUse, PreToolUseInput(bash("ls")))
	if out.Permission != permission.DecisionAsk || !strings.Contains(out.PermissionReason, `type "prompt" could not run`) {
		t.Fatalf("outcome %+v", out)
	}
	if len(*msgs) != 1 || !strings.Contains((*msgs)[0], `hook of type "prompt" skipped`) {
		t.Errorf("messages %q", *msgs)
	}
}
