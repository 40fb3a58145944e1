package main_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"
)

// The text of a session is what a model, a tool or another program wrote:
// list and replay --format text show its escape sequences as text
// (\x1b…), never send them to the terminal, and a piped list keeps one
// row of six columns a session whatever the record holds.

// escapePrompt retitles the window, clears the screen and starts a C1 CSI.
const escapePrompt = "\x1b]0;pwned\a\x1b[2Jline1\nline2 \u009b31m\x7f"

// sessionsWithEscapes makes two sessions: one run with escapePrompt, and
// one whose record another program wrote a name and a cwd into, with an
// ESC, a BEL, a tab, a newline and a CR. It returns the first one's id.
func sessionsWithEscapes(t *testing.T, e *env) string {
	t.Helper()
	e.must("", "run", "--provider", "echo", "--no-stdin", escapePrompt)
	first := e.onlySession()
	e.must("", "run", "--provider", "echo", "--no-stdin", "--name", "plain", "hello")
	for _, id := range e.sessionIDs() {
		if id == first {
			continue
		}
		b, err := os.ReadFile(e.recordPath(id))
		if err != nil {
			t.Fatal(err)
		}
		text := strings.Replace(string(b), `"name": "plain"`, `"name": "\u001b[31mred\u0007 name"`, 1)
		text = strings.Replace(text, `"cwd": "`+e.cwd+`"`, `"cwd": "`+e.cwd+`/a\tb\nc\rd\u001b[2J"`, 1)
		if text == string(b) {
			t.Fatalf("no name or cwd to change in the record:\n%s", b)
		}
		if err := os.WriteFile(e.recordPath(id), []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	return first
}

// noTerminalControls fails when out holds ESC, BEL or a C1 control.
func noTerminalControls(t *testing.T, what, out string) {
	t.Helper()
	if i := strings.IndexAny(out, "\x1b\a"); i >= 0 {
		t.Errorf("%s sends %q to the terminal:\n%q", what, out[i], out)
	}
	if strings.ContainsFunc(out, func(r rune) bool { return r >= 0x80 && r <= 0x9f }) || !utf8.ValidString(out) {
		t.Errorf("%s sends a C1 control or a byte that is not UTF-8:\n%q", what, out)
	}
}

func TestSessionTextReachesNoTerminalRaw(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	id := sessionsWithEscapes(t, e)

	r := e.must("", "list")
	noTerminalControls(t, "piped list", r.stdout)
	rows := strings.Split(strings.TrimSuffix(r.stdout, "\n"), "\n")
	if len(rows) != 2 {
		t.Fatalf("piped list: %d rows for 2 sessions:\n%s", len(rows), r.stdout)
	}
	for _, row := range rows {
		if n := len(strings.Split(row, "\t")); n != 6 {
			t.Errorf("piped list: a row of %d columns, want 6: %q", n, row)
		}
	}
	for _, want := range []string{`\x1b]0;pwned\a\x1b[2Jline1`, `\x1b[31mred\a name`, `/a\tb\nc\rd\x1b[2J`} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("piped list does not show %s:\n%s", want, r.stdout)
		}
	}

	r = e.must("", "replay", id, "--format", "text")
	noTerminalControls(t, "replay --format text", r.stdout)
	if !strings.Contains(r.stdout, "  \\x1b]0;pwned\\a\\x1b[2Jline1\n  line2 \\u009b31m\\x7f\n") {
		t.Errorf("replay --format text does not show the prompt escaped, its newline kept:\n%s", r.stdout)
	}

	// The exact forms still carry the text as it was, JSON-escaped: the
	// encoder writes C0 controls as \u escapes (DEL and C1 stay raw, as
	// JSON allows), so no ESC or BEL gets through.
	r = e.must("", "list", "--json")
	if strings.ContainsAny(r.stdout, "\x1b\a") {
		t.Errorf("list --json sends an ESC or a BEL:\n%q", r.stdout)
	}
	if !strings.Contains(r.stdout, `\u001b[31mred\u0007 name`) {
		t.Errorf("list --json does not carry the name as it is:\n%s", r.stdout)
	}
	r = e.must("", "replay", id, "--format", "jsonl")
	if strings.ContainsAny(r.stdout, "\x1b\a") {
		t.Errorf("replay --format jsonl sends an ESC or a BEL:\n%q", r.stdout)
	}
	if !strings.Contains(r.stdout, `\u001b]0;pwned\u0007\u001b[2Jline1\nline2 `) {
		t.Errorf("replay --format jsonl does not carry the prompt as it is:\n%s", r.stdout)
	}
}

