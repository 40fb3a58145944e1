package main_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"trail/core/provider/wire/wiretest"
)

// The cassette provider on the built binary: a session recorded through a
// provider's real wire format, played back from its log in a fresh home
// with no key and no server.

// bashToolUse is Anthropic's recorded tool_use stream (tool_use.sse) with
// its get_weather call turned into a Bash call of command: the tool's
// block start names Bash, and the input_json_delta pieces are replaced by
// one piece holding the whole input. Everything else is as recorded.
func bashToolUse(t *testing.T, command string) []string {
	t.Helper()
	input, _ := json.Marshal(map[string]string{"command": command})
	piece, _ := json.Marshal(string(input))
	var out []string
	sent := false
	for _, ev := range wiretest.Transcript(t, "anthropic/tool_use.sse") {
		switch {
		case strings.Contains(ev, `"input_json_delta"`):
			if sent {
				continue
			}
			sent = true
			ev = regexp.MustCompile(`"partial_json":"(?:[^"\\]|\\.)*"`).ReplaceAllLiteralString(ev, `"partial_json":`+string(piece))
		case strings.Contains(ev, `"name":"get_weather"`):
			ev = strings.Replace(ev, `"name":"get_weather"`, `"name":"Bash"`, 1)
		}
		out = append(out, ev)
	}
	return out
}

// cassetteMessages is a record's messages as the cassette promises them:
// equal but for ids, timestamps, and the working directory the system
// prompt names.
func cassetteMessages(e *env, id string) []map[string]any {
	e.t.Helper()
	msgs := e.messages(id)
	for _, m := range msgs {
		delete(m, "id")
		delete(m, "timestamp")
		if m["role"] == "system" {
			m["content"] = strings.ReplaceAll(m["content"].(string), e.cwd, "<cwd>")
		}
	}
	return msgs
}

func sameJSON(t *testing.T, what string, a, b any) {
	t.Helper()
	ja, _ := json.Marshal(a)
	jb, _ := json.Marshal(b)
	if string(ja) != string(jb) {
		t.Errorf("%s differ:\nrecorded %s\nplayed   %s", what, ja, jb)
	}
}

// recordAnthropicToolSession runs a Bash-calling session against a local
// server replaying Anthropic's stream format and returns the env, the
// session id and the run's result.
func recordAnthropicToolSession(t *testing.T, prompt string) (*env, string, result) {
	t.Helper()
	srv := wiretest.NewServer(t, wiretest.Replay(bashToolUse(t, "cat input.txt")), wiretest.Replay(wiretest.Transcript(t, "anthropic/after_tool.sse")))
	rec := anthropicEnv(t)
	rec.writeFile("input.txt", "v1\n")
	r := rec.must("", "run", "--provider", "anthropic", "--base-url", srv.URL, "--allow-tool", "Bash", prompt)
	if srv.Requests() != 2 {
		t.Fatalf("%d requests recorded", srv.Requests())
	}
	return rec, rec.onlySession(), r
}

