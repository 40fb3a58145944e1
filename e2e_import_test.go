package main_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/tidwall/gjson"

	"trail/core/provider/wire/wiretest"
)

// peerFiles are the session files of other agents in testdata/peers: the
// real ones from ../shared/peer-sessions and the tool-using ones made in
// their shapes (testdata/peers/README.md).
func peerFiles(t *testing.T) []string {
	t.Helper()
	files, err := filepath.Glob("testdata/peers/*.jsonl")
	if err != nil || len(files) < 8 {
		t.Fatalf("testdata/peers: %v %v", files, err)
	}
	for i, f := range files {
		if files[i], err = filepath.Abs(f); err != nil {
			t.Fatal(err)
		}
	}
	return files
}

// Each peer file imports as a new session that resumes with the echo
// provider, replays to its record and validates --strict (the test's
// cleanup checks the last two for every log); every skipped entry is a
// line of the log, and the summary on stderr counts them.
func TestE2EImportEachPeerFileResumesReplaysAndValidates(t *testing.T) {
	t.Parallel()
	for _, f := range peerFiles(t) {
		t.Run(filepath.Base(f), func(t *testing.T) {
			t.Parallel()
			e := newEnv(t)
			r := e.must("", "import", f)
			id := strings.TrimSpace(r.stdout)
			if id != e.onlySession() {
				t.Fatalf("stdout %q is not the new session's id %s", r.stdout, e.onlySession())
			}
			if !regexp.MustCompile(`^trail: imported (Claude Code|Codex|Gemini CLI|pi) session \S+ from ` + regexp.QuoteMeta(filepath.Base(f)) + ` as ` + id + `: \d+ messages`).MatchString(r.stderr) {
				t.Fatalf("summary line: %q", r.stderr)
			}
			rec := e.record(id)
			from, _ := rec["importedFrom"].(map[string]any)
			if from["path"] != f || from["format"] == nil || from["importedAt"] == nil {
				t.Fatalf("importedFrom %v", rec["importedFrom"])
			}
			msgs := e.messages(id)
			if msgs[0]["role"] != "system" {
				t.Fatalf("first message %v", msgs[0])
			}
			for _, m := range msgs[1:] {
				md, _ := m["metadata"].(map[string]any)
				if md["importedId"] == nil && md["synthetic"] != true {
					t.Fatalf("message without its original id: %v", m)
				}
				if m["role"] == "assistant" && md["synthetic"] != true && md["model"] == nil {
					t.Fatalf("answer without its model: %v", m)
				}
			}
			skipped := e.events(id, "import_skipped")
			summary := e.events(id, "import_summary")
			if len(summary) != 1 || int(summary[0]["skipped"].(float64)) != len(skipped) {
				t.Fatalf("import_summary %v, %d import_skipped lines", summary, len(skipped))
			}
			if len(skipped) > 0 && !strings.Contains(r.stderr, "skipped (") {
				t.Fatalf("skipped entries not counted on stderr: %q", r.stderr)
			}
			for _, s := range skipped {
				if s["type"] == nil || s["reason"] == nil || s["line"] == nil {
					t.Fatalf("import_skipped %v", s)
				}
			}
			before := len(msgs)
			out := e.must("", "resume", id, "--provider", "echo", "and now?")
			if out.stdout != "echo: and now?\n" {
				t.Fatalf("resume: %s", out)
			}
			if n := len(e.messages(id)); n != before+2 {
				t.Fatalf("resume made %d messages of %d", n, before)
			}
			if resync := e.events(id, "log_resync"); len(resync) != 0 {
				t.Fatalf("the imported log needed a re-sync: %v", resync)
			}
			if v := e.run("", "validate-log", "--strict", id); v.code != 0 {
				t.Fatalf("validate-log --strict: %s", v)
			}
		})
	}
}

