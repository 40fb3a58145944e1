package main_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestRunEchoPrintsAnswerAndSavesSession(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	r := e.must("", "run", "--provider", "echo", "hi")
	if r.stdout != "echo: hi\n" {
		t.Fatalf("stdout = %q, want %q", r.stdout, "echo: hi\n")
	}
	if r.stderr != "" {
		t.Errorf("stderr when piped = %q, want nothing", r.stderr)
	}
	id := e.onlySession()
	for path, want := range map[string]os.FileMode{
		e.home:                            0o700 | os.ModeDir,
		filepath.Join(e.home, "sessions"): 0o700 | os.ModeDir,
		filepath.Join(e.home, "logs"):     0o700 | os.ModeDir,
		e.recordPath(id):                  0o600,
		e.logPath(id):                     0o600,
	} {
		fi, err := os.Stat(path)
		if err != nil {
			t.Fatal(err)
		}
		if fi.Mode() != want {
			t.Errorf("%s mode = %v, want %v", path, fi.Mode(), want)
		}
	}
	msgs := e.messages(id)
	if len(msgs) != 3 || msgs[0]["role"] != "system" || msgs[1]["content"] != "hi" || msgs[2]["content"] != "echo: hi" {
		t.Fatalf("messages = %v", msgs)
	}
}

func TestRunIgnoresIdleInheritedStdin(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	pr, pw, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer pw.Close() // held open and never written, like a CI runner's stdin
	c := e.cmd("run", "--provider", "echo", "hi")
	c.Stdin = pr
	r := e.wait(c)
	pr.Close()
	if r.code != 0 || r.stdout != "echo: hi\n" {
		t.Fatalf("%s", r)
	}
	if r.elapsed > 10*time.Second {
		t.Fatalf("took %s: trail waited on an idle stdin", r.elapsed)
	}
	if !strings.Contains(r.stderr, "standard input") {
		t.Errorf("stderr = %q, want a one-line warning about stdin", r.stderr)
	}
}

func TestRunPromptFromStdinAndArguments(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	r := e.must("line one\nline two\n", "run", "--provider", "echo", "review this")
	if r.stdout != "echo: review this\n\nline one\nline two\n" {
		t.Fatalf("stdout = %q", r.stdout)
	}
	r = e.must("only stdin\n", "run", "--provider", "echo")
	if r.stdout != "echo: only stdin\n" {
		t.Fatalf("stdout = %q", r.stdout)
	}
	r = e.must("", "run", "--provider", "echo", "-p", "from flag")
	if r.stdout != "echo: from flag\n" {
		t.Fatalf("stdout = %q", r.stdout)
	}
	r = e.must("ignored\n", "run", "--provider", "echo", "--no-stdin", "only args")
	if r.stdout != "echo: only args\n" {
		t.Fatalf("stdout = %q", r.stdout)
	}
}

func TestScriptDrivesRunResumeResumeAcrossProcesses(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	s := e.script(map[string]any{"text": "first answer"}, map[string]any{"text": "second answer"}, map[string]any{"text": "third answer"})
	r := e.must("", "run", "--provider", "script", "--script", s, "one")
	if r.stdout != "first answer\n" {
		t.Fatalf("run: %s", r)
	}
	id := e.onlySession()
	// options (written in full) after the arguments, and the stored provider reused
	r = e.must("", "resume", id[:8], "two", "--output-format", "json")
	var res map[string]any
	if err := json.Unmarshal([]byte(r.stdout), &res); err != nil {
		t.Fatalf("json output: %v\n%s", err, r.stdout)
	}
	if res["result"] != "second answer" || res["session_id"] != id || res["subtype"] != "success" || res["is_error"] != false {
		t.Fatalf("result = %v", res)
	}
	r = e.must("", "resume", "--last", "three")
	if r.stdout != "third answer\n" {
		t.Fatalf("resume --last: %s", r)
	}
	msgs := e.messages(id)
	var contents []string
	for _, m := range msgs[1:] {
		contents = append(contents, m["content"].(string))
	}
	want := "one|first answer|two|second answer|three|third answer"
	if got := strings.Join(contents, "|"); got != want {
		t.Fatalf("conversation = %s, want %s", got, want)
	}
	if rec := e.record(id); rec["providerCalls"] != float64(3) || rec["messageCount"] != float64(7) {
		t.Fatalf("providerCalls = %v, messageCount = %v", rec["providerCalls"], rec["messageCount"])
	}
	// the script is exhausted: a provider error, and the session stays usable
	r = e.run("", "resume", id, "four")
	if r.code != 6 || !strings.Contains(r.stderr, "no response #4") {
		t.Fatalf("exhausted script: %s", r)
	}
	if rec := e.record(id); rec["stopReason"] != "error" {
		t.Fatalf("stopReason = %v, want error", rec["stopReason"])
	}
}

func TestForkContinuesInANewSession(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	s := e.script(map[string]any{"text": "a"}, map[string]any{"text": "b"})
	e.must("", "run", "--provider", "script", "--script", s, "--name", "base", "one")
	parent := e.onlySession()
	e.must("", "resume", "base", "--fork", "two")
	ids := e.sessionIDs()
	if len(ids) != 2 {
		t.Fatalf("sessions = %v", ids)
	}
	child := ids[0]
	if child == parent {
		child = ids[1]
	}
	rec := e.record(child)
	if rec["parentSessionId"] != parent {
		t.Fatalf("parentSessionId = %v, want %s", rec["parentSessionId"], parent)
	}
	if n := len(e.messages(child)); n != 5 {
		t.Fatalf("child has %d messages, want 5", n)
	}
	if n := len(e.messages(parent)); n != 3 {
		t.Fatalf("parent has %d messages, want 3 (fork must not touch it)", n)
	}
}

func TestLogLinesParseAndSeqRunsAcrossProcesses(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.must("", "run", "--provider", "echo", "one")
	id := e.onlySession()
	e.must("", "resume", id, "two")
	e.must("", "resume", id, "three")
	lines := e.logLines(id)
	if len(lines) < 30 {
		t.Fatalf("only %d log lines", len(lines))
	}
	for i, l := range lines {
		for _, k := range []string{"timestamp", "sessionId", "event"} {
			if _, ok := l[k].(string); !ok {
				t.Fatalf("line %d has no string %s: %v", i+1, k, l)
			}
		}
		if _, err := time.Parse(time.RFC3339Nano, l["timestamp"].(string)); err != nil {
			t.Fatalf("line %d timestamp: %v", i+1, err)
		}
		if l["sessionId"] != id {
			t.Fatalf("line %d sessionId = %v", i+1, l["sessionId"])
		}
		if l["seq"] != float64(i) {
			t.Fatalf("line %d seq = %v, want %d", i+1, l["seq"], i)
		}
	}
	inits := 0
	for _, l := range lines {
		if l["event"] == "session_init" {
			inits++
		}
	}
	if inits != 3 {
		t.Fatalf("%d session_init lines, want one per process", inits)
	}
}