// A lone CR in a prompt does not end the title: "done\rFAILED" cut at
// the CR would list as "done". The title keeps it, and the views show it
// escaped or folded.
func TestTitleKeepsWhatFollowsALoneCR(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.must("", "run", "--provider", "echo", "--no-stdin", "build done\rFAILED\r\nsecond line")
	if got := e.record(e.onlySession())["title"]; got != "build done\rFAILED" {
		t.Errorf("title %q, want %q", got, "build done\rFAILED")
	}
	// list's label folds runs of white space, the CR with them.
	r := e.must("", "list")
	if !strings.Contains(r.stdout, "\tbuild done FAILED\t") {
		t.Errorf("piped list does not show the whole title:\n%s", r.stdout)
	}
}

func TestSessionTextReachesNoTerminalRawOnATerminal(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	sessionsWithEscapes(t, e)
	for _, cols := range []int{200, 60} {
		e.cols = cols
		code, out := e.startOnTerminal("list").wait()
		if code != 0 {
			t.Fatalf("list on a terminal %d wide: exit %d:\n%s", cols, code, out)
		}
		noTerminalControls(t, "list on a terminal", out)
		lines := strings.Split(strings.TrimSuffix(out, "\r\n"), "\r\n")
		if len(lines) != 3 {
			t.Errorf("list on a terminal %d wide: %d lines for a header and 2 sessions:\n%s", cols, len(lines), out)
		}
		for _, l := range lines {
			if n := utf8.RuneCountInString(l); n > cols {
				t.Errorf("a row of %d columns on a terminal %d wide: %q", n, cols, l)
			}
		}
		if cols == 200 && !strings.Contains(out, `\x1b]0;pwned\a\x1b[2Jline1`) {
			t.Errorf("list on a terminal does not show the prompt escaped:\n%s", out)
		}
	}
}

// The model's answer is the result: exact into a pipe, where a script
// reads it, and escaped on a terminal, streamed or whole, where its escape
// sequences would act on the screen.
func TestAnAnswerIsExactInAPipeAndEscapedOnATerminal(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	s := e.script(map[string]any{"text": escapePrompt}, map[string]any{"text": escapePrompt, "delayMs": 200})
	if r := e.must("", "run", "--provider", "script", "--script", s, "hi"); r.stdout != escapePrompt+"\n" {
		t.Errorf("piped answer %q, want it exact", r.stdout)
	}
	code, shown := e.startOnTerminal("resume", "--last", "again").wait()
	if code != 0 || strings.ContainsAny(shown, "\x1b\a\u009b\x7f") || !strings.Contains(shown, `\x1b]0;pwned\a\x1b[2Jline1`) {
		t.Errorf("on a terminal: exit %d, %q", code, shown)
	}
}

// validate-log is for logs from elsewhere (CI, a bug report): its report
// quotes the log's own ids and paths, escaped in the formats people and
// GitHub's log view read, exact in JSON.
func TestValidateLogReportsAHostileLogEscaped(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	const hostile = `\u001b]52;c;cm0gLXJmIH4K\u0007\u001b]0;PWNED\u0007\u001b[2J`
	log := e.writeFile("evil\x1b]0;T\a.jsonl", `{"timestamp":"2026-01-01T00:00:00.000Z","sessionId":"s1","event":"tool_execution_request","seq":0,"executionId":"e","toolCallId":"`+hostile+`"}`+"\n"+
		`{"timestamp":"2026-01-01T00:00:01.000Z","sessionId":"s1","event":"provider_request","seq":1,"executionId":"x`+hostile+`"}`+"\n")
	for _, format := range []string{"text", "github"} {
		r := e.run("", "validate-log", "--format", format, log)
		if r.code != 7 { // an invalid log
			t.Errorf("--format %s: %s", format, r)
		}
		noTerminalControls(t, "validate-log --format "+format, r.stdout+r.stderr)
		if !strings.Contains(r.stdout, `\x1b]52;c;cm0gLXJmIH4K\a`) {
			t.Errorf("--format %s does not show the id, escaped:\n%s", format, r.stdout)
		}
	}
	r := e.run("", "validate-log", "--format", "json", log)
	if !strings.Contains(r.stdout, `\u001b]52;c;cm0gLXJmIH4K\u0007`) {
		t.Errorf("--format json does not carry the id as it is:\n%s", r.stdout)
	}
}