// A file cut short, a line in it that is not JSON, a file of no agent
// and trail's own log are exit 7 naming the line, and write nothing.
func TestE2EImportRefusesTruncatedAndForeignFilesNamingTheLine(t *testing.T) {
	t.Parallel()
	abs := func(p string) string {
		a, err := filepath.Abs(p)
		if err != nil {
			t.Fatal(err)
		}
		return a
	}
	rows := []struct {
		name, file, from string
		want             string
	}{
		{"a Claude Code file cut mid-line", "testdata/peers/broken/claude-truncated.jsonl", "", "claude-truncated.jsonl: line 5: the last line is cut short"},
		{"a line in the middle that is not JSON", "testdata/peers/broken/pi-merge-conflict.jsonl", "", "pi-merge-conflict.jsonl: line 5: not a JSON object"},
		{"JSON lines of no agent trail knows", "testdata/peers/broken/openai-chat-export.jsonl", "", "openai-chat-export.jsonl: line 1: its first entry is none of theirs"},
		{"trail's own log", "testdata/logs/valid.jsonl", "", "valid.jsonl: line 1: this is a trail (or Robota) log"},
		{"a file of one agent named as another's", "testdata/peers/codex-rollout-resumed-3-turns.jsonl", "gemini", "line 1: not a Gemini CLI session: it looks like a Codex session (--from codex)"},
	}
	for _, r := range rows {
		t.Run(r.name, func(t *testing.T) {
			t.Parallel()
			e := newEnv(t)
			args := []string{"import", abs(r.file)}
			if r.from != "" {
				args = append(args, "--from", r.from)
			}
			res := e.run("", args...)
			if res.code != 7 || !strings.Contains(res.stderr, r.want) || res.stdout != "" {
				t.Fatalf("want exit 7 and %q: %s", r.want, res)
			}
			if lines := strings.Split(strings.TrimSpace(res.stderr), "\n"); len(lines) > 2 || !strings.HasPrefix(lines[0], "trail: ") {
				t.Fatalf("a one-line error (and a hint): %q", res.stderr)
			}
			if files := filesUnder(t, e.home); len(files) != 0 {
				t.Fatalf("a refused import wrote %v", files)
			}
		})
	}
}

func TestE2EImportFromStandardInputDryRunAndBadArguments(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	pi, err := os.ReadFile("testdata/peers/pi-tools-branched.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	dry := e.must(string(pi), "import", "-", "--dry-run")
	if files := filesUnder(t, e.home); len(files) != 0 {
		t.Fatalf("a dry run wrote %v", files)
	}
	for _, want := range []string{"cwd:       /home/user/peerlab/work/proj", "provider:  anthropic claude-sonnet-4-5", "title:     explore src", "assistant  Listing src/ and reading the main file. → bash"} {
		if !strings.Contains(dry.stdout, want) {
			t.Fatalf("dry run does not show %q:\n%s", want, dry.stdout)
		}
	}
	if !strings.HasPrefix(dry.stderr, "trail: dry run, nothing written: would import pi session 01a1fc70-0000-7000-8000-000000000002 from standard input:") ||
		!strings.Contains(dry.stderr, "1 tool result added for calls the file left unanswered") {
		t.Fatalf("dry run summary: %q", dry.stderr)
	}
	r := e.must(string(pi), "import", "-", "--json", "--name", "from-pi", "--cwd", e.cwd)
	var sum map[string]any
	if err := json.Unmarshal([]byte(r.stdout), &sum); err != nil {
		t.Fatalf("--json: %v\n%s", err, r.stdout)
	}
	id, _ := sum["session_id"].(string)
	if id != e.onlySession() || sum["format"] != "pi" || sum["path"] != "-" || sum["compactions"] != 1.0 || sum["added_results"] != 1.0 {
		t.Fatalf("--json %v", sum)
	}
	rec := e.record(id)
	if rec["name"] != "from-pi" || rec["cwd"] != e.cwd || rec["title"] != "explore src" {
		t.Fatalf("record name %v cwd %v title %v", rec["name"], rec["cwd"], rec["title"])
	}
	// pi's compaction kept the last turn before it: the context is the
	// system prompt, the summary, that turn, and what came after.
	var roles []string
	for _, m := range e.messages(id) {
		roles = append(roles, m["role"].(string))
	}
	if got := strings.Join(roles, " "); got != "system user user assistant user user assistant" {
		t.Fatalf("context after pi's compaction: %s", got)
	}
	if mut := e.events(id, "history_mutation"); mut[len(mut)-4]["mutation"] != "replace_all" {
		t.Fatalf("the compaction is a replace_all in the log")
	}
	for _, row := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"import", "missing.jsonl"}, 3, "no such file"},
		{[]string{"import", "--from", "vim", "x.jsonl"}, 2, `unknown --from "vim"`},
		{[]string{"import"}, 2, "give exactly one session file"},
		{[]string{"import", "a.jsonl", "b.jsonl"}, 2, "give exactly one session file"},
		{[]string{"import", "."}, 2, "is a folder"},
	} {
		res := e.run("", row.args...)
		if res.code != row.code || !strings.Contains(res.stderr, row.want) {
			t.Fatalf("%v: want exit %d and %q: %s", row.args, row.code, row.want, res)
		}
	}
}

