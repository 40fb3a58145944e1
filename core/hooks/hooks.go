package hooks

// Hooks (SPEC 5.5), as Claude Code's hooks reference describes them. Each
// hook is a shell command run with sh -c (bash -c with "shell": "bash";
// or, with "args", the program run directly) in the session's cwd, its
// JSON input on stdin.
//
//   - Exit 0: stdout is the answer: a JSON object when it starts with "{",
//     else plain text (context for UserPromptSubmit and SessionStart only).
//   - Exit 2: the hook blocks (events that can be stopped); the reason is
//     stderr, and any JSON on stdout is ignored, as Claude Code ignores it.
//   - Any other exit: a non-blocking error shown on stderr; stdout is
//     ignored, JSON or not ("Claude Code only processes JSON on exit 0"),
//     so a guard that printed "allow" and then crashed approves nothing.
//     A timeout or a failure to start is one too.
//
// Hooks of one event run one after the other in settings order, a command
// listed twice (in two settings files) runs once, with the later copy's
// timeout, and they stop at the
// first that blocks. A hook past its timeout is killed with its whole
// process group; its output is discarded.

import (
	"bytes"
	"cmp"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"time"

	"trail/core/chat"
	"trail/core/permission"
	"trail/core/procgroup"
	"trail/core/settings"
	"trail/logfmt"
	"trail/store"
)

// Default timeouts (Claude Code's): 600 s for a command hook, 30 s for
// UserPromptSubmit. SessionEnd hooks share a budget of 1.5 s, raised to
// the longest timeout a SessionEnd hook names (at most 60 s), or set by
// CLAUDE_CODE_SESSIONEND_HOOKS_TIMEOUT_MS.
const (
	DefaultTimeout          = 600 * time.Second
	userPromptSubmitTimeout = 30 * time.Second
	sessionEndBudget        = 1500 * time.Millisecond
	maxSessionEndBudget     = 60 * time.Second
)

// outputLimit caps what is kept of a hook's stdout and stderr.
const outputLimit = 1 << 20

// Runner runs the hooks of the settings for one session.
type Runner struct {
	Hooks          map[string][]settings.HookMatcher
	SessionID      string
	TranscriptPath string
	Cwd            string
	Home           string // anchors ~/ in "if" rules
	PermissionMode string
	// PromptID is the id of the prompt being answered, once there is one
	// (Claude Code's prompt_id); "" leaves it out of the input.
	PromptID string
	// EnvFile is handed to SessionStart hooks as CLAUDE_ENV_FILE: what
	// they write there, Bash runs before each command of the step.
	EnvFile string
	Env     []string      // KEY=VALUE added to the process environment (settings env)
	Timeout time.Duration // default per hook; DefaultTimeout when 0
	// Disabled: the settings said disableAllHooks; nothing runs.
	Disabled bool
	// Getenv reads trail's environment (CLAUDE_CODE_SESSIONEND_HOOKS_TIMEOUT_MS); nil: none.
	Getenv func(string) string
	// BeforeRun is called once before the hooks of an event run, when at
	// least one will (the engine writes the transcript there).
	BeforeRun func(event string)
	// OnRun is told about every hook that ran (for the hook_run log line).
	OnRun func(Execution)
	// OnMessage receives what the user should see on stderr: non-blocking
	// errors, timeouts and systemMessage.
	OnMessage func(string)
	// Now tells the time a hook's duration is measured with (the engine's
	// clock); nil means time.Now.
	Now func() time.Time
}

// Execution is one hook command that ran.
type Execution struct {
	Event    string
	Command  string
	ExitCode int // -1 when it did not exit by itself (timeout, interrupt, failed to start)
	Duration time.Duration
	Blocked  bool
	TimedOut bool
}

// Has reports whether any hook is configured for event.
func (h *Runner) Has(event string) bool {
	return h != nil && !h.Disabled && len(h.Hooks[event]) > 0
}

// Run runs the hooks of event whose matcher (and "if") accepts in, and
// folds their answers into one outcome.
func (h *Runner) Run(ctx context.Context, event string, in Input) Outcome {
	var out Outcome
	if !h.Has(event) {
		return out
	}
	selected, skipped := h.selected(event, in)
	if skipped != "" && event == PreToolUse {
		// A guard trail cannot run must not pass for one that allowed:
		// the call becomes a question (denied when no one can answer).
		out.setPermission(permission.DecisionAsk, "a PreToolUse hook "+skipped)
	}
	if len(selected) == 0 {
		return out
	}
	if h.BeforeRun != nil {
		h.BeforeRun(event)
	}
	stdin, err := h.input(event, in)
	if err != nil {
		h.message(fmt.Sprintf("%s hooks skipped: encode input: %v", event, err))
		return out
	}
	var deadline time.Time
	if event == SessionEnd {
		deadline = h.now().Add(h.sessionEndBudget())
	}
	for _, cmd := range selected {
		if h.runOne(ctx, event, cmd, stdin, deadline, &out) {
			return out
		}
	}
	return out
}

