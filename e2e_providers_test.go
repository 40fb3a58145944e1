package main_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/tidwall/gjson"

	"trail/core/provider/wire/wiretest"
)

// End-to-end runs of the built binary against a local server replaying
// recorded provider streams (testdata/providers). TRAIL_RETRY_BASE_MS=1
// keeps retries to milliseconds.

const anthropicKey = "sk-ant-api03-e2e-" + "Qw3rTy0123456789abcdefghijklmnopqrstuvwxyz"

func anthropicEnv(t *testing.T) *env {
	e := newEnv(t)
	e.setenv("ANTHROPIC_API_KEY="+anthropicKey, "TRAIL_RETRY_BASE_MS=1")
	return e
}

// eventsNamed returns the log lines of one event.
func eventsNamed(lines []map[string]any, name string) []map[string]any {
	var out []map[string]any
	for _, l := range lines {
		if l["event"] == name {
			out = append(out, l)
		}
	}
	return out
}

// checkProviderPairs: every provider_request has its native payload, raw
// and normalized responses (SPEC 7.2), so the log validates.
func checkProviderPairs(t *testing.T, lines []map[string]any) {
	t.Helper()
	key := func(l map[string]any) string { return fmt.Sprint(l["executionId"], ":", l["round"]) }
	need := map[string]map[string]bool{}
	for _, l := range lines {
		switch l["event"] {
		case "provider_request":
			need[key(l)] = map[string]bool{}
		case "provider_native_raw_payload":
			if k := l["payloadKind"]; k == "response" || k == "stream_event" {
				if need[key(l)] != nil {
					need[key(l)]["native"] = true
				}
			}
		case "provider_response_raw", "provider_response_normalized":
			if need[key(l)] == nil {
				t.Errorf("%s without a request: %v", l["event"], l)
				continue
			}
			need[key(l)][l["event"].(string)] = true
		}
	}
	for k, got := range need {
		if !got["native"] || !got["provider_response_raw"] || !got["provider_response_normalized"] {
			t.Errorf("provider request %s lacks events: %v", k, got)
		}
	}
}

func lastMessage(t *testing.T, e *env, id string) map[string]any {
	t.Helper()
	msgs := e.messages(id)
	return msgs[len(msgs)-1]
}

func TestAnthropicAnswerStreamsIntoRecordAndLog(t *testing.T) {
	t.Parallel()
	srv := wiretest.NewServer(t, wiretest.Replay(wiretest.Transcript(t, "anthropic/text.sse")))
	e := anthropicEnv(t)
	e.setenv("ANTHROPIC_BASE_URL=" + srv.URL) // no --provider: the key selects anthropic
	r := e.must("", "run", "Hello")
	if r.stdout != "Hello!\n" || r.stderr != "" {
		t.Fatalf("%s", r)
	}
	id := e.onlySession()
	rec := e.record(id)
	if p := rec["provider"].(map[string]any); p["name"] != "anthropic" || p["model"] != "claude-sonnet-4-5" || p["baseUrl"] != srv.URL {
		t.Errorf("record provider = %v", p)
	}
	last := lastMessage(t, e, id)
	md, _ := last["metadata"].(map[string]any)
	if last["content"] != "Hello!" || last["state"] != "complete" || md["inputTokens"] != 25.0 || md["outputTokens"] != 15.0 {
		t.Errorf("assistant message = %v", last)
	}
	body := srv.Body(0)
	if gjson.GetBytes(body, "model").String() != "claude-sonnet-4-5" || !gjson.GetBytes(body, "stream").Bool() ||
		gjson.GetBytes(body, "system.0.text").String() == "" || gjson.GetBytes(body, "max_tokens").Int() != 64000 ||
		gjson.GetBytes(body, "messages").Raw != `[{"role":"user","content":[{"type":"text","text":"Hello","cache_control":{"type":"ephemeral"}}]}]` {
		t.Errorf("request body = %s", body)
	}
	lines := e.logLines(id)
	checkProviderPairs(t, lines)
	native := eventsNamed(lines, "provider_native_raw_payload")
	if len(native) != 9 || native[0]["payloadKind"] != "request" || native[0]["apiSurface"] != "anthropic-messages" {
		t.Fatalf("native payloads: %d, first %v", len(native), native[0])
	}
	first := native[1]["payload"].(map[string]any)
	if native[1]["payloadKind"] != "stream_event" || first["type"] != "message_start" {
		t.Errorf("first stream event payload = %v", native[1])
	}
	if native[3]["payload"].(map[string]any)["type"] != "ping" {
		t.Errorf("the ping was not logged: %v", native[3])
	}
	if deltas := eventsNamed(lines, "provider_stream_raw_delta"); len(deltas) != 2 || deltas[0]["delta"] != "Hello" {
		t.Errorf("stream deltas = %v", deltas)
	}
}