// conversation is what a session's messages say, for comparing two
// carriers of one conversation: roles, text, calls, results and which
// messages the harness added; ids, timestamps and the rest of metadata
// are each carrier's own, and the system prompt is trail's (Claude Code's
// file holds none).
func (e *env) conversation(id string) string {
	e.t.Helper()
	var b strings.Builder
	for _, m := range e.messages(id) {
		if m["role"] == "system" {
			continue
		}
		content, _ := m["content"].(string)
		b.WriteString(m["role"].(string) + "|" + content)
		if id, ok := m["toolCallId"].(string); ok {
			b.WriteString("|" + id + "|" + m["name"].(string))
		}
		calls, _ := m["toolCalls"].([]any)
		for _, c := range calls {
			c := c.(map[string]any)
			fn := c["function"].(map[string]any)
			var args any
			_ = json.Unmarshal([]byte(fn["arguments"].(string)), &args)
			compact, _ := json.Marshal(args)
			b.WriteString("|call " + c["id"].(string) + " " + fn["name"].(string) + " " + string(compact))
		}
		if md, _ := m["metadata"].(map[string]any); md["synthetic"] == true {
			b.WriteString("|synthetic")
		}
		b.WriteString("\n")
	}
	return b.String()
}

// A session trail ran (tool calls, a failed one, two steps) exports to
// Claude Code's format and imports back with the same messages; so does a
// session imported from Claude Code and exported again.
func TestE2EExportToClaudeRoundTripsThroughImport(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.writeFile("notes.txt", "one\ntwo\n")
	s := e.script(
		map[string]any{"text": "Reading it.", "toolCalls": []any{call("Read", map[string]any{"filePath": "notes.txt"}), nope(map[string]any{"x": 1})}, "usage": map[string]any{"inputTokens": 50, "outputTokens": 9}},
		answer("It has two lines."),
		answer("Yes: one and two."),
	)
	e.must("", "run", "--provider", "script", "--script", s, "how many lines in notes.txt?")
	id := e.onlySession()
	e.must("", "resume", id, "which?")
	out := filepath.Join(e.cwd, "export.jsonl")
	r := e.must("", "export", id, "--to", "claude", "--output", out)
	if strings.TrimSpace(r.stdout) != out || !strings.Contains(r.stderr, "exported 7 messages of session "+id) {
		t.Fatalf("export: %s", r)
	}
	stdout := e.must("", "export", id, "--to", "claude")
	if stdout.stdout != readFile(t, out) || stdout.stderr != "" {
		t.Fatal("--output and standard output differ, or stderr was not quiet")
	}
	back := strings.TrimSpace(e.must("", "import", out).stdout)
	if got, want := e.conversation(back), e.conversation(id); got != want {
		t.Fatalf("the round trip changed the conversation:\nwant\n%s\ngot\n%s", want, got)
	}
	if e.record(back)["importedFrom"].(map[string]any)["sessionId"] != id {
		t.Fatal("a trail id is a UUID: Claude Code's session keeps it")
	}

	claude, err := filepath.Abs("testdata/peers/claude-tools-compacted.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	imported := strings.TrimSpace(e.must("", "import", claude).stdout)
	again := filepath.Join(e.cwd, "again.jsonl")
	e.must("", "export", imported, "--to", "claude", "--output", again)
	reimported := strings.TrimSpace(e.must("", "import", again).stdout)
	if got, want := e.conversation(reimported), e.conversation(imported); got != want {
		t.Fatalf("Claude Code → trail → Claude Code → trail changed the conversation:\nwant\n%s\ngot\n%s", want, got)
	}
}

// --install files the transcript where Claude Code looks for it, and will
// not replace it (Claude Code may have added turns) without --force.
func TestE2EExportInstallsWhereClaudeCodeLooks(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.must("", "run", "--provider", "echo", "hello")
	id := e.onlySession()
	r := e.must("", "export", id, "--to", "claude", "--install")
	dir := "-" + strings.ReplaceAll(strings.TrimPrefix(e.cwd, "/"), "/", "-")
	dir = regexp.MustCompile(`[^A-Za-z0-9]`).ReplaceAllString(dir, "-")
	want := filepath.Join(e.user, ".claude", "projects", dir, id+".jsonl")
	if strings.TrimSpace(r.stdout) != want {
		t.Fatalf("installed at %q, want %q", r.stdout, want)
	}
	if !strings.Contains(r.stderr, "claude --resume "+id) {
		t.Fatalf("stderr does not say how to go on: %q", r.stderr)
	}
	if fi, err := os.Stat(want); err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("transcript file: %v %v", fi, err)
	}
	if again := e.run("", "export", id, "--to", "claude", "--install"); again.code != 2 || !strings.Contains(again.stderr, "already exists") {
		t.Fatalf("second install: %s", again)
	}
	e.must("", "export", id, "--to", "claude", "--install", "--force")
	conf := filepath.Join(e.cwd, "claude-config")
	e.setenv("CLAUDE_CONFIG_DIR=" + conf)
	r = e.must("", "export", "--last", "--to", "claude", "--install", "-q")
	if !strings.HasPrefix(strings.TrimSpace(r.stdout), filepath.Join(conf, "projects")+"/") || r.stderr != "" {
		t.Fatalf("CLAUDE_CONFIG_DIR: %s", r)
	}
	// as the settings read it: ~ is HOME's, ~user names no folder here
	e.setenv("CLAUDE_CONFIG_DIR=~/claude-config")
	if r := e.must("", "export", "--last", "--to", "claude", "--install", "--force", "-q"); !strings.HasPrefix(strings.TrimSpace(r.stdout), filepath.Join(e.user, "claude-config", "projects")+"/") {
		t.Fatalf("CLAUDE_CONFIG_DIR=~/claude-config: %s", r)
	}
	e.setenv("CLAUDE_CONFIG_DIR=~nobody/x")
	if r := e.run("", "export", "--last", "--to", "claude", "--install"); r.code != 2 || e.exists("~nobody") {
		t.Fatalf("CLAUDE_CONFIG_DIR=~nobody/x: %s", r)
	}
	e.setenv("CLAUDE_CONFIG_DIR=" + conf)
	for _, row := range []struct {
		args []string
		want string
	}{
		{[]string{"export", id}, "no export format given"},
		{[]string{"export", id, "--to", "html"}, `unknown export format "html"`},
		{[]string{"export", id, "--to", "markdown", "--install"}, "--install is for --to claude"},
		{[]string{"export", "--to", "markdown"}, "no session given"},
	} {
		if res := e.run("", row.args...); res.code != 2 || !strings.Contains(res.stderr, row.want) {
			t.Fatalf("%v: %s", row.args, res)
		}
	}
	if res := e.run("", "export", "nosuchsession", "--to", "markdown"); res.code != 3 {
		t.Fatalf("unknown session: %s", res)
	}
}

