package main_test

import (
	"compress/gzip"
	"fmt"
	"io"
	"net/http"
	"regexp"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/tidwall/gjson"

	"trail/core/provider/wire/wiretest"
)

// What gateways and relays do to a stream on its way: a byte order mark
// before the first event, gzip though trail asked for the answer as is.
// The answer must come through whole all the same.
func TestGatewayQuirksLoseNoText(t *testing.T) {
	t.Parallel()
	grok := wiretest.Transcript(t, "gateways/xai_grok_stream.sse")
	bom := append([]string{"\ufeff" + grok[0]}, grok[1:]...)
	text := wiretest.Transcript(t, "openai/text.sse")
	gzipped := func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		w.Header().Set("Content-Encoding", "gzip")
		zw := gzip.NewWriter(w)
		for _, ev := range text {
			io.WriteString(zw, ev)
			zw.Flush()
			w.(http.Flusher).Flush()
		}
		zw.Close()
	}
	plain := wiretest.NewServer(t, wiretest.Replay(text))
	e := openaiEnv(t)
	want := e.must("", "run", "--provider", "openai", "--base-url", plain.URL, "-m", "gpt-4o-mini", "hi").stdout

	srv := wiretest.NewServer(t, wiretest.Replay(bom), gzipped)
	r := e.run("", "run", "--provider", "openai", "--base-url", srv.URL, "-m", "grok-beta", "hi")
	if r.code != 1 || !strings.HasPrefix(r.stdout, "Coca-Cola is") {
		t.Errorf("a BOM before the stream: exit %d, stdout %.40q (want exit 1 for the length stop, and the first chunk's text)\n%s", r.code, r.stdout, r.stderr)
	}
	if !strings.Contains(r.stderr, "the server ended the answer at its own output limit") {
		t.Errorf("a length stop with no cap sent: %s", r.stderr)
	}
	r = e.run("", "run", "--provider", "openai", "--base-url", srv.URL, "-m", "gpt-4o-mini", "hi")
	if r.code != 0 || r.stdout != want || want == "" {
		t.Errorf("a gzipped stream: exit %d, stdout %q, want %q\n%s", r.code, r.stdout, want, r.stderr)
	}
	if got := srv.Header(1).Get("Accept-Encoding"); got != "identity" {
		t.Errorf("Accept-Encoding %q, want identity", got)
	}
}

// A session that began on a server whose tool call ids the Messages API
// refuses (Kimi's functions.Bash:0) goes on with --provider anthropic: the
// ids are sent in the API's alphabet, call and result alike, and the
// record keeps the ids the calls were made with.
func TestForeignToolIDsGoOnWithAnthropic(t *testing.T) {
	t.Parallel()
	first := wiretest.NewServer(t, wiretest.Replay(wiretest.Transcript(t, "gateways/DERIVED_kimi_tool_call_id.sse")),
		wiretest.Replay(wiretest.Transcript(t, "openai/after_tool.sse")))
	e := anthropicEnv(t)
	e.setenv("OPENAI_API_KEY=sk-proj-e2e-0123456789abcdefghijklmnop")
	e.must("", "run", "--provider", "openai", "--base-url", first.URL, "-m", "kimi-k2-0905-preview", "--allow-tool", "Bash(echo *)", "hi")
	id := e.onlySession()
	second := wiretest.NewServer(t, wiretest.Replay(wiretest.Transcript(t, "anthropic/text.sse")))
	e.must("", "resume", id, "--provider", "anthropic", "-m", "claude-sonnet-4-5", "--base-url", second.URL, "and now?")
	body := second.Body(0)
	use := gjson.GetBytes(body, `messages.#.content.#(type=="tool_use")#.id|@flatten|0`).String()
	res := gjson.GetBytes(body, `messages.#.content.#(type=="tool_result")#.tool_use_id|@flatten|0`).String()
	if use == "" || use != res || !regexp.MustCompile(`^[a-zA-Z0-9_-]+$`).MatchString(use) {
		t.Errorf("tool_use id %q, tool_result id %q\n%s", use, res, body)
	}
	if m := lastMessageWithCalls(t, e, id); !strings.Contains(fmt.Sprint(m["toolCalls"]), "functions.Bash:0") {
		t.Errorf("the record's call lost its id: %v", m["toolCalls"])
	}
}

