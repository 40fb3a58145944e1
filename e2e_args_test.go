package main_test

import (
	"strings"
	"testing"

	"trail/core/provider/wire/wiretest"
)

// Words of an unquoted prompt stay words: after the prompt's first word
// only options written in full are read.
func TestPromptsStayPrompts(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	tests := []struct {
		name       string
		args       []string
		wantStdout string
	}{
		{"-v inside a prompt", []string{"run", "--provider", "echo", "what", "does", "grep", "-v", "do"}, "echo: what does grep -v do\n"},
		{"-h inside a prompt is no help lookup", []string{"run", "--provider", "echo", "how", "does", "ls", "-h", "work"}, "echo: how does ls -h work\n"},
		{"--help inside a prompt", []string{"run", "--provider", "echo", "what", "is", "--help", "for"}, "echo: what is --help for\n"},
		{"an unknown option after prompt words", []string{"run", "--provider", "echo", "compare", "-x", "and", "--frob"}, "echo: compare -x and --frob\n"},
		{"an option written in full after the prompt is read", []string{"run", "hi", "--provider", "echo", "--output-format", "text"}, "echo: hi\n"},
		{"a short option after the prompt is a word", []string{"run", "--provider", "echo", "hi", "-o", "json"}, "echo: hi -o json\n"},
		{"a prompt that starts with - after --", []string{"run", "--provider", "echo", "--", "-v is verbose?"}, "echo: -v is verbose?\n"},
		{"trail PROMPT is run", []string{"hi there", "--provider", "echo"}, "echo: hi there\n"},
		{"trail -p PROMPT is run", []string{"-p", "hi", "--provider", "echo"}, "echo: hi\n"},
		{"a one-word prompt is run", []string{"--provider", "echo", "hello"}, "echo: hello\n"},
	}
	for _, tt := range tests {
		r := e.run("", tt.args...)
		if r.code != 0 || r.stdout != tt.wantStdout {
			t.Errorf("%s: trail %q: %s", tt.name, tt.args, r)
		}
	}
	id := e.sessionIDs()[0]
	if r := e.must("", "resume", id, "why", "-v", "-q"); r.stdout != "echo: why -v -q\n" {
		t.Errorf("resume: %s", r)
	}
}

// Mistakes are usage errors (exit 2) that name the fix.
func TestHelpFindsTheWay(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	tests := []struct {
		name       string
		args       []string
		wantStderr string
	}{
		{"a misspelt command", []string{"rnu", "hi"}, "trail: unknown command \"rnu\"\nhint: did you mean trail run? (to send it as a prompt: trail run rnu)\n"},
		{"a misspelt option", []string{"run", "--provder", "echo", "hi"}, "trail: unknown option --provder\nhint: did you mean --provider? (see trail run --help)\n"},
		{"a misspelt global option", []string{"--provder", "echo", "hi"}, "trail: unknown option --provder\nhint: did you mean --provider? (see trail --help)\n"},
		{"a prompt that starts with a dash", []string{"run", "--provider", "echo", "-v is verbose?"},
			"trail: unknown option \"-v is verbose?\"\nhint: a prompt that starts with \"-\" goes after --: trail run -- \"-v is verbose?\" (or use -p)\n"},
		{"an unknown help topic", []string{"help", "rnu"},
			"trail: no help topic \"rnu\"\nhint: did you mean trail help run? topics: run, resume, compact, list, delete, replay, validate-log, migrate-history, import, export, config, completion, help\n"},
		{"a misspelt status", []string{"list", "--status", "idel"},
			"trail: unknown status \"idel\"\nhint: did you mean --status idle? statuses: idle, running, requires_action, terminated, corrupt\n"},
		{"completion without a shell", []string{"completion"}, "trail: name the shell to complete for\nhint: trail completion bash, zsh or fish\n"},
	}
	for _, tt := range tests {
		r := e.run("", tt.args...)
		if r.code != 2 || r.stdout != "" || r.stderr != tt.wantStderr {
			t.Errorf("%s: trail %q: %s", tt.name, tt.args, r)
		}
	}
	// every command's help has examples, and says the prompt rule where
	// there is a prompt
	for _, cmd := range []string{"run", "resume", "compact", "list", "delete", "replay", "validate-log", "migrate-history", "config", "completion"} {
		r := e.must("", cmd, "--help")
		if n := strings.Count(r.stdout[strings.Index(r.stdout, "EXAMPLES:")+1:], "\n      trail ") + strings.Count(r.stdout, "\n      source "); !strings.Contains(r.stdout, "EXAMPLES:") || n < 2 {
			t.Errorf("trail %s --help has %d examples:\n%s", cmd, n, r.stdout)
		}
		if (cmd == "run" || cmd == "resume") && !strings.Contains(r.stdout, "only options written in full are read") {
			t.Errorf("trail %s --help does not say the prompt rule", cmd)
		}
	}
	if r := e.must("", "help", "list"); !strings.Contains(r.stdout, "trail list - list stored sessions") {
		t.Errorf("help list: %s", r)
	}
	if r := e.must("", "--help"); !strings.Contains(r.stdout, `trail "PROMPT" and trail -p "PROMPT" are trail run`) {
		t.Errorf("trail --help: %s", r)
	}
}