// The Markdown transcript of an imported Claude Code session (tool calls,
// a failed one, one trail added, harness context, a compaction) matches
// testdata/golden/export-markdown.md, the session's id and times masked.
func TestE2EExportMarkdownGolden(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	settings := e.writeFile("settings.json", `{"systemPrompt": "You are trail."}`)
	claude, err := filepath.Abs("testdata/peers/claude-tools-compacted.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	id := strings.TrimSpace(e.must("", "--settings", settings, "import", claude).stdout)
	md := e.must("", "export", id, "--to", "markdown").stdout
	md = strings.ReplaceAll(md, id, "<ID>")
	md = strings.ReplaceAll(md, claude, "<PATH>")
	md = regexp.MustCompile(`(?m)^- \*\*(Created|Updated):\*\* .*$`).ReplaceAllString(md, "- **$1:** <TIME>")
	golden := "testdata/golden/export-markdown.md"
	if os.Getenv("UPDATE_GOLDEN") != "" {
		if err := os.WriteFile(golden, []byte(md), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if want := readFile(t, golden); md != want {
		t.Fatalf("markdown export differs from %s; got:\n%s", golden, md)
	}
}

// A session trail compacted exports with the compaction shown: marked in
// Markdown, and to Claude Code as Claude Code's own compaction, which
// imports back as one. A session without a log exports the record's
// messages and says so.
func TestE2EExportOfACompactedSessionAndOfOneWithoutALog(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	s := e.script(answer("first answer"), answer("The user asked twice."), answer("third answer"))
	e.must("", "run", "--provider", "script", "--script", s, "first")
	id := e.onlySession()
	e.must("", "compact", id)
	e.must("", "resume", id, "third")
	md := e.must("", "export", id, "--to", "markdown").stdout
	for _, want := range []string{"## User\n\nfirst\n", "*Context compacted here: 3 messages became 2.*", "## Context summary\n\nThe user asked twice.\n", "## Assistant\n\nthird answer\n"} {
		if !strings.Contains(md, want) {
			t.Fatalf("markdown lacks %q:\n%s", want, md)
		}
	}
	out := filepath.Join(e.cwd, "c.jsonl")
	e.must("", "export", id, "--to", "claude", "--output", out)
	if first := strings.SplitN(readFile(t, out), "\n", 2)[0]; !strings.Contains(first, `"subtype":"compact_boundary"`) {
		t.Fatalf("first line %s", first)
	}
	back := strings.TrimSpace(e.must("", "import", out).stdout)
	msgs := e.messages(back)
	if len(msgs) != 4 || !strings.HasSuffix(msgs[1]["content"].(string), "The user asked twice.") || msgs[3]["content"] != "third answer" {
		t.Fatalf("imported back: %v", msgs)
	}

	e.must("", "run", "--provider", "echo", "--no-log", "--name", "nolog", "unlogged")
	r := e.must("", "export", "nolog", "--to", "markdown")
	if !strings.Contains(r.stdout, "## User\n\nunlogged\n") || !strings.Contains(r.stderr, "the session has no log") {
		t.Fatalf("export without a log: %s", r)
	}
}

// A tool result that failed in Claude Code (is_error) goes back to
// Anthropic marked is_error after the import, as trail's own failures do.
func TestE2EAnImportedFailedToolResultIsSentAsAnError(t *testing.T) {
	t.Parallel()
	srv := wiretest.NewServer(t, wiretest.Replay(wiretest.Transcript(t, "anthropic/text.sse")))
	e := anthropicEnv(t)
	// The file up to its compaction: the failed test run is still in
	// the conversation then.
	b, err := os.ReadFile("testdata/peers/claude-tools-compacted.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.SplitAfter(string(b), "\n")
	f := e.writeFile("before-compaction.jsonl", strings.Join(lines[:16], ""))
	id := strings.TrimSpace(e.must("", "import", f).stdout)
	e.must("", "resume", id, "--provider", "anthropic", "--base-url", srv.URL, "go on")
	results := map[string]gjson.Result{}
	gjson.GetBytes(srv.Body(0), "messages.#.content|@flatten|#(type==\"tool_result\")#").ForEach(func(_, b gjson.Result) bool {
		results[b.Get("tool_use_id").String()] = b
		return true
	})
	bash, ok := results["toolu_01Bash"]
	if !ok || !bash.Get("is_error").Bool() {
		t.Fatalf("the failed result: %s (all: %v)", bash.Raw, results)
	}
	if read := results["toolu_01Read"]; !read.Exists() || read.Get("is_error").Exists() {
		t.Errorf("a result that succeeded: %s", read.Raw)
	}
}

// Importing a session a second time makes a second session, and says so,
// naming the first: two copies going their own ways used to pass unsaid.
// Each agent's file is told apart from the others.
func TestE2EImportingTheSameSessionAgainSaysSo(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	files := peerFiles(t)
	first := map[string]string{}
	for _, f := range files {
		first[f] = strings.TrimSpace(e.must("", "import", "--cwd", e.cwd, f).stdout)
	}
	for _, f := range files {
		r := e.must("", "import", "--cwd", e.cwd, "--json", f)
		var out map[string]any
		if err := json.Unmarshal([]byte(r.stdout), &out); err != nil {
			t.Fatalf("%s: %v\n%s", f, err, r)
		}
		before, _ := out["imported_before"].([]any)
		if len(before) != 1 || before[0] != first[f] || !strings.Contains(r.stderr, "was imported before ("+first[f]+")") {
			t.Errorf("second import of %s: imported_before %v\n%s", filepath.Base(f), out["imported_before"], r.stderr)
		}
	}
}
