package hooks

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"trail/core/permission"
	"trail/core/settings"
)

// bashOnly prints "bash" only under bash -c: neither dash nor bash run as
// sh (posix mode) does.
const bashOnly = `if [ -n "$BASH_VERSION" ] && ! shopt -oq posix; then echo bash > shell.txt; else echo sh > shell.txt; fi`

// "shell": "bash" runs the command with bash -c; without it, sh -c.
func TestShellBashRunsTheCommandWithBash(t *testing.T) {
	for _, tt := range []struct{ shell, want string }{{"bash", "bash\n"}, {"", "sh\n"}} {
		h, runs, msgs := runner(t, Stop, settings.HookMatcher{Hooks: []settings.HookCommand{{Type: "command", Shell: tt.shell, Command: bashOnly}}})
		h.Run(context.Background(), Stop, StopInput("x", false))
		got, _ := os.ReadFile(filepath.Join(h.Cwd, "shell.txt"))
		if string(got) != tt.want || len(*runs) != 1 || len(*msgs) != 0 {
			t.Errorf("shell %q ran under %q, want %q; runs %+v, messages %q", tt.shell, got, tt.want, *runs, *msgs)
		}
	}
}

// A hook of a shell trail does not run is skipped as a hook of another
// type is: said, and a PreToolUse call it guards becomes a question. The
// shell of the copy that runs counts.
func TestAnUnknownShellIsSkippedAndItsGuardAsks(t *testing.T) {
	h, runs, msgs := runner(t, PreToolUse, settings.HookMatcher{Matcher: "Bash", Hooks: []settings.HookCommand{
		{Type: "command", Shell: "powershell", Command: "Write-Output hi"},
	}})
	out := h.Run(context.Background(), PreToolUse, PreToolUseInput(bash("ls")))
	if out.Permission != permission.DecisionAsk || !strings.Contains(out.PermissionReason, `with shell "powershell" could not run`) || len(*runs) != 0 {
		t.Fatalf("outcome %+v, runs %+v", out, *runs)
	}
	if len(*msgs) != 1 || (*msgs)[0] != `PreToolUse hook "Write-Output hi" with shell "powershell" skipped: trail runs hooks with sh, or bash ("shell": "bash"); the call is a question instead` {
		t.Errorf("messages %q", *msgs)
	}

	h, runs, _ = runner(t, PreToolUse,
		settings.HookMatcher{Matcher: "Bash", Hooks: []settings.HookCommand{{Type: "command", Shell: "powershell", Command: bashOnly}}},
		settings.HookMatcher{Matcher: "Bash", Hooks: []settings.HookCommand{{Type: "command", Shell: "bash", Command: bashOnly}}})
	out = h.Run(context.Background(), PreToolUse, PreToolUseInput(bash("ls")))
	if got, _ := os.ReadFile(filepath.Join(h.Cwd, "shell.txt")); out.Permission != "" || string(got) != "bash\n" || len(*runs) != 1 {
		t.Errorf("the later copy's shell bash: outcome %+v, ran under %q", out, got)
	}
}

// Without bash, a "shell": "bash" hook fails, saying so; it is not run
// with sh instead.
func TestShellBashWithoutBashFailsTheHook(t *testing.T) {
	t.Setenv("PATH", t.TempDir())
	h, runs, msgs := runner(t, Stop, settings.HookMatcher{Hooks: []settings.HookCommand{{Type: "command", Shell: "bash", Command: "echo ran > ran.txt"}}})
	out := h.Run(context.Background(), Stop, StopInput("x", false))
	if _, err := os.Stat(filepath.Join(h.Cwd, "ran.txt")); err == nil || out.Blocked || len(*runs) != 1 || (*runs)[0].ExitCode != -1 {
		t.Fatalf("outcome %+v, runs %+v", out, *runs)
	}
	if len(*msgs) != 1 || (*msgs)[0] != `Stop hook "echo ran > ran.txt" failed: its "shell": "bash" needs bash, which is not in PATH` {
		t.Errorf("messages %q", *msgs)
	}
}

// sh's own syntax error (exit 2) still blocks, lest a broken guard let
// the call through, but its reason says the command does not parse under
// sh. A hook's own reason that mentions a syntax error is its own.
func TestAnExit2FromShsSyntaxErrorSaysSo(t *testing.T) {
	h, runs, _ := runner(t, PreToolUse, settings.HookMatcher{Matcher: "Bash", Hooks: []settings.HookCommand{cmd("if then fi")}})
	out := h.Run(context.Background(), PreToolUse, PreToolUseInput(bash("ls")))
	if !out.Blocked || len(*runs) != 1 || !(*runs)[0].Blocked ||
		!strings.HasPrefix(out.Reason, "the hook command does not parse under sh (sh: ") || !strings.HasSuffix(out.Reason, `; if it is written for bash, add "shell": "bash" to the hook`) {
		t.Fatalf("outcome %+v", out)
	}

	h, _, _ = runner(t, PreToolUse, settings.HookMatcher{Matcher: "Bash", Hooks: []settings.HookCommand{cmd("echo 'lint: syntax error in a.py' >&2; exit 2")}})
	if out := h.Run(context.Background(), PreToolUse, PreToolUseInput(bash("ls"))); !out.Blocked || out.Reason != "lint: syntax error in a.py" {
		t.Errorf("a hook's own reason: %+v", out)
	}

	h, _, msgs := runner(t, SessionStart, settings.HookMatcher{Hooks: []settings.HookCommand{cmd("if then fi")}})
	h.Run(context.Background(), SessionStart, SessionStartInput("startup", "m"))
	if len(*msgs) != 1 || !strings.Contains((*msgs)[0], `exited 2: the hook command does not parse under sh`) {
		t.Errorf("messages %q", *msgs)
	}
}

func TestShellProblem(t *testing.T) {
	for shell, want := range map[string]string{
		"":           "",
		"bash":       "",
		"powershell": `shell "powershell" is not one trail runs`,
		"Bash":       `(did you mean "bash"?)`,
	} {
		if got := ShellProblem(shell); want == "" && got != "" || !strings.Contains(got, want) {
			t.Errorf("ShellProblem(%q) = %q, want %q", shell, got, want)
		}
	}
}