// A bare trail with its input piped runs the input as trail run would; an
// empty input is "no prompt" (exit 2), never help on stdout, which a
// script would take for the answer. On a terminal, bare trail is help.
func TestBareTrailWithPipedInputIsRun(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.setenv("TRAIL_PROVIDER=echo")
	if r := e.must("what does grep -v do\n"); r.stdout != "echo: what does grep -v do\n" {
		t.Errorf("piped into bare trail: %s", r)
	}
	if len(e.sessionIDs()) != 1 {
		t.Errorf("sessions %v, want the one run", e.sessionIDs())
	}
	if r := e.run(""); r.code != 2 || r.stdout != "" || !strings.Contains(r.stderr, "trail: no prompt") {
		t.Errorf("bare trail with empty input: %s", r)
	}
	code, shown := e.startOnTerminal().wait()
	if code != 0 || !strings.Contains(shown, "USAGE:") || !strings.Contains(shown, "echo \"PROMPT\" | trail") {
		t.Errorf("bare trail on a terminal: exit %d\n%s", code, shown)
	}
}

// An option given an empty value (an unset variable in a script) is
// refused, not taken as absent: --cassette "" made the real provider the
// keys pick answer a test meant to be offline, --session-id "" started a
// session under a random id. Where empty means something (no system
// prompt, no tools) it stays a value.
func TestAnEmptyOptionValueIsRefused(t *testing.T) {
	t.Parallel()
	srv := wiretest.NewServer(t, wiretest.Replay(wiretest.Transcript(t, "anthropic/text.sse")))
	e := anthropicEnv(t)
	e.setenv("ANTHROPIC_BASE_URL=" + srv.URL)
	for _, args := range [][]string{
		{"run", "--cassette", "", "offline test"},
		{"run", "--cassette=", "offline test"},
		{"run", "--session-id", "", "hi"},
		{"run", "--name", "", "hi"},
		{"run", "--system-file", "", "hi"},
		{"run", "--provider", "", "hi"},
		{"run", "-m", "", "hi"},
		{"--home", "", "run", "hi"},
		{"run", "hi", "--settings", ""},
		{"list", "--home="},
		{"run", "--disallowedTools", "", "hi"},
		{"run", "--allowed-tools=", "hi"},
		{"run", "--disallowedTools", ",", "hi"}, // "$A,$B", both unset
		{"validate-log", ""},
		{"import", ""},
	} {
		r := e.run("", args...)
		if r.code != 2 || !strings.Contains(r.stderr, "empty") || !strings.Contains(r.stderr, "(an unset variable?)") {
			t.Errorf("trail %q: %s", args, r)
		}
	}
	if n := srv.Requests(); n != 0 {
		t.Errorf("the provider got %d requests from commands that were refused", n)
	}
	if len(e.sessionIDs()) != 0 {
		t.Errorf("a refused command made sessions: %v", e.sessionIDs())
	}
	if r := e.run("", "run", "--system", "", "--tools", "", "hi"); r.code != 0 || r.stdout != "Hello!\n" {
		t.Errorf("--system \"\" --tools \"\": %s", r)
	}
}