func TestOpenAICompatibleServerWithoutKey(t *testing.T) {
	t.Parallel()
	srv := wiretest.NewServer(t, wiretest.Replay(wiretest.Transcript(t, "openai/text.sse")))
	e := newEnv(t)
	e.setenv("OPENAI_BASE_URL=" + srv.URL + "/v1")
	r := e.must("", "run", "-m", "llama3.2", "Hello!")
	if r.stdout != "Hello there, how may I assist you today?\n" {
		t.Fatalf("%s", r)
	}
	if h := srv.Header(0); h.Get("Authorization") != "" {
		t.Errorf("sent Authorization %q with no key", h.Get("Authorization"))
	}
	if m := gjson.GetBytes(srv.Body(0), "model").String(); m != "llama3.2" {
		t.Errorf("model sent = %q", m)
	}
	id := e.onlySession()
	md, _ := lastMessage(t, e, id)["metadata"].(map[string]any)
	if md["inputTokens"] != 9.0 || md["outputTokens"] != 12.0 {
		t.Errorf("usage in metadata = %v", md)
	}
}

// A tool round over the wire: the model calls a tool trail does not have
// (the failed result goes back all the same), then answers.
func TestToolRoundGoesBackInEachAPIsShape(t *testing.T) {
	t.Parallel()
	tests := []struct {
		provider, first, second, final string
		check                          func(t *testing.T, body []byte)
	}{
		{"anthropic", "anthropic/tool_use.sse", "anthropic/after_tool.sse", "It is 59°F and foggy in San Francisco.", func(t *testing.T, body []byte) {
			msgs := gjson.GetBytes(body, "messages").Array()
			if len(msgs) != 3 {
				t.Fatalf("messages = %s", gjson.GetBytes(body, "messages").Raw)
			}
			use := msgs[1].Get("content.1")
			if msgs[1].Get("role").String() != "assistant" || use.Get("type").String() != "tool_use" ||
				use.Get("id").String() != "toolu_01T1x1fJ34qAmk2tNTrN7Up6" || use.Get("input.unit").String() != "fahrenheit" {
				t.Errorf("assistant turn = %s", msgs[1].Raw)
			}
			res := msgs[2].Get("content.0")
			if msgs[2].Get("role").String() != "user" || res.Get("type").String() != "tool_result" ||
				res.Get("tool_use_id").String() != "toolu_01T1x1fJ34qAmk2tNTrN7Up6" || !strings.Contains(res.Get("content").String(), "unknown_tool") {
				t.Errorf("tool result turn = %s", msgs[2].Raw)
			}
		}},
		{"openai", "openai/tool_calls.sse", "openai/after_tool.sse", "It is 14°C and sunny in Paris.", func(t *testing.T, body []byte) {
			msgs := gjson.GetBytes(body, "messages").Array()
			if len(msgs) != 4 {
				t.Fatalf("messages = %s", gjson.GetBytes(body, "messages").Raw)
			}
			if tc := msgs[2].Get("tool_calls.0"); tc.Get("id").String() != "call_DdmO9pD3xa9XTPNJ32zg2hcA" || tc.Get("function.arguments").String() != `{"location":"Paris, France"}` {
				t.Errorf("assistant turn = %s", msgs[2].Raw)
			}
			if msgs[3].Get("role").String() != "tool" || msgs[3].Get("tool_call_id").String() != "call_DdmO9pD3xa9XTPNJ32zg2hcA" {
				t.Errorf("tool turn = %s", msgs[3].Raw)
			}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.provider, func(t *testing.T) {
			t.Parallel()
			srv := wiretest.NewServer(t, wiretest.Replay(wiretest.Transcript(t, tt.first)), wiretest.Replay(wiretest.Transcript(t, tt.second)))
			e := anthropicEnv(t)
			e.setenv("OPENAI_API_KEY=sk-proj-e2e-0123456789abcdefghijklmnop")
			r := e.must("", "run", "--provider", tt.provider, "--base-url", srv.URL, "What is the weather?")
			if r.stdout != tt.final+"\n" {
				t.Fatalf("%s", r)
			}
			if srv.Requests() != 2 {
				t.Fatalf("%d requests", srv.Requests())
			}
			tt.check(t, srv.Body(1))
			id := e.onlySession()
			msgs := e.messages(id)
			if len(msgs) != 5 || msgs[2]["toolCalls"] == nil || msgs[3]["role"] != "tool" {
				t.Errorf("record messages = %v", msgs)
			}
			checkProviderPairs(t, e.logLines(id))
		})
	}
}

// A base URL without its scheme, the usual slip, is a usage error at once,
// not a connection error retried for seconds.
func TestABaseURLWithoutSchemeIsAUsageError(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.setenv("TRAIL_RETRY_BASE_MS=200")
	r := e.run("", "run", "--provider", "openai", "--base-url", "localhost:11434/v1", "Hello")
	want := "trail: base URL \"localhost:11434/v1\" is not an http:// or https:// URL\nhint: give the scheme and the host, e.g. --base-url http://localhost:11434/v1\n"
	if r.code != 2 || r.stderr != want || r.stdout != "" {
		t.Fatalf("exit %d, want 2 and stderr %q\n%s", r.code, want, r)
	}
	if ids := e.sessionIDs(); len(ids) != 0 {
		t.Errorf("a session was created: %v", ids)
	}
}

// Some proxies take the key in the URL's query. The query stays after the
// API's path, the key reaches the server on run and on resume, and no file
// under the home holds it.
func TestAKeyInTheBaseURLReachesTheServerButNotTheDisk(t *testing.T) {
	t.Parallel()
	const key = "sk-proj-e2e-inurl-0123456789abcdefghij"
	text := wiretest.Transcript(t, "openai/text.sse")
	var mu sync.Mutex
	var uris []string
	srv := wiretest.NewServer(t, func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		uris = append(uris, r.URL.RequestURI())
		mu.Unlock()
		wiretest.Replay(text)(w, r)
	})
	e := newEnv(t)
	e.setenv("OPENAI_API_KEY=" + key)
	e.must("", "run", "--provider", "openai", "--base-url", srv.URL+"/v1?key="+key, "Hello!")
	id := e.onlySession()
	e.must("", "resume", id, "again")
	want := "/v1/chat/completions?key=" + key
	mu.Lock()
	defer mu.Unlock()
	if len(uris) != 2 || uris[0] != want || uris[1] != want {
		t.Errorf("requested %q, want %q twice", uris, want)
	}
	for path, b := range filesUnder(t, e.home) {
		if bytes.Contains(b, []byte(key)) {
			t.Errorf("%s contains the API key", path)
		}
	}
}