// selected are the commands that run for in: matched, filtered by "if",
// of a type and shell trail runs, each command once: in the place of its
// first copy, with the fields (timeout, shell) of its last, since a later
// settings file wins for every other value too. skipped says why a
// matching hook could not run ("" when none did not).
func (h *Runner) selected(event string, in Input) (out []settings.HookCommand, skipped string) {
	then := ""
	if event == PreToolUse {
		then = "; the call is a question instead"
	}
	seen := map[string]int{}
	for _, group := range h.Hooks[event] {
		if in.hasTarget && !matcherAccepts(event, group.Matcher, in.Target) {
			continue
		}
		for _, cmd := range group.Hooks {
			if !h.ifAccepts(event, cmd, in) {
				continue
			}
			if cmd.Type != "" && cmd.Type != "command" {
				h.message(fmt.Sprintf("%s hook of type %s skipped: trail runs command hooks only%s", event, store.QuoteInput(cmd.Type), then))
				skipped = "of type " + store.QuoteInput(cmd.Type) + " could not run (trail runs command hooks only)"
				continue
			}
			if strings.TrimSpace(cmd.Command) == "" {
				continue
			}
			key := cmd.Command + "\x00" + strings.Join(cmd.Args, "\x00")
			if i, ok := seen[key]; ok {
				out[i] = cmd
				continue
			}
			seen[key] = len(out)
			out = append(out, cmd)
		}
	}
	// The shell is judged on the copy that runs.
	kept := out[:0]
	for _, cmd := range out {
		if !runnableShell(cmd.Shell) {
			h.message(fmt.Sprintf("%s hook %s with shell %s skipped: trail runs hooks with sh, or bash (\"shell\": \"bash\")%s", event, store.QuoteInput(cmd.Command), store.QuoteInput(cmd.Shell), then))
			skipped = "with shell " + store.QuoteInput(cmd.Shell) + " could not run (trail runs hooks with sh or bash)"
			continue
		}
		kept = append(kept, cmd)
	}
	return kept, skipped
}

// ifAccepts applies a hook's "if" rule: tool events only (on any other
// event a hook with "if" never runs, as in Claude Code).
func (h *Runner) ifAccepts(event string, cmd settings.HookCommand, in Input) bool {
	if strings.TrimSpace(cmd.If) == "" {
		return true
	}
	if in.tool == "" {
		return false
	}
	run, err := permission.MatchIf(cmd.If, in.tool, in.args, h.Cwd, h.Home)
	if err != nil {
		h.message(fmt.Sprintf("%s hook %s: its if %s does not parse (%v); it runs", event, store.QuoteInput(cmd.Command), store.QuoteInput(cmd.If), err))
	}
	return run
}

// IfProblem says why a hook's "if" can never work as written ("" when it
// can): on an event that is not about a tool the hook never runs, and a
// rule that does not parse lets it run for every call. config --check
// reports it.
func IfProblem(event, rule string) string {
	if strings.TrimSpace(rule) == "" {
		return ""
	}
	switch event {
	case PreToolUse, PostToolUse, PostToolUseFailure:
	default:
		return fmt.Sprintf("if %s on %s, which is not about a tool call: the hook never runs", store.QuoteInput(rule), event)
	}
	if _, err := permission.ParseRule(rule); err != nil {
		return fmt.Sprintf("if %s does not parse (%v): the hook runs for every call", store.QuoteInput(rule), err)
	}
	return ""
}

func (h *Runner) input(event string, in Input) ([]byte, error) {
	o := logfmt.Object{
		logfmt.F("session_id", h.SessionID),
		logfmt.F("transcript_path", h.TranscriptPath),
		logfmt.F("cwd", h.Cwd),
	}
	if h.PromptID != "" {
		o = append(o, logfmt.F("prompt_id", h.PromptID))
	}
	o = append(o,
		logfmt.F("permission_mode", h.PermissionMode),
		logfmt.F("hook_event_name", event),
	)
	o = append(o, in.Fields...)
	return logfmt.Marshal(o)
}

