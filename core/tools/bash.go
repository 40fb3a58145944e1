package tools

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"time"

	"trail/core/chat"
	"trail/core/procgroup"
	"trail/logfmt"
)

// Bash timeouts in milliseconds when the user sets none (Robota's Shell
// tool, Claude Code's Bash).
const (
	bashDefaultTimeoutMS = 120000
	bashMaxTimeoutMS     = 600000
)

// bashWaitDelay bounds how long a finished command's leftover background
// processes may hold its output pipes open before trail stops reading them.
const bashWaitDelay = 2 * time.Second

// Bash runs a command with bash -c in its own process group.
type Bash struct {
	// Shell is the shell to run (default "bash"); tests may point elsewhere.
	Shell string
	// Timeout is the limit of a call that names none, MaxTimeout the most
	// a call may name (Claude Code's BASH_DEFAULT_TIMEOUT_MS and
	// BASH_MAX_TIMEOUT_MS); 0 for the defaults.
	Timeout, MaxTimeout time.Duration
}

// limits are the call's default and greatest time limits in milliseconds.
// The greatest is never below the default, as in Claude Code: a default
// of an hour with no maximum set means calls may ask for an hour.
func (b Bash) limits() (def, most int) {
	def = bashDefaultTimeoutMS
	if b.Timeout > 0 {
		def = int(b.Timeout.Milliseconds())
	}
	most = bashMaxTimeoutMS
	if b.MaxTimeout > 0 {
		most = int(b.MaxTimeout.Milliseconds())
	}
	return def, max(most, def)
}

func (b Bash) Schema() chat.ToolSchema {
	def, most := b.limits()
	return schema("Bash", bashDescription(),
		param{name: "command", typ: "string", desc: "The shell command to execute", required: true},
		param{name: "timeout", typ: "number", desc: fmt.Sprintf("Optional timeout in milliseconds (max %d). Default is %d (%s)", most, def, minutes(def))},
		param{name: "workingDirectory", typ: "string", desc: "Working directory for the command. Defaults to the current working directory"},
	)
}

func bashDescription() string {
	return strings.Join([]string{
		"Executes a command in the host shell and returns its output.",
		"",
		"Active shell: bash on " + runtime.GOOS + ". " + posixHint(),
		"",
		"Each command starts in the session's working directory; shell state (cd, variables) does not persist between commands.",
		"",
		"IMPORTANT: Avoid using this tool to run `find`, `grep`, `cat`, `head`, `tail`, `sed`, `awk`, or `echo` commands. Instead, use the appropriate dedicated tool:",
		" - File search: Use Glob (NOT find or ls)",
		" - Content search: Use Grep (NOT grep or rg)",
		" - Read files: Use Read (NOT cat/head/tail)",
		" - Edit files: Use Edit (NOT sed/awk)",
		"",
		"For simple commands, keep the description brief (5-10 words). For complex commands, include enough context to clarify what the command does.",
		"",
		"Output is limited to 30,000 characters. Longer output will be middle-truncated.",
	}, "\n")
}

// minutes says a time limit as the schema's description always has: "2
// minutes" for the default.
func minutes(ms int) string {
	d := time.Duration(ms) * time.Millisecond
	switch {
	case d == time.Minute:
		return "1 minute"
	case d%time.Minute == 0:
		return fmt.Sprintf("%d minutes", d/time.Minute)
	}
	return d.String()
}

func posixHint() string {
	switch runtime.GOOS {
	case "darwin":
		return "Host OS: macOS (POSIX, BSD userland). Use BSD-flavored utilities: `sed -i \"\"` needs an empty backup arg, `date`/`grep`/`stat` flags differ from GNU. Prefer portable POSIX flags; avoid Linux/GNU-only options."
	case "linux":
		return "Host OS: Linux (POSIX, usually GNU coreutils, but distro/user setup varies). Prefer portable POSIX flags; do not assume a specific distro, and probe with `command -v` before relying on a non-standard tool."
	}
	return "Host OS: " + runtime.GOOS + "; active shell family: POSIX sh/bash. Write portable POSIX syntax and avoid host-specific flags."
}

type bashArgs struct {
	Command          string   `json:"command"`
	Timeout          *float64 `json:"timeout"`
	WorkingDirectory string   `json:"workingDirectory"`
	// Claude Code's run_in_background, as Claude spells it (or in
	// Robota's camelCase): the command is left running, its output in a
	// file (bash_background.go).
	Background      bool `json:"run_in_background"`
	RunInBackground bool `json:"runInBackground"`
}