// OpenRouter keeps a queued or slow answer open with comment lines, one a
// second or so: --timeout is how long the server may stay silent, and a
// server sending them is not.
func TestKeepAliveCommentsKeepTheTimeoutAway(t *testing.T) {
	t.Parallel()
	text := wiretest.Transcript(t, "openai/text.sse")
	slow := func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		for range 5 {
			io.WriteString(w, ": OPENROUTER PROCESSING\n\n")
			w.(http.Flusher).Flush()
			time.Sleep(400 * time.Millisecond)
		}
		for _, ev := range text {
			io.WriteString(w, ev)
			w.(http.Flusher).Flush()
		}
	}
	srv := wiretest.NewServer(t, slow)
	e := openaiEnv(t)
	r := e.run("", "run", "--provider", "openai", "--base-url", srv.URL, "-m", "deepseek/deepseek-r1", "--timeout", "1s", "--max-retries", "0", "hi")
	if r.code != 0 || !strings.HasPrefix(r.stdout, "Hello") {
		t.Errorf("exit %d (want 0: comments came every 0.4 s against a 1 s timeout)\n%s", r.code, r)
	}
}

// Two calls of one turn sharing an id (Xinference, Kimi's endpoints): each
// runs its own command, decided in the step or after a pause, and the ids
// the session keeps are unique.
func TestCallsThatShareAnIDEachRunTheirOwnCommand(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct{ provider, transcript, after, model, want string }{
		{"openai", "gateways/DERIVED_duplicate_call_ids_one_turn.sse", "openai/after_tool.sse", "local-model", "P1\nP2\n"},
		{"anthropic", "gateways/DERIVED_anthropic_duplicate_tool_use_ids.sse", "anthropic/after_tool.sse", "kimi-for-coding", "K1\nK2\n"},
	} {
		for _, paused := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s paused %v", tt.provider, paused), func(t *testing.T) {
				t.Parallel()
				srv := wiretest.NewServer(t, wiretest.Replay(wiretest.Transcript(t, tt.transcript)), wiretest.Replay(wiretest.Transcript(t, tt.after)))
				e := anthropicEnv(t)
				e.setenv("OPENAI_API_KEY=sk-proj-e2e-0123456789abcdefghijklmnop")
				args := []string{"run", "--provider", tt.provider, "--base-url", srv.URL, "-m", tt.model}
				if paused {
					r := e.run("", append(args, "--on-ask", "pause", "go")...)
					if r.code != 4 {
						t.Fatalf("exit %d, want 4 (paused)\n%s", r.code, r)
					}
					e.must("", "resume", e.onlySession(), "--approve", "all")
				} else {
					e.must("", append(args, "--allow-tool", "Bash(echo *)", "go")...)
				}
				id := e.onlySession()
				file := "p.txt"
				if tt.provider == "anthropic" {
					file = "k.txt"
				}
				lines := strings.SplitAfter(e.read(file), "\n")
				sort.Strings(lines) // a round's calls run at once
				if got := strings.Join(lines, ""); got != tt.want {
					t.Errorf("%s holds %q, want %q: each call runs its own command, once", file, got, tt.want)
				}
				calls := lastMessageWithCalls(t, e, id)["toolCalls"].([]any)
				if len(calls) != 2 || calls[0].(map[string]any)["id"] == calls[1].(map[string]any)["id"] {
					t.Errorf("the record's calls: %v", calls)
				}
				if r := e.run("", "validate-log", "--strict", e.logPath(id)); r.code != 0 {
					t.Errorf("validate-log: %s", r)
				}
			})
		}
	}
}

