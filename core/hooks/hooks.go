package hooks

// Hooks (SPEC 5.5), Claude Code compatible. Each hook is a shell command run
// with sh -c in the session's cwd, its JSON input on stdin. Exit 0: stdout is
// used (JSON decisions, or plain text as context); exit 2: the hook blocks,
// stderr is the reason (shown to the user for events nothing can stop);
// any other exit, a timeout or a failure to start is a
// non-blocking error shown on stderr. Hooks of one event run one after the
// other in settings order and stop at the first that blocks. A hook past its
// timeout is killed with its whole process group.

import (
	"bytes"
	"cmp"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"syscall"
	"time"

	"trail/core/chat"
	"trail/core/settings"
	"trail/logfmt"
	"trail/store"
)

// DefaultTimeout applies when a hook names none.
const DefaultTimeout = 60 * time.Second

// outputLimit caps what is kept of a hook's stdout and stderr.
const outputLimit = 1 << 20

// Runner runs the hooks of the settings for one session.
type Runner struct {
	Hooks          map[string][]settings.HookMatcher
	SessionID      string
	TranscriptPath string
	Cwd            string
	PermissionMode string
	Env            []string      // KEY=VALUE added to the process environment (settings env)
	Timeout        time.Duration // default per hook; DefaultTimeout when 0
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
	return h != nil && len(h.Hooks[event]) > 0
}

// Run runs the hooks of event whose matcher accepts in.Target and folds
// their answers into one outcome.
func (h *Runner) Run(ctx context.Context, event string, in Input) Outcome {
	var out Outcome
	if !h.Has(event) {
		return out
	}
	stdin, err := h.input(event, in)
	if err != nil {
		h.message(fmt.Sprintf("%s hooks skipped: encode input: %v", event, err))
		return out
	}
	for _, group := range h.Hooks[event] {
		if in.hasTarget && !matcherAccepts(group.Matcher, in.Target) {
			continue
		}
		for _, cmd := range group.Hooks {
			if cmd.Type != "" && cmd.Type != "command" {
				h.message(fmt.Sprintf("%s hook of type %s skipped: trail runs command hooks only", event, store.QuoteInput(cmd.Type)))
				continue
			}
			if strings.TrimSpace(cmd.Command) == "" {
				continue
			}
			if h.runOne(ctx, event, cmd, stdin, &out) {
				return out
			}
		}
	}
	return out
}

// matcherAccepts: empty or "*" matches everything; otherwise an unanchored
// regular expression, or the exact text when it is not a valid one.
func matcherAccepts(matcher, target string) bool {
	if matcher == "" || matcher == "*" {
		return true
	}
	re, err := regexp.Compile(matcher)
	if err != nil {
		return matcher == target
	}
	return re.MatchString(target)
}

func (h *Runner) input(event string, in Input) ([]byte, error) {
	o := logfmt.Object{
		logfmt.F("session_id", h.SessionID),
		logfmt.F("transcript_path", h.TranscriptPath),
		logfmt.F("cwd", h.Cwd),
		logfmt.F("hook_event_name", event),
		logfmt.F("permission_mode", h.PermissionMode),
	}
	o = append(o, in.Fields...)
	return logfmt.Marshal(o)
}

// runOne runs one command and folds its answer into out. It reports whether
// the hook blocked (then no further hook of the event runs).
func (h *Runner) runOne(ctx context.Context, event string, hc settings.HookCommand, stdin []byte, out *Outcome) bool {
	timeout := h.Timeout
	if timeout <= 0 {
		timeout = DefaultTimeout
	}
	if hc.Timeout > 0 {
		timeout = time.Duration(hc.Timeout * float64(time.Second))
	}
	start := h.now()
	res := runCommand(ctx, hc.Command, h.Cwd, h.env(), stdin, timeout)
	run := Execution{Event: event, Command: hc.Command, ExitCode: res.code, Duration: h.now().Sub(start), TimedOut: res.timedOut}
	out.Ran++
	blocked := false
	switch {
	case res.timedOut:
		h.message(fmt.Sprintf("%s hook %s timed out after %s and was killed", event, store.QuoteInput(hc.Command), timeout))
	case res.err != nil:
		h.message(fmt.Sprintf("%s hook %s failed: %v", event, store.QuoteInput(hc.Command), res.err))
	case res.code == 2 && !blockable(event):
		h.message(fmt.Sprintf("%s hook %s exited 2%s", event, store.QuoteInput(hc.Command), stderrNote(res.stderr)))
	case res.code == 2:
		out.Blocked, blocked = true, true
		out.Reason = cmp.Or(strings.TrimSpace(string(res.stderr)), "blocked by "+event+" hook")
	case res.code != 0:
		h.message(fmt.Sprintf("%s hook %s exited %d%s", event, store.QuoteInput(hc.Command), res.code, stderrNote(res.stderr)))
	default:
		blocked = h.useStdout(event, hc.Command, res.stdout, out)
	}
	run.Blocked = blocked
	if h.OnRun != nil {
		h.OnRun(run)
	}
	return blocked
}

// blockable reports whether exit 2 can stop what event announces. For the
// others (SessionStart, SessionEnd, StopFailure, PostCompact) there is
// nothing to stop: as in Claude Code, their stderr is shown to the user.
func blockable(event string) bool {
	switch event {
	case PreToolUse, PostToolUse, UserPromptSubmit, Stop, PreCompact:
		return true
	}
	return false
}

func (h *Runner) useStdout(event, command string, stdout []byte, out *Outcome) bool {
	parsed, isJSON, err := parseAnswer(stdout)
	if err != nil {
		h.message(fmt.Sprintf("%s hook %s printed JSON trail cannot read: %v", event, store.QuoteInput(command), err))
		return false
	}
	if !isJSON {
		if text := strings.TrimSpace(string(stdout)); text != "" {
			out.Context = append(out.Context, text)
		}
		return false
	}
	if parsed.SystemMessage != "" {
		h.message(parsed.SystemMessage)
	}
	return out.apply(event, parsed)
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
// session variables under trail's and Claude Code's names.
func (h *Runner) env() []string {
	env := append(os.Environ(), h.Env...)
	return append(env,
		"TRAIL_SESSION_ID="+h.SessionID,
		"TRAIL_PROJECT_DIR="+h.Cwd,
		"CLAUDE_SESSION_ID="+h.SessionID,
		"CLAUDE_PROJECT_DIR="+h.Cwd,
	)
}

type commandResult struct {
	code           int
	stdout, stderr []byte
	timedOut       bool
	err            error
}

// runCommand runs sh -c command in its own process group and kills the
// group on timeout or when ctx is done.
func runCommand(ctx context.Context, command, dir string, env []string, stdin []byte, timeout time.Duration) commandResult {
	cmd := exec.Command("sh", "-c", command)
	cmd.Dir = dir
	cmd.Env = env
	cmd.Stdin = bytes.NewReader(stdin)
	var stdout, stderr limitBuffer
	stdout.max, stderr.max = outputLimit, outputLimit
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.WaitDelay = time.Second
	if err := cmd.Start(); err != nil {
		return commandResult{code: -1, err: err}
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	timer := time.NewTimer(timeout)
	defer timer.Stop()
	var err error
	select {
	case err = <-done:
	case <-timer.C:
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		<-done
		return commandResult{code: -1, timedOut: true, stdout: stdout.b, stderr: stderr.b}
	case <-ctx.Done():
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
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