func TestCassettePlaysBackARecordedToolSession(t *testing.T) {
	t.Parallel()
	const prompt = "What is the weather?"
	rec, recID, recorded := recordAnthropicToolSession(t, prompt)
	if recorded.stdout != "It is 59°F and foggy in San Francisco.\n" {
		t.Fatalf("recorded run: %s", recorded)
	}
	if res := rec.toolResults(recID)["toolu_01T1x1fJ34qAmk2tNTrN7Up6"]; res["output"] != "v1\n" {
		t.Fatalf("the recorded Bash call did not run: %v", res)
	}

	// A fresh home, no key, the log copied under another name as a fixture.
	play := newEnv(t)
	logBytes, err := os.ReadFile(rec.logPath(recID))
	if err != nil {
		t.Fatal(err)
	}
	fixture := play.writeFile("fixtures/weather.jsonl", string(logBytes))
	play.writeFile("input.txt", "v1\n")
	r := play.must("", "run", "--provider", "cassette", "--cassette", "fixtures/weather.jsonl", "--allow-tool", "Bash", prompt)
	if r.stdout != recorded.stdout || r.stderr != "" {
		t.Fatalf("played back: %s\nrecorded: %s", r, recorded)
	}
	id := play.onlySession()
	sameJSON(t, "messages", cassetteMessages(rec, recID), cassetteMessages(play, id))
	sameJSON(t, "usage", rec.record(recID)["usage"], play.record(id)["usage"])
	p := play.record(id)["provider"].(map[string]any)
	if p["name"] != "cassette" || p["cassette"] != fixture || p["model"] != "claude-sonnet-4-5" {
		t.Errorf("record provider = %v", p)
	}
	// The tool ran again, here: the cassette replays the model only.
	if n := len(play.events(id, "tool_execution_result")); n != 1 {
		t.Errorf("%d tool results in the played-back log", n)
	}
	play.validateAll()

	// The same script in lenient mode with another prompt plays on.
	r = play.must("", "run", "--provider", "cassette", "--cassette", fixture, "--cassette-mode", "lenient", "--allow-tool", "Bash", "What is the weather in Paris?")
	if r.stdout != recorded.stdout {
		t.Errorf("lenient: %s", r)
	}

	// A changed prompt: exit 6, the first differing message and field.
	r = play.run("", "run", "--provider", "cassette", "--cassette", fixture, "--allow-tool", "Bash", "What is the weather in Paris?")
	lines := strings.Split(strings.TrimSpace(r.stderr), "\n")
	if r.code != 6 || r.stdout != "" || lines[0] != `trail: cassette: request 1: message 1 (user) content differs: "…he weather?" vs "…he weather in Paris?"` {
		t.Fatalf("changed prompt: %s", r)
	}
	if len(lines) != 2 || !strings.HasPrefix(lines[1], "hint: ") {
		t.Errorf("want the error and its hint: %q", lines)
	}

	// A tool that now reads something else: the second request differs in
	// the tool result the script's effect produced.
	play.writeFile("input.txt", "v2\n")
	r = play.run("", "run", "--provider", "cassette", "--cassette", fixture, "--allow-tool", "Bash", prompt)
	if r.code != 6 || !strings.HasPrefix(r.stderr, `trail: cassette: request 2: message 3 (tool) content differs: "…output\":\"v1\\n\",\"exitCode\":0}" vs "…output\":\"v2\\n\"`) {
		t.Fatalf("changed tool result: %s", r)
	}

	// Asking once more than was recorded: exit 6 with the count.
	r = play.run("", "resume", id, "And tomorrow?")
	if r.code != 6 || !strings.Contains(r.stderr, "request 3: the recording holds 2 provider calls") {
		t.Fatalf("out of responses: %s", r)
	}
}

// An OpenAI recording plays back the same way, through the session's
// reference (its id in the same home), at the recorded speed.
func TestCassettePlaysAnOpenAIRecordingByID(t *testing.T) {
	t.Parallel()
	srv := wiretest.NewServer(t, wiretest.Replay(wiretest.Transcript(t, "openai/tool_calls.sse")), wiretest.Replay(wiretest.Transcript(t, "openai/after_tool.sse")))
	e := newEnv(t)
	e.setenv("OPENAI_API_KEY=sk-proj-e2e-0123456789abcdefghijklmnop")
	recorded := e.must("", "run", "--provider", "openai", "--base-url", srv.URL, "--name", "weather", "What is the weather?")
	r := e.must("", "run", "--provider", "cassette", "--cassette", "weather", "--cassette-speed", "recorded", "What is the weather?")
	if r.stdout != recorded.stdout || r.stdout != "It is 14°C and sunny in Paris.\n" {
		t.Fatalf("played back: %s\nrecorded: %s", r, recorded)
	}
	var played string
	for _, id := range e.sessionIDs() {
		if e.record(id)["name"] == nil {
			played = id
		}
	}
	msgs := e.messages(played)
	if len(msgs) != 5 || msgs[2]["toolCalls"] == nil || msgs[3]["toolCallId"] != "call_DdmO9pD3xa9XTPNJ32zg2hcA" {
		t.Errorf("played-back messages = %v", msgs)
	}
	if srv.Requests() != 2 {
		t.Errorf("the cassette reached the server: %d requests", srv.Requests())
	}
}