// A gateway's token and an Anthropic key exported side by side: the token
// is sent, as Claude Code sends it, the key never reaches the gateway, and
// a warning says which went.
func TestAGatewayTokenBeatsAnExportedAPIKey(t *testing.T) {
	t.Parallel()
	srv := wiretest.NewServer(t, wiretest.Replay(wiretest.Transcript(t, "anthropic/text.sse")))
	e := newEnv(t)
	e.setenv("ANTHROPIC_API_KEY=sk-ant-api03-real-key-0123456789abcdef", "ANTHROPIC_AUTH_TOKEN=gw-token-0123456789abcdef", "ANTHROPIC_BASE_URL="+srv.URL)
	r := e.must("", "run", "-m", "claude-sonnet-4-5", "hi")
	h := srv.Header(0)
	if h.Get("Authorization") != "Bearer gw-token-0123456789abcdef" || h.Get("X-Api-Key") != "" {
		t.Errorf("headers: Authorization %q, X-Api-Key %q", h.Get("Authorization"), h.Get("X-Api-Key"))
	}
	if !strings.Contains(r.stderr, "ANTHROPIC_AUTH_TOKEN and ANTHROPIC_API_KEY are both set") {
		t.Errorf("no warning:\n%s", r.stderr)
	}
}

// DeepSeek's Anthropic endpoint thinks unless told not to, and refuses the
// next round of a tool loop without that thinking ("The content[].thinking
// in the thinking mode must be passed back"): the round's thinking goes
// back though trail did not ask for it.
func TestThinkingAServerDidUnaskedGoesBackInTheToolLoop(t *testing.T) {
	t.Parallel()
	srv := wiretest.NewServer(t, wiretest.Replay(wiretest.Transcript(t, "anthropic/RECONSTRUCTED_thinking_tool_use.sse")),
		wiretest.Replay(wiretest.Transcript(t, "anthropic/after_tool.sse")))
	e := anthropicEnv(t)
	e.must("", "run", "-m", "deepseek-v4-pro", "--base-url", srv.URL, "what is the largest city in my country?")
	body := srv.Body(1)
	asst := gjson.GetBytes(body, `messages.#(role=="assistant")`)
	if asst.Get("content.0.type").String() != "thinking" || asst.Get("content.0.signature").String() == "" {
		t.Errorf("round 2's assistant turn: %s", asst.Raw)
	}
	if gjson.GetBytes(body, "thinking").Exists() {
		t.Errorf("trail turned thinking on: %s", body)
	}
}

// A session goes on with the base URL it began with; when the environment
// names another (a local server moved to a new port), a line says which
// was used and how to change it.
func TestAResumeSaysWhichBaseURLItUses(t *testing.T) {
	t.Parallel()
	text := wiretest.Transcript(t, "anthropic/text.sse")
	first := wiretest.NewServer(t, wiretest.Replay(text), wiretest.Replay(text))
	moved := wiretest.NewServer(t, wiretest.Replay(text))
	e := anthropicEnv(t)
	e.setenv("ANTHROPIC_BASE_URL=" + first.URL)
	e.must("", "run", "-m", "claude-sonnet-4-5", "hi")
	id := e.onlySession()
	e.setenv("ANTHROPIC_BASE_URL=" + moved.URL)
	r := e.must("", "resume", id, "again")
	want := "the session's base URL " + first.URL + " is used, not ANTHROPIC_BASE_URL's " + moved.URL + "; pass --base-url to change it"
	if !strings.Contains(r.stderr, want) || first.Requests() != 2 {
		t.Errorf("stderr %q (requests to the session's server: %d)\nwant %q", r.stderr, first.Requests(), want)
	}
	if r := e.must("", "resume", id, "--base-url", moved.URL, "and now"); strings.Contains(r.stderr, "base URL") || moved.Requests() != 1 {
		t.Errorf("--base-url: %s", r)
	}
}