func TestProviderFaultsOnTheBinary(t *testing.T) {
	t.Parallel()
	text := wiretest.Transcript(t, "anthropic/text.sse")
	tests := []struct {
		name      string
		steps     []wiretest.Step
		args      []string
		wantCode  int
		wantErr   string // on stderr
		wantCalls int
		retries   int    // provider_retry lines
		partial   string // the text that streamed before the failure, saved as interrupted
	}{
		{name: "429 with retry-after, then success",
			steps:    []wiretest.Step{wiretest.Status(429, wiretest.Body(t, "anthropic/429.json"), "Retry-After", "0"), wiretest.Replay(text)},
			wantCode: 0, wantCalls: 2, retries: 1},
		{name: "529 until the retries run out",
			steps: []wiretest.Step{wiretest.Status(529, wiretest.Body(t, "anthropic/529.json"))}, args: []string{"--max-retries", "2"},
			wantCode: 6, wantErr: "trail: anthropic: 529 overloaded_error: Overloaded\n", wantCalls: 3, retries: 2},
		{name: "500 until the retries run out",
			steps: []wiretest.Step{wiretest.Status(500, wiretest.Body(t, "anthropic/500.json"))}, args: []string{"--max-retries", "1"},
			wantCode: 6, wantErr: "trail: anthropic: 500 api_error: Internal server error\n", wantCalls: 2, retries: 1},
		{name: "401 is not retried",
			steps:    []wiretest.Step{wiretest.Status(401, wiretest.Body(t, "anthropic/401.json"))},
			wantCode: 6, wantErr: "trail: anthropic: 401 authentication_error: invalid x-api-key\nhint: check ANTHROPIC_API_KEY", wantCalls: 1},
		{name: "the connection cut mid-stream",
			steps:    []wiretest.Step{wiretest.Cut(text, 4)},
			wantCode: 6, wantErr: "trail: anthropic: connection lost mid-stream", wantCalls: 1, partial: "Hello"},
		{name: "a malformed SSE line",
			steps:    []wiretest.Step{wiretest.Replay(wiretest.Transcript(t, "anthropic/malformed.sse"))},
			wantCode: 6, wantErr: "trail: anthropic: malformed stream event: not JSON", wantCalls: 1},
		{name: "an error event mid-stream",
			steps:    []wiretest.Step{wiretest.Replay(wiretest.Transcript(t, "anthropic/error_midstream.sse"))},
			wantCode: 6, wantErr: "trail: anthropic: overloaded_error: Overloaded\n", wantCalls: 1, partial: "Hello"},
		{name: "a server that never answers",
			steps: []wiretest.Step{wiretest.Hang()}, args: []string{"--timeout", "300ms"},
			wantCode: 6, wantErr: "trail: anthropic: timed out: no data from the server for 300ms\nhint: raise --timeout", wantCalls: 1},
		{name: "a server that never answers, --timeout in seconds as the settings take it",
			steps: []wiretest.Step{wiretest.Hang()}, args: []string{"--timeout", "0.3"},
			wantCode: 6, wantErr: "trail: anthropic: timed out: no data from the server for 300ms\nhint: raise --timeout", wantCalls: 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			srv := wiretest.NewServer(t, tt.steps...)
			e := anthropicEnv(t)
			args := append([]string{"run", "--base-url", srv.URL, "Hello"}, tt.args...)
			r := e.run("", args...)
			if r.code != tt.wantCode {
				t.Fatalf("exit %d, want %d\n%s", r.code, tt.wantCode, r)
			}
			// One line per retry, then the error.
			errLines := strings.SplitAfterN(r.stderr, "\n", tt.retries+1)
			for i, l := range errLines[:len(errLines)-1] {
				if want := fmt.Sprintf(", retrying in 0.0 s (%d of ", i+1); !strings.HasPrefix(l, "trail: anthropic: ") || !strings.Contains(l, want) {
					t.Errorf("stderr line %d = %q, want a retry line", i+1, l)
				}
			}
			if last := errLines[len(errLines)-1]; tt.wantErr != "" && !strings.HasPrefix(last, tt.wantErr) {
				t.Errorf("stderr after the retries = %q, want it to start with %q", last, tt.wantErr)
			}
			if tt.wantCode != 0 && r.stdout != "" {
				t.Errorf("stdout on failure = %q", r.stdout)
			}
			if srv.Requests() != tt.wantCalls {
				t.Errorf("%d requests, want %d", srv.Requests(), tt.wantCalls)
			}
			if r.elapsed > 15*time.Second {
				t.Errorf("took %s", r.elapsed)
			}
			id := e.onlySession()
			lines := e.logLines(id)
			checkProviderPairs(t, lines)
			if n := len(eventsNamed(lines, "provider_retry")); n != tt.retries {
				t.Errorf("%d provider_retry lines, want %d", n, tt.retries)
			}
			rec := e.record(id)
			msgs := e.messages(id)
			if tt.wantCode == 0 {
				if msgs[len(msgs)-1]["content"] != "Hello!" {
					t.Errorf("answer not saved: %v", msgs)
				}
				return
			}
			wantMsgs := 2
			if tt.partial != "" {
				wantMsgs = 3
				if last := msgs[len(msgs)-1]; last["role"] != "assistant" || last["state"] != "interrupted" || last["content"] != tt.partial {
					t.Errorf("the text shown was not saved: %v", last)
				}
			}
			if rec["stopReason"] != "error" || rec["status"] != "idle" || len(msgs) != wantMsgs || msgs[1]["role"] != "user" {
				t.Errorf("after a failed round: stopReason %v status %v messages %v", rec["stopReason"], rec["status"], msgs)
			}
			if errs := eventsNamed(lines, "error"); len(errs) != 1 {
				t.Errorf("error events = %v", errs)
			}
		})
	}
}

