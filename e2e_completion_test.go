package main_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// completeInBash sources `trail completion bash` in a real bash, runs the
// completion function on words, the last one being completed, and gives
// the candidates as bash would insert them.
func (e *env) completeInBash(words ...string) []string {
	e.t.Helper()
	script := `source <(trail completion bash) || exit 9
complete -p trail >/dev/null || exit 8
COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1))
_trail
printf '%s\0' "${COMPREPLY[@]}"`
	c := exec.Command("bash", append([]string{"-c", script, "bash"}, words...)...)
	c.Dir = e.cwd
	c.Env = append(e.environ(), "PATH="+filepath.Dir(trailBin)+":"+os.Getenv("PATH"))
	out, err := c.Output()
	if err != nil {
		e.t.Fatalf("bash completion of %q: %v\n%s", words, err, out)
	}
	return strings.FieldsFunc(string(out), func(r rune) bool { return r == 0 })
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
	// --home as typed, ~ not yet expanded by the shell ($HOME is e.user)
	e.must("", "--home", filepath.Join(e.user, "h2"), "run", "--provider", "echo", "--name", "under-tilde", "x")
	if got := e.completeInBash("trail", "--home", "~/h2", "delete", "under"); len(got) != 1 || got[0] != "under-tilde" {
		t.Errorf("--home ~/h2 delete under<TAB>: %q", got)
	}
	// --home as typed with quotes or backslashes (bash hands the words
	// over as typed): the shell would unquote it, and so does completion
	e.must("", "--home", filepath.Join(e.user, "my home"), "run", "--provider", "echo", "--name", "spaced-home", "x")
	for _, typed := range []string{`~/my\ home`, `~/"my home"`, `'` + filepath.Join(e.user, "my home") + `'`} {
		if got := e.completeInBash("trail", "--home", typed, "delete", "spa"); len(got) != 1 || got[0] != "spaced-home" {
			t.Errorf("--home %s delete spa<TAB>: %q", typed, got)
		}
	}
	// a home the shell would expand offers nothing, not the default
	// home's sessions
	if got := e.completeInBash("trail", "--home", `"$HOME/my home"`, "delete", "tri"); len(got) != 0 {
		t.Errorf(`--home "$HOME/my home" delete tri<TAB>: %q, want nothing`, got)
	}
	// a quoted ~ is no home folder: the shell would not expand it
	if got := e.completeInBash("trail", "--home", `"~/my home"`, "delete", "spa"); len(got) != 0 {
		t.Errorf(`--home "~/my home" delete spa<TAB>: %q, want nothing`, got)
	}
	// after an opening quote a name goes in as it is, closed
	e.must("", "run", "--provider", "echo", "--name", "fix the build", "x")
	for _, q := range []string{"'", `"`} {
		if got := e.completeInBash("trail", "resume", q+"fix"); len(got) != 1 || got[0] != "fix the build"+q {
			t.Errorf("resume %sfix<TAB>: %q", q, got)
		}
	}
	// after --, words are the prompt: no options
	if got := e.completeInBash("trail", "run", "--", "--"); len(got) != 0 {
		t.Errorf("run -- --<TAB>: %q, want nothing", got)
	}
	for _, sh := range []string{"zsh", "fish"} {
		if r := e.must("", "completion", sh); !strings.Contains(r.stdout, "trail __complete") {
			t.Errorf("completion %s: %s", sh, r)
		}
	}
	if r := e.run("", "completion", "tcsh"); r.code != 2 {
		t.Errorf("completion tcsh: %s", r)
	}
	if r := e.run("", "completion", "bash", "extra"); r.code != 2 || !strings.Contains(r.stderr, `unexpected argument "extra"`) {
		t.Errorf("completion bash extra: %s", r)
	}
}