// timeout is how long one hook of event may run.
func (h *Runner) timeout(event string, hc settings.HookCommand, deadline time.Time) time.Duration {
	t := h.Timeout
	if t <= 0 {
		t = DefaultTimeout
		if event == UserPromptSubmit {
			t = userPromptSubmitTimeout
		}
	}
	if hc.Timeout > 0 {
		t = time.Duration(hc.Timeout * float64(time.Second))
	}
	if !deadline.IsZero() {
		t = min(t, max(deadline.Sub(h.now()), time.Millisecond))
	}
	return t
}

// sessionEndBudget is the time every SessionEnd hook shares.
func (h *Runner) sessionEndBudget() time.Duration {
	if h.Getenv != nil {
		if ms, err := strconv.ParseFloat(h.Getenv("CLAUDE_CODE_SESSIONEND_HOOKS_TIMEOUT_MS"), 64); err == nil && ms > 0 {
			return time.Duration(ms * float64(time.Millisecond))
		}
	}
	budget := sessionEndBudget
	for _, g := range h.Hooks[SessionEnd] {
		for _, c := range g.Hooks {
			budget = max(budget, min(time.Duration(c.Timeout*float64(time.Second)), maxSessionEndBudget))
		}
	}
	return budget
}

// runOne runs one command and folds its answer into out. It reports whether
// the hook blocked (then no further hook of the event runs).
func (h *Runner) runOne(ctx context.Context, event string, hc settings.HookCommand, stdin []byte, deadline time.Time, out *Outcome) bool {
	timeout := h.timeout(event, hc, deadline)
	start := h.now()
	res := runCommand(ctx, h.command(hc), h.Cwd, h.env(event), stdin, timeout)
	run := Execution{Event: event, Command: hc.Command, ExitCode: res.code, Duration: h.now().Sub(start), TimedOut: res.timedOut}
	out.Ran++
	blocked := false
	switch {
	case res.timedOut:
		h.message(fmt.Sprintf("%s hook %s timed out after %s and was killed", event, store.QuoteInput(hc.Command), timeout.Round(time.Millisecond)))
	case res.err != nil:
		h.message(fmt.Sprintf("%s hook %s failed: %v", event, store.QuoteInput(hc.Command), startError(hc, res.err)))
	case event == StopFailure:
		// Claude Code ignores StopFailure's output and exit code.
	case res.code == 2 && !blockable(event):
		note := stderrNote(res.stderr)
		if why := shParseError(hc, res.stderr); why != "" {
			note = ": " + why
		}
		h.message(fmt.Sprintf("%s hook %s exited 2%s", event, store.QuoteInput(hc.Command), note))
	case res.code == 2:
		blocked = h.block(event, hc, res, out)
	case res.code != 0:
		note := ""
		if _, isJSON, _ := parseAnswer(res.stdout); isJSON {
			note = "; its JSON answer is ignored (only an exit 0 answers)"
		}
		h.message(fmt.Sprintf("%s hook %s exited %d%s%s", event, store.QuoteInput(hc.Command), res.code, stderrNote(res.stderr), note))
	default:
		blocked = h.useStdout(event, hc.Command, res.stdout, out)
	}
	run.Blocked = blocked
	if h.OnRun != nil {
		h.OnRun(run)
	}
	return blocked
}

// block folds an exit 2 into out: stderr is the reason; stdout, JSON or
// not, is ignored. A command sh could not parse (dash exits 2 on a syntax
// error) still blocks, lest a broken guard let calls through, but its
// reason says so instead of passing for the hook's own.
func (h *Runner) block(event string, hc settings.HookCommand, res commandResult, out *Outcome) bool {
	reason := cmp.Or(shParseError(hc, res.stderr), strings.TrimSpace(string(res.stderr)), "blocked by "+event+" hook")
	out.Blocked = true
	out.Reason = cmp.Or(out.Reason, h.capText(event, reason))
	return true
}

// blockable reports whether exit 2 can stop what event announces. For the
// others (SessionStart, SessionEnd, StopFailure, PostCompact) there is
// nothing to stop: as in Claude Code, their stderr is shown to the user.
// PostToolUse and PostToolUseFailure cannot undo the call, but their
// reason reaches the model beside the result.
func blockable(event string) bool {
	switch event {
	case PreToolUse, PostToolUse, PostToolUseFailure, UserPromptSubmit, Stop, PreCompact:
		return true
	}
	return false
}