// After a cut stream the text already shown is saved as interrupted, and
// the next resume sends it with the interrupted note (SPEC 3.3).
func TestResumeAfterACutStream(t *testing.T) {
	t.Parallel()
	text := wiretest.Transcript(t, "anthropic/text.sse")
	srv := wiretest.NewServer(t, wiretest.Cut(text, 4), wiretest.Replay(text))
	e := anthropicEnv(t)
	if r := e.run("", "run", "--base-url", srv.URL, "first"); r.code != 6 {
		t.Fatalf("%s", r)
	}
	id := e.onlySession()
	r := e.must("", "resume", id, "second")
	if r.stdout != "Hello!\n" {
		t.Fatalf("%s", r)
	}
	if got := gjson.GetBytes(srv.Body(1), "messages").Raw; got != `[{"role":"user","content":"first"},{"role":"assistant","content":"Hello\n\n[This response was interrupted by the user]"},`+
		`{"role":"user","content":[{"type":"text","text":"second","cache_control":{"type":"ephemeral"}}]}]` {
		t.Errorf("messages sent on resume = %s", got)
	}
	if msgs := e.messages(id); len(msgs) != 5 || msgs[2]["content"] != "Hello" || msgs[4]["content"] != "Hello!" {
		t.Errorf("messages = %v", msgs)
	}
}