// noEditor: a command has no terminal, so an editor it starts (git commit
// without -m, git rebase -i, crontab -e) would wait for the time limit
// unseen, vim writing its screen into the output. true ends it at once:
// git then stops on its empty message and says so. Settings whose env
// names an editor keep theirs, and none of these is set.
var noEditor = []string{"GIT_EDITOR=true", "GIT_SEQUENCE_EDITOR=true", "EDITOR=true", "VISUAL=true"}

// namesEditor reports whether the settings' env chooses an editor: then
// that choice stands for every editor variable, as the user made it.
func namesEditor(env []string) bool {
	for _, kv := range env {
		switch k, _, _ := strings.Cut(kv, "="); k {
		case "EDITOR", "VISUAL", "GIT_EDITOR", "GIT_SEQUENCE_EDITOR":
			return true
		}
	}
	return false
}

func (b Bash) Run(ctx context.Context, raw json.RawMessage, env Env) Result {
	var a bashArgs
	if r := decodeArgs("Bash", raw, &a); r != nil {
		return *r
	}
	if strings.TrimSpace(a.Command) == "" {
		return missing("Bash", "command")
	}
	def, most := b.limits()
	timeoutMS := min(count(a.Timeout, def), most)
	dir := env.Cwd
	if a.WorkingDirectory != "" {
		dir = a.WorkingDirectory
		if !filepath.IsAbs(dir) {
			dir = filepath.Join(env.Cwd, dir)
		}
		if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
			return fail("Working directory not found: %s", a.WorkingDirectory)
		}
	}
	if err := ctx.Err(); err != nil {
		return fail("Aborted before start")
	}
	shell := b.Shell
	if shell == "" {
		shell = procgroup.Shell("bash")
	}
	script := a.Command
	cmdEnv := os.Environ()
	if !namesEditor(env.Env) {
		cmdEnv = append(cmdEnv, noEditor...)
	}
	cmdEnv = append(cmdEnv, env.Env...)
	if env.EnvFile != "" {
		// Sourced in the command's own shell, as Claude Code does, so
		// its exports (and PATH changes) hold for the command.
		script = ". \"$CLAUDE_ENV_FILE\"\n" + script
		cmdEnv = append(cmdEnv, "CLAUDE_ENV_FILE="+env.EnvFile)
	}
	var logPath string
	a.Background = a.Background || a.RunInBackground
	if a.Background {
		var r *Result
		if script, logPath, r = inBackground(script); r != nil {
			return *r
		}
	}
	cmd := exec.Command(shell, "-c", script)
	cmd.Dir = dir
	cmd.Env = cmdEnv
	var stdout, stderr capBuffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	cmd.WaitDelay = bashWaitDelay
	group, err := procgroup.Start(cmd)
	if err != nil {
		return fail("%s", err.Error())
	}
	defer group.Release()
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	timer := time.NewTimer(time.Duration(timeoutMS) * time.Millisecond)
	defer timer.Stop()
	var waitErr error
	var why string
	select {
	case waitErr = <-done:
	case <-timer.C:
		why = fmt.Sprintf("Command timed out after %dms", timeoutMS)
	case <-ctx.Done():
		why = "Aborted"
	}
	if why != "" {
		group.Kill()
		<-done
		out, total := stdout.text()
		return Result{Success: false, Output: truncateTotal(out, total), Error: why, Interrupted: true}
	}
	out, total := combined(&stdout, &stderr)
	code := exitCode(cmd.ProcessState, waitErr)
	r := Result{Success: true, Output: truncateTotal(out, total), ExitCode: &code}
	if waitErr != nil && cmd.ProcessState == nil {
		r.Success, r.Error = false, waitErr.Error()
	}
	if r.Success && a.Background {
		return startedInBackground(r, logPath, cmd.Process.Pid)
	}
	if r.Success {
		r.Response = bashResponse(r.Output, logfmt.F("noOutputExpected", false))
	}
	return r
}

// bashResponse is Claude Code's Bash output: stdout holds the command's
// output and errors interleaved; stderr the tool's own notices (none).
func bashResponse(out string, last logfmt.Field) logfmt.Object {
	return logfmt.Object{
		logfmt.F("stdout", out),
		logfmt.F("stderr", ""),
		logfmt.F("interrupted", false),
		logfmt.F("isImage", false),
		last,
	}
}

// combined is Robota's output: stdout, then "\nstderr:\n" and stderr when
// the command wrote any.
func combined(stdout, stderr *capBuffer) (string, int) {
	out, n := stdout.text()
	errText, en := stderr.text()
	if errText == "" {
		return out, n
	}
	const sep = "\nstderr:\n"
	return out + sep + errText, n + len(sep) + en
}

func exitCode(ps *os.ProcessState, err error) int {
	if ps == nil {
		return -1
	}
	if ws, ok := ps.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		return 128 + int(ws.Signal())
	}
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		return ee.ExitCode()
	}
	return ps.ExitCode()
}