func (h *Runner) useStdout(event, command string, stdout []byte, out *Outcome) bool {
	parsed, isJSON, err := parseAnswer(stdout)
	if err != nil {
		h.message(fmt.Sprintf("%s hook %s printed JSON trail cannot read (%s); its answer is ignored", event, store.QuoteInput(command), answerError(stdout, err)))
		return false
	}
	if !isJSON {
		if text := strings.TrimSpace(string(stdout)); text != "" {
			out.Plain = append(out.Plain, h.capText(event, text))
		}
		return false
	}
	// Claude Code refuses an answer that fails its schema as a whole
	// ("JSON validation failed"): a guard's "Deny" or "block" must not
	// pass for no answer in silence.
	if bad := parsed.invalid(event); bad != "" {
		h.message(fmt.Sprintf("%s hook %s answered %s; its answer is ignored", event, store.QuoteInput(command), bad))
		return false
	}
	parsed.capTexts(func(s string) string { return h.capText(event, s) })
	if parsed.SystemMessage != "" {
		h.message(parsed.SystemMessage)
	}
	return out.apply(event, parsed)
}

// capText keeps what one hook hands the model (context, plain stdout, a
// blocking reason) within Claude Code's 10,000 characters, saying where
// it was cut: a runaway hook must not fill the context window.
func (h *Runner) capText(event, s string) string {
	cut, n := capChars(s, maxHookText)
	if n == 0 {
		return s
	}
	h.message(fmt.Sprintf("%s hook output cut to %d characters (%d more)", event, maxHookText, n))
	return logfmt.RedactCutEnd(cut) + fmt.Sprintf("\n[... %d more characters of hook output cut by trail]", n)
}

func stderrNote(stderr []byte) string {
	s := strings.TrimSpace(string(stderr))
	if s == "" {
		return ""
	}
	return ": " + chat.FirstLine(s, 200)
}

func (h *Runner) now() time.Time {
	if h.Now != nil {
		return h.Now()
	}
	return time.Now()
}

func (h *Runner) message(s string) {
	if h.OnMessage != nil {
		h.OnMessage(s)
	}
}

// env is the hook's environment: trail's own, the settings env, and the
// session variables under trail's and Claude Code's names (the documented
// CLAUDE_CODE_SESSION_ID and CLAUDECODE=1, and CLAUDE_SESSION_ID, which
// trail has always set), with CLAUDE_ENV_FILE for SessionStart hooks.
func (h *Runner) env(event string) []string {
	env := append(os.Environ(), h.Env...)
	env = append(env,
		"TRAIL_SESSION_ID="+h.SessionID,
		"TRAIL_PROJECT_DIR="+h.Cwd,
		"CLAUDE_SESSION_ID="+h.SessionID,
		"CLAUDE_CODE_SESSION_ID="+h.SessionID,
		"CLAUDE_PROJECT_DIR="+h.Cwd,
		"CLAUDECODE=1",
	)
	if event == SessionStart && h.EnvFile != "" {
		env = append(env, "CLAUDE_ENV_FILE="+h.EnvFile)
	}
	return env
}

type commandResult struct {
	code           int
	stdout, stderr []byte
	timedOut       bool
	err            error
}

// runCommand runs argv in its own process group and kills the group on
// timeout or when ctx is done.
func runCommand(ctx context.Context, argv []string, dir string, env []string, stdin []byte, timeout time.Duration) commandResult {
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Dir = dir
	cmd.Env = env
	cmd.Stdin = bytes.NewReader(stdin)
	var stdout, stderr limitBuffer
	stdout.max, stderr.max = outputLimit, outputLimit
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	cmd.WaitDelay = time.Second
	group, err := procgroup.Start(cmd)
	if err != nil {
		return commandResult{code: -1, err: err}
	}
	defer group.Release()
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	timer := time.NewTimer(timeout)
	defer timer.Stop()
	select {
	case err = <-done:
	case <-timer.C:
		group.Kill()
		<-done
		return commandResult{code: -1, timedOut: true, stdout: stdout.b, stderr: stderr.b}
	case <-ctx.Done():
		group.Kill()
		<-done
		return commandResult{code: -1, err: errors.New("interrupted"), stdout: stdout.b, stderr: stderr.b}
	}
	res := commandResult{code: cmd.ProcessState.ExitCode(), stdout: stdout.b, stderr: stderr.b}
	var ee *exec.ExitError
	if err != nil && !errors.As(err, &ee) && !errors.Is(err, exec.ErrWaitDelay) {
		res.err = err
	}
	return res
}

// limitBuffer keeps the first max bytes written to it.
type limitBuffer struct {
	b   []byte
	max int
}

func (l *limitBuffer) Write(p []byte) (int, error) {
	if room := l.max - len(l.b); room > 0 {
		l.b = append(l.b, p[:min(room, len(p))]...)
	}
	return len(p), nil
}
