package hooks

// Which program runs a hook. Claude Code's command hooks run with sh -c
// unless their "shell" names another: "bash" (or "powershell", which trail
// does not run). A hook whose shell trail does not run is skipped as a
// hook of another type is: a PreToolUse guard that cannot run makes its
// call a question, so nothing passes for allowed. A missing bash fails
// the hook, never falls back to sh: a command written for bash means
// something else, or nothing, to sh.

import (
	"errors"
	"fmt"
	"os/exec"
	"strings"

	"trail/core/chat"
	"trail/core/procgroup"
	"trail/core/settings"
	"trail/store"
)

const shellBash = "bash"

// runnableShell reports whether trail runs a hook with this "shell".
func runnableShell(shell string) bool { return shell == "" || shell == shellBash }

// ShellProblem says why a hook's "shell" cannot work ("" when it can):
// config --check reports it.
func ShellProblem(shell string) string {
	if runnableShell(shell) {
		return ""
	}
	msg := fmt.Sprintf("shell %s is not one trail runs (sh, or \"bash\"): the hook is skipped, and a PreToolUse call it guards is a question", store.QuoteInput(shell))
	if strings.EqualFold(shell, shellBash) {
		msg += ` (did you mean "bash"?)`
	}
	return msg
}

// command is what runs: sh -c COMMAND (bash -c with "shell": "bash"), or
// (exec form) COMMAND ARGS... with ${CLAUDE_PROJECT_DIR} put in as plain
// text.
func (h *Runner) command(hc settings.HookCommand) []string {
	if hc.Args == nil {
		if hc.Shell == shellBash {
			return []string{procgroup.Shell("bash"), "-c", hc.Command}
		}
		return []string{procgroup.Shell("sh"), "-c", hc.Command}
	}
	subst := func(s string) string {
		s = strings.ReplaceAll(s, "${CLAUDE_PROJECT_DIR}", h.Cwd)
		return strings.ReplaceAll(s, "$CLAUDE_PROJECT_DIR", h.Cwd)
	}
	argv := []string{subst(hc.Command)}
	for _, a := range hc.Args {
		argv = append(argv, subst(a))
	}
	return argv
}

// startError says why a hook did not start, naming bash when its "shell"
// asked for one that is not there.
func startError(hc settings.HookCommand, err error) error {
	if hc.Args == nil && hc.Shell == shellBash && errors.Is(err, exec.ErrNotFound) {
		return errors.New(`its "shell": "bash" needs bash, which is not in PATH`)
	}
	return err
}

// shParseError is the reason for an exit 2 that is sh refusing the
// command's syntax rather than the hook's answer ("" when it is not):
// dash says "sh: 1: Syntax error: ...", bash as sh "sh: -c: line 1: syntax
// error ...". Only hooks run with sh -c are judged.
func shParseError(hc settings.HookCommand, stderr []byte) string {
	if hc.Args != nil || hc.Shell != "" {
		return ""
	}
	for line := range strings.SplitSeq(string(stderr), "\n") {
		if strings.HasPrefix(line, "sh: ") && (strings.Contains(line, "Syntax error") || strings.Contains(line, "syntax error")) {
			return fmt.Sprintf(`the hook command does not parse under sh (%s); if it is written for bash, add "shell": "bash" to the hook`, chat.FirstLine(strings.TrimSpace(line), 200))
		}
	}
	return ""
}
