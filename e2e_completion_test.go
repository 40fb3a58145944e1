package main_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// completeInBash sources `trail completion bash` in a real bash and runs
// the completion function on words, the last one being completed.
func (e *env) completeInBash(words ...string) []string {
	e.t.Helper()
	script := `source <(trail completion bash) || exit 9
complete -p trail >/dev/null || exit 8
COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1))
_trail
printf '%s\n' "${COMPREPLY[@]}"`
	c := exec.Command("bash", append([]string{"-c", script, "bash"}, words...)...)
	c.Dir = e.cwd
	c.Env = append(e.environ(), "PATH="+filepath.Dir(trailBin)+":"+os.Getenv("PATH"))
	out, err := c.CombinedOutput()
	if err != nil {
		e.t.Fatalf("bash completion of %q: %v\n%s", words, err, out)
	}
	return strings.Fields(string(out))
}

// The bash script, sourced, completes commands, options, their values, and
// the names and short ids of the home's sessions.
func TestBashCompletionCompletesSessionNames(t *testing.T) {
	t.Parallel()
	if _, err := exec.LookPath("bash"); err != nil {
		t.Skip("no bash")
	}
	e := newEnv(t)
	e.must("", "run", "--provider", "echo", "--name", "triage-build", "one")
	e.must("", "run", "--provider", "echo", "--name", "triage-deploy", "two")
	short := e.listJSON()[0]["shortId"].(string)

	if got := strings.Join(e.completeInBash("trail", "resume", "tri"), " "); got != "triage-deploy triage-build" {
		t.Errorf("resume tri<TAB>: %q", got)
	}
	if got := e.completeInBash("trail", "replay", short[:3]); len(got) != 1 || got[0] != short {
		t.Errorf("replay <short id><TAB>: %q, want %s", got, short)
	}
	if got := strings.Join(e.completeInBash("trail", "re"), " "); got != "resume replay" {
		t.Errorf("re<TAB>: %q", got)
	}
	if got := strings.Join(e.completeInBash("trail", "list", "--js"), " "); got != "--json --jsonl" {
		t.Errorf("list --js<TAB>: %q", got)
	}
	if got := strings.Join(e.completeInBash("trail", "run", "--provider", ""), " "); got != "anthropic openai echo script cassette" {
		t.Errorf("run --provider <TAB>: %q", got)
	}
	// --home given on the line is the home whose sessions complete
	other := newEnv(t)
	other.must("", "run", "--provider", "echo", "--name", "elsewhere", "x")
	if got := e.completeInBash("trail", "--home", other.home, "delete", "else"); len(got) != 1 || got[0] != "elsewhere" {
		t.Errorf("--home H delete else<TAB>: %q", got)
	}
	for _, sh := range []string{"zsh", "fish"} {
		if r := e.must("", "completion", sh); !strings.Contains(r.stdout, "trail __complete") {
			t.Errorf("completion %s: %s", sh, r)
		}
	}
	if r := e.run("", "completion", "tcsh"); r.code != 2 {
		t.Errorf("completion tcsh: %s", r)
	}
}