// startPiped starts c with stdout on a pipe (its read end returned) and
// stderr kept.
func startPiped(t *testing.T, c *exec.Cmd) (*os.File, *bytes.Buffer) {
	t.Helper()
	pr, pw, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	errb := new(bytes.Buffer)
	c.Stdout, c.Stderr = pw, errb
	if err := c.Start(); err != nil {
		t.Fatal(err)
	}
	pw.Close()
	return pr, errb
}

// startTrail runs trail with stdout on a pipe the test reads line by line.
func startTrail(t *testing.T, e *env, args ...string) (*bufio.Reader, *exec.Cmd, func() result) {
	t.Helper()
	c := e.cmd(args...)
	pr, errb := startPiped(t, c)
	var rest bytes.Buffer
	rd := bufio.NewReader(pr)
	wait := func() result {
		io.Copy(&rest, rd)
		pr.Close()
		err := c.Wait()
		r := result{stdout: rest.String(), stderr: errb.String()}
		if c.ProcessState != nil {
			r.code = c.ProcessState.ExitCode()
		}
		if err != nil && c.ProcessState == nil {
			t.Fatal(err)
		}
		return r
	}
	t.Cleanup(func() { c.Process.Kill() })
	return rd, c, wait
}

func TestSIGINTMidStreamSavesThePartialAnswer(t *testing.T) {
	t.Parallel()
	text := wiretest.Transcript(t, "anthropic/text.sse")
	srv := wiretest.NewServer(t, wiretest.Hold(text, 4), wiretest.Replay(text))
	e := anthropicEnv(t)
	rd, c, wait := startTrail(t, e, "run", "--base-url", srv.URL, "-o", "stream-json", "Hello")
	for {
		line, err := rd.ReadString('\n')
		if err != nil {
			t.Fatalf("stdout ended before a text delta: %v", err)
		}
		if gjson.Get(line, "type").String() == "text_delta" {
			break
		}
	}
	if err := c.Process.Signal(syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	r := wait()
	if r.code != 130 {
		t.Fatalf("exit %d, want 130\n%s", r.code, r)
	}
	id := e.onlySession()
	lines := strings.Split(strings.TrimSpace(r.stdout), "\n")
	if res := lines[len(lines)-1]; gjson.Get(res, "type").String() != "result" || gjson.Get(res, "subtype").String() != "interrupted" {
		t.Errorf("last stdout line = %s", res)
	}
	last := lastMessage(t, e, id)
	if last["role"] != "assistant" || last["state"] != "interrupted" || last["content"] != "Hello" {
		t.Fatalf("last message = %v", last)
	}
	logLines := e.logLines(id)
	checkProviderPairs(t, logLines)
	if errs := eventsNamed(logLines, "error"); len(errs) != 1 || errs[0]["message"] != "Aborted" {
		t.Errorf("error events = %v", errs)
	}
	if sd := eventsNamed(logLines, "session_shutdown"); len(sd) != 1 || sd[0]["reason"] != "interrupted" {
		t.Errorf("session_shutdown = %v", sd)
	}
	r = e.must("", "resume", id, "go on")
	if r.stdout != "Hello!\n" {
		t.Fatalf("%s", r)
	}
	msgs := gjson.GetBytes(srv.Body(1), "messages").Array()
	if len(msgs) != 3 || msgs[1].Get("content").String() != "Hello\n\n[This response was interrupted by the user]" {
		t.Errorf("messages sent on resume = %s", gjson.GetBytes(srv.Body(1), "messages").Raw)
	}
}

func TestStreamJSONOverTheWire(t *testing.T) {
	t.Parallel()
	srv := wiretest.NewServer(t, wiretest.Replay(wiretest.Transcript(t, "anthropic/thinking.sse")))
	e := anthropicEnv(t)
	r := e.must("", "run", "--base-url", srv.URL, "-o", "stream-json", "What is the greatest common divisor of 1071 and 462?")
	lines := strings.Split(strings.TrimSuffix(r.stdout, "\n"), "\n")
	var text, thinking strings.Builder
	blockType := map[string]string{}
	// Claude Code's lines (system init, assistant, user) are tested in
	// e2e_claude_output_test.go; this test reads seed 004's events.
	var seed []string
	for _, line := range lines {
		switch gjson.Get(line, "type").String() {
		case "assistant", "user":
			continue
		case "system":
			if gjson.Get(line, "subtype").String() == "init" {
				continue
			}
		}
		seed = append(seed, line)
	}
	lines = seed
	for i, line := range lines {
		var m map[string]any
		if err := json.Unmarshal([]byte(line), &m); err != nil {
			t.Fatalf("line %d does not parse: %v\n%s", i, err, line)
		}
		switch m["type"] {
		case "block_start":
			blockType[m["blockId"].(string)] = m["block"].(map[string]any)["type"].(string)
		case "text_delta":
			switch blockType[m["blockId"].(string)] {
			case "assistant_text":
				text.WriteString(m["delta"].(string))
			case "thinking":
				thinking.WriteString(m["delta"].(string))
			}
		}
		if i > 0 && i < len(lines)-1 && m["conversationId"] != "main" {
			t.Errorf("line %d has no conversationId: %s", i, line)
		}
	}
	if gjson.Get(lines[0], "type").String() != "session" || gjson.Get(lines[0], "session_id").String() != e.onlySession() {
		t.Errorf("first line = %s", lines[0])
	}
	last := lines[len(lines)-1]
	if gjson.Get(last, "type").String() != "result" || gjson.Get(last, "result").String() != text.String() || text.String() == "" {
		t.Errorf("text deltas %q do not make the result %s", text.String(), last)
	}
	if !strings.Contains(thinking.String(), "GCD(1071, 462) = 21") {
		t.Errorf("thinking deltas = %q", thinking.String())
	}
}

func TestAPIKeyNeverLeaks(t *testing.T) {
	t.Parallel()
	leaky := `{"error":{"message":"Incorrect API key provided: ` + anthropicKey + `","type":"invalid_request_error","code":"invalid_api_key"}}`
	text := wiretest.Transcript(t, "anthropic/text.sse")
	srv := wiretest.NewServer(t,
		wiretest.Status(401, leaky),
		wiretest.Status(429, leaky, "Retry-After", "0"), wiretest.Replay(text),
	)
	e := anthropicEnv(t)
	var outputs []result
	outputs = append(outputs, e.run("", "--verbose", "run", "--base-url", srv.URL, "one"))
	outputs = append(outputs, e.run("", "--verbose", "run", "--base-url", srv.URL, "-o", "stream-json", "two"))
	if outputs[0].code != 6 || outputs[1].code != 0 {
		t.Fatalf("runs: %s\n%s", outputs[0], outputs[1])
	}
	if !strings.Contains(outputs[1].stderr, "retrying") {
		t.Errorf("--verbose did not show the retry: %q", outputs[1].stderr)
	}
	for _, r := range outputs {
		if strings.Contains(r.stdout+r.stderr, anthropicKey) {
			t.Fatalf("the key was printed:\n%s", r)
		}
	}
	for path, b := range filesUnder(t, e.home) {
		if bytes.Contains(b, []byte(anthropicKey)) {
			t.Fatalf("%s contains the API key", path)
		}
	}
	if h := srv.Header(0); h.Get("X-Api-Key") != anthropicKey {
		t.Fatalf("the key was not sent to the server: %v", h)
	}
}

// A reader that goes away (`trail run -o stream-json … | head -1`) is a
// write error, not a kill before the save: the step ends as an interrupt
// would, the partial answer saved, and exit 1 with nothing to say.
func TestAReaderGoneAwaySavesTheStep(t *testing.T) {
	t.Parallel()
	text := wiretest.Transcript(t, "anthropic/text.sse")
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		for _, ev := range text {
			if _, err := io.WriteString(w, ev); err != nil {
				return
			}
			w.(http.Flusher).Flush()
			select {
			case <-time.After(50 * time.Millisecond):
			case <-r.Context().Done():
				return
			}
		}
	}))
	t.Cleanup(srv.Close)
	e := anthropicEnv(t)
	c := e.cmd("run", "--base-url", srv.URL, "-o", "stream-json", "--name", "gone", "Hello")
	pr, errb := startPiped(t, c)
	if _, err := bufio.NewReader(pr).ReadString('\n'); err != nil {
		t.Fatal(err)
	}
	pr.Close() // as head -1 does
	c.Wait()
	if code := c.ProcessState.ExitCode(); code != 1 {
		t.Fatalf("exit %d, want 1; stderr %q", code, errb.String())
	}
	id := e.onlySession()
	if rec := e.record(id); rec["name"] != "gone" {
		t.Fatalf("the record was not saved: %v", rec)
	}
	e.checkReplayMatchesRecord(id)
	t.Logf("stderr: %q", errb.String())
}