// A session's name is data, whoever wrote it (a shared home, a copied
// record): completing it must run nothing, and what bash inserts must be
// the name as one word. compgen -W expanded $(...) and backquotes in names
// at every TAB, and split a name with a space.
func TestBashCompletionOfHostileNamesRunsNothing(t *testing.T) {
	t.Parallel()
	if _, err := exec.LookPath("bash"); err != nil {
		t.Skip("no bash")
	}
	e := newEnv(t)
	names := []string{"$(touch ran-ds)", "`touch ran-bt`", "has space", "o'brien", "~root", "glob*", "plain"}
	for _, n := range names {
		e.must("", "run", "--provider", "echo", "--name", n, "x")
	}
	for _, cur := range []string{"", "$", "`", "has", "o", "~", "g", "pl"} {
		got := e.completeInBash("trail", "resume", cur)
		for _, inserted := range got {
			// what bash would put on the line, read back as a shell word
			// read back in the session's folder: were a name ever inserted
			// unquoted, what it runs lands where the check below looks
			rb := exec.Command("bash", "-c", "printf '%s' "+inserted)
			rb.Dir = e.cwd
			out, err := rb.Output()
			if err != nil {
				t.Errorf("%q<TAB> inserts %q, which bash cannot read back: %v", cur, inserted, err)
				continue
			}
			if w := string(out); !strings.HasPrefix(w, "--") && !slices.Contains(names, w) && len(w) != 6 {
				t.Errorf("%q<TAB> inserts %q, read back as %q: not a session's name or short id", cur, inserted, w)
			}
		}
	}
	if got := e.completeInBash("trail", "resume", "has"); len(got) != 1 || got[0] != `has\ space` {
		t.Errorf("has<TAB> = %q, want one word, has\\ space", got)
	}
	if got := e.completeInBash("trail", "resume", "o"); len(got) != 1 || got[0] != `o\'brien` {
		t.Errorf("o<TAB> = %q: a quote in one name must not swallow the others", got)
	}
	for _, f := range []string{"ran-ds", "ran-bt"} {
		if e.exists(f) {
			t.Errorf("completing a session name ran the command in it (%s made)", f)
		}
	}
}

// fish completes the names as they are, running nothing (fish quotes what
// it inserts itself).
func TestFishCompletionOfHostileNamesRunsNothing(t *testing.T) {
	t.Parallel()
	if _, err := exec.LookPath("fish"); err != nil {
		t.Skip("no fish")
	}
	e := newEnv(t)
	for _, n := range []string{"$(touch ran-ds)", "has space"} {
		e.must("", "run", "--provider", "echo", "--name", n, "x")
	}
	script := e.writeFile("trail.fish", e.must("", "completion", "fish").stdout)
	c := exec.Command("fish", "--no-config", "-c", "source "+script+"; complete -C 'trail resume '")
	c.Dir = e.cwd
	c.Env = append(e.environ(), "PATH="+filepath.Dir(trailBin)+":"+os.Getenv("PATH"))
	out, err := c.Output()
	if err != nil {
		t.Fatalf("fish: %v\n%s", err, out)
	}
	lines := strings.Split(string(out), "\n")
	for _, n := range []string{"$(touch ran-ds)", "has space"} {
		if !slices.Contains(lines, n) {
			t.Errorf("fish does not offer %q: %q", n, lines)
		}
	}
	if e.exists("ran-ds") {
		t.Error("completing a session name ran the command in it")
	}
}

// bash splits a word at a colon: a name such as fix:tests completes, and
// only what follows the colon is inserted (bash replaces only that).
func TestBashCompletionOfANameWithAColon(t *testing.T) {
	t.Parallel()
	if _, err := exec.LookPath("bash"); err != nil {
		t.Skip("no bash")
	}
	e := newEnv(t)
	e.must("", "run", "--provider", "echo", "--name", "fix:tests", "x")
	if got := e.completeInBash("trail", "resume", "fix", ":", "te"); len(got) != 1 || got[0] != "tests" {
		t.Errorf("fix:te<TAB> = %q, want tests after the colon", got)
	}
	if got := e.completeInBash("trail", "resume", "fi"); len(got) != 1 || got[0] != "fix:tests" {
		t.Errorf("fi<TAB> = %q", got)
	}
	if got := strings.Join(e.completeInBash("trail", "run", "--permission-mode", ""), " "); got != "default plan acceptEdits dontAsk bypassPermissions" {
		t.Errorf("--permission-mode <TAB> = %q", got)
	}
	// bash splits --option=value and a=b at the =: the value completes
	e.must("", "run", "--provider", "echo", "--name", "a=b", "x")
	if got := e.completeInBash("trail", "run", "--permission-mode", "=", "ac"); len(got) != 1 || got[0] != "acceptEdits" {
		t.Errorf("--permission-mode=ac<TAB> = %q", got)
	}
	if got := e.completeInBash("trail", "resume", "a", "=", ""); len(got) != 1 || got[0] != "b" {
		t.Errorf("a=<TAB> = %q, want b after the =", got)
	}
	for _, tt := range []struct{ words, want string }{
		{"export --to", "claude markdown"},
		{"run --log-requests", "digest full"},
		{"resume x --approve", "all"},
	} {
		words := append([]string{"trail"}, strings.Fields(tt.words)...)
		if got := strings.Join(e.completeInBash(append(words, "")...), " "); got != tt.want {
			t.Errorf("%s <TAB> = %q, want %q", tt.words, got, tt.want)
		}
	}
}