// trail config is how a cloned project's settings are looked at before
// trail runs there: its keys, values and the messages about them are
// escaped, as every other view is; --json stays exact.
func TestConfigShowsAProjectsSettingsEscaped(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.writeFile(".claude/settings.json", `{"provider":"echo","env":{"FOO\u001b]0;ENVK\u0007":"v"},
 "hooks":{"PreToolUse":[{"matcher":"\u001b]0;MATCH\u0007(","hooks":[{"type":"command","command":"true"}]}]}}`)
	for _, args := range [][]string{{"config"}, {"config", "--check"}} {
		r := e.run("", args...)
		noTerminalControls(t, strings.Join(args, " "), r.stdout+r.stderr)
		if !strings.Contains(r.stdout, `env.FOO\x1b]0;ENVK\a`) {
			t.Errorf("%s does not show the env key, escaped:\n%s", args, r.stdout)
		}
	}
	if r := e.run("", "config", "--check"); r.code != 7 || !strings.Contains(r.stdout, `\x1b]0;MATCH\a(`) {
		t.Errorf("config --check does not report the bad matcher: %s", r)
	}
	if r := e.must("", "config", "--json"); !strings.Contains(r.stdout, `FOO\u001b]0;ENVK\u0007`) {
		t.Errorf("config --json does not carry the key as it is:\n%s", r.stdout)
	}
}

// export --to markdown is a transcript for people: on a terminal the
// conversation's escape sequences show as text, as replay's do; into a
// pipe the Markdown is exact.
func TestExportMarkdownIsEscapedOnATerminal(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	s := e.script(answer("answer \x1b]52;c;cm0gLXJmIH4K\a \x1b]0;EXPORTED\a\x1b[2J done"))
	e.must("", "run", "--provider", "script", "--script", s, "q")
	code, out := e.startOnTerminal("export", "--last", "--to", "markdown").wait()
	if code != 0 {
		t.Fatalf("export on a terminal: exit %d:\n%s", code, out)
	}
	noTerminalControls(t, "export --to markdown on a terminal", out)
	if !strings.Contains(out, `answer \x1b]52;c;cm0gLXJmIH4K\a \x1b]0;EXPORTED\a\x1b[2J done`) {
		t.Errorf("export on a terminal does not show the answer escaped:\n%s", out)
	}
	if r := e.must("", "export", "--last", "--to", "markdown"); !strings.Contains(r.stdout, "answer \x1b]52;c;cm0gLXJmIH4K\a ") {
		t.Errorf("piped export is not exact:\n%q", r.stdout)
	}
}

// trail's own warnings quote paths and names that come from file names,
// records and other agents' files: escaped, one line each.
func TestWarningsQuotePathsEscaped(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.home += "\x1b]0;HT\a\nhome"
	e.rawLogs = true // its record is made corrupt
	e.must("", "run", "--provider", "echo", "hi")
	sid := e.onlySession()
	if err := os.WriteFile(e.recordPath(sid), []byte("{not json"), 0o644); err != nil {
		t.Fatal(err)
	}
	r := e.must("", "list")
	noTerminalControls(t, "list's warning", r.stderr)
	if !strings.Contains(r.stderr, `\x1b]0;HT\a\nhome`) || strings.Count(r.stderr, "\n") != 1 {
		t.Errorf("list's warning about a corrupt record does not quote its path escaped, on one line:\n%s", r.stderr)
	}
}

// The summary compact prints is a model's answer: escaped on a terminal,
// as run's is; exact into a pipe.
func TestCompactSummaryIsEscapedOnATerminal(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	const sum = "SUM \x1b]52;c;cm0gLXJmIH4K\a \x1b[2J end"
	s := e.script(answer("a1"), answer(sum), answer("a2"), answer(sum))
	e.must("", "run", "--provider", "script", "--script", s, "hi")
	code, out := e.startOnTerminal("compact", "--last", "--provider", "script", "--script", s).wait()
	if code != 0 {
		t.Fatalf("compact on a terminal: exit %d:\n%s", code, out)
	}
	noTerminalControls(t, "compact's summary on a terminal", out)
	if !strings.Contains(out, `SUM \x1b]52;c;cm0gLXJmIH4K\a \x1b[2J end`) {
		t.Errorf("compact on a terminal does not show the summary escaped:\n%s", out)
	}
}

// import's summary line names the file and the other agent's session id,
// both from outside: escaped.
func TestImportSummaryNamesTheFileEscaped(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	b, err := os.ReadFile(filepath.Join("testdata", "peers", "claude-2-turns-continued.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	f := e.writeFile("f\x1b]0;FNAME\a.jsonl", string(b))
	r := e.must("", "import", f)
	noTerminalControls(t, "import's summary", r.stderr)
	if !strings.Contains(r.stderr, `from f\x1b]0;FNAME\a.jsonl as `) {
		t.Errorf("import's summary does not name the file escaped:\n%s", r.stderr)
	}
}