// Script and echo recordings, a compaction among the steps, and the
// environment variables a CI job sets instead of flags.
func TestCassetteOfScriptAndEchoSessionsWithCompact(t *testing.T) {
	t.Parallel()
	rec := newEnv(t)
	script := rec.script(
		calls(call("Write", map[string]any{"file_path": "notes.txt", "content": "first\n"})),
		answer("wrote notes.txt"),
		answer("Summary: notes.txt was written."),
		answer("notes.txt holds first."),
	)
	steps := [][]string{
		{"run", "--name", "job", "--allow-tool", "Write", "write notes.txt"},
		{"compact", "job"},
		{"resume", "job", "what is in notes.txt?"},
	}
	var outs []string
	for _, s := range steps {
		outs = append(outs, rec.must("", append(s, "--provider", "script", "--script", script)...).stdout)
	}
	recID := rec.onlySession()

	play := newEnv(t)
	fixture := play.writeFile("job.jsonl", string(must(os.ReadFile(rec.logPath(recID)))))
	play.setenv("TRAIL_PROVIDER=cassette", "TRAIL_CASSETTE="+fixture)
	for i, s := range steps {
		r := play.must("", s...)
		if r.stdout != outs[i] {
			t.Errorf("step %v: played %q, recorded %q", s, r.stdout, outs[i])
		}
	}
	if play.read("notes.txt") != "first\n" {
		t.Errorf("the Write call did not run on playback")
	}
	id := play.onlySession()
	sameJSON(t, "messages", cassetteMessages(rec, recID), cassetteMessages(play, id))

	// An echo recording whose log holds the full messages (the older
	// form), played back by path.
	echo := newEnv(t)
	echo.must("", "run", "--provider", "echo", "--log-requests", "full", "hello there")
	if msgs := echo.events(echo.onlySession(), "provider_request")[0]["messages"]; msgs == nil {
		t.Fatal("--log-requests full wrote no messages")
	}
	echoLog := echo.logPath(echo.onlySession())
	r := echo.must("", "run", "--cassette", echoLog, "hello there") // --cassette alone picks the provider
	if r.stdout != "echo: hello there\n" {
		t.Errorf("echo cassette: %s", r)
	}
}

func TestCassetteUsageErrors(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.must("", "run", "--provider", "echo", "hi")
	log := e.logPath(e.onlySession())
	for _, tt := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"run", "--provider", "cassette", "hi"}, 2, "the cassette provider needs a recording"},
		{[]string{"run", "--provider", "cassette", "--cassette", log, "--cassette-mode", "loose", "hi"}, 2, `unknown cassette mode "loose"`},
		{[]string{"run", "--provider", "cassette", "--cassette", log, "--cassette-speed", "slow", "hi"}, 2, `unknown cassette speed "slow"`},
		{[]string{"run", "--provider", "cassette", "--cassette", filepath.Join(e.cwd, "none.jsonl"), "hi"}, 3, "none.jsonl does not exist"},
		{[]string{"run", "--provider", "cassette", "--cassette", "nosuchsession", "hi"}, 3, "nosuchsession"},
		{[]string{"run", "--provider", "echo", "--cassette", log, "hi"}, 2, `--cassette plays a recording; it does not go with --provider "echo"`},
	} {
		r := e.run("", tt.args...)
		if r.code != tt.code || !strings.Contains(r.stderr, tt.want) {
			t.Errorf("%v: %s", tt.args, r)
		}
	}
	bad := e.writeFile("bad.jsonl", "{\"event\":\"provider_request\"}\nnot json\n")
	if r := e.run("", "run", "--provider", "cassette", "--cassette", bad, "hi"); r.code != 7 || !strings.Contains(r.stderr, "line 2") {
		t.Errorf("a broken cassette: %s", r)
	}
}

func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}

// A model offered other tools may answer otherwise, so a request that
// offers other tools than the recording's is a mismatch, named as such.
func TestCassetteNamesToolsOfferedOtherwise(t *testing.T) {
	t.Parallel()
	rec := newEnv(t)
	script := rec.script(answer("done"))
	rec.must("", "run", "--provider", "script", "--script", script, "--tools", "Read,Grep", "look around")
	fixture := rec.logPath(rec.onlySession())

	play := newEnv(t)
	if r := play.run("", "run", "--cassette", fixture, "--tools", "Read,Grep", "look around"); r.code != 0 || r.stdout != "done\n" {
		t.Fatalf("the same tools: %s", r)
	}
	r := play.run("", "run", "--cassette", fixture, "--tools", "Read", "look around")
	if r.code != 6 || !strings.Contains(r.stderr, "request 1: tools differ: recorded [Read Grep], sent [Read]") {
		t.Fatalf("other tools: want exit 6 naming the tools, got %s", r)
	}
	if r := play.run("", "run", "--cassette", fixture, "--cassette-mode", "lenient", "--tools", "Read", "look around"); r.code != 0 {
		t.Fatalf("lenient mode with other tools: %s", r)
	}
}
