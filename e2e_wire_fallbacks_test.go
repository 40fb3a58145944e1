package main_test

import (
	"io"
	"net/http"
	"strings"
	"testing"

	"trail/core/provider/wire/wiretest"
)

// What servers and the proxies before them answer in place of the stream
// trail asked for: a Cloudflare error page, an error chunk with status
// 200, an event stream labelled JSON, one whole JSON answer.

// Cloudflare's 524 (the origin took too long) passes on the next attempt
// as often as a 502 does: it is retried, with one line on stderr.
func TestACloudflareTimeoutIsRetried(t *testing.T) {
	t.Parallel()
	page := wiretest.Body(t, "gateways/RECONSTRUCTED_cloudflare_524.html")
	srv := wiretest.NewServer(t, wiretest.Status(524, page),
		wiretest.Replay(wiretest.Transcript(t, "openai/text.sse")))
	e := openaiEnv(t)
	r := e.run("", "run", "--provider", "openai", "--base-url", srv.URL, "-m", "gpt-4o", "hi")
	if r.code != 0 || !strings.HasPrefix(r.stdout, "Hello") || srv.Requests() != 2 {
		t.Fatalf("exit %d after %d requests, want 0 after 2\n%s", r.code, srv.Requests(), r)
	}
	if want := "trail: openai: 524 an HTML page: api.openai.com | 524: A timeout occurred, retrying in 0.0 s (1 of 4)\n"; r.stderr != want {
		t.Errorf("stderr %q\nwant   %q", r.stderr, want)
	}
}

// Azure streams one error chunk with status 200 where it would answer 429;
// it is retried as the 429 would be. An error chunk no wait cures (a
// gateway's 401) fails at once.
func TestAnErrorChunkInPlaceOfA429IsRetried(t *testing.T) {
	t.Parallel()
	text := wiretest.Transcript(t, "openai/text.sse")
	srv := wiretest.NewServer(t, wiretest.Replay(wiretest.Transcript(t, "gateways/azure_200_error_chunk_rate_limit.sse")), wiretest.Replay(text))
	e := openaiEnv(t)
	r := e.run("", "run", "--provider", "openai", "--base-url", srv.URL, "-m", "gpt-5.2", "hi")
	if r.code != 0 || r.stdout != "Hello there, how may I assist you today?\n" || srv.Requests() != 2 {
		t.Fatalf("exit %d after %d requests, want 0 after 2\n%s", r.code, srv.Requests(), r)
	}
	if want := "trail: openai: 429 rate_limit_exceeded, retrying in 0.0 s (1 of 4)\n"; r.stderr != want {
		t.Errorf("stderr %q\nwant   %q", r.stderr, want)
	}
	if n := len(e.events(e.onlySession(), "provider_retry")); n != 1 {
		t.Errorf("%d provider_retry lines, want 1", n)
	}

	auth := "data: " + wiretest.Compact(t, []byte(wiretest.Body(t, "gateways/RECONSTRUCTED_litellm_401_code_as_string.json"))) + "\n\n"
	srv = wiretest.NewServer(t, wiretest.Replay([]string{auth}), wiretest.Replay(text))
	r = e.run("", "run", "--provider", "openai", "--base-url", srv.URL, "-m", "gpt-5.2", "hi")
	if r.code != 6 || srv.Requests() != 1 || !strings.HasPrefix(r.stderr, "trail: openai: auth_error: Authentication Error") {
		t.Errorf("a 401 chunk: exit %d after %d requests, want 6 after 1\n%s", r.code, srv.Requests(), r)
	}
}

// labelled serves events under another content type than an event
// stream's.
func labelled(contentType string, events []string) wiretest.Step {
	return func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", contentType)
		for _, ev := range events {
			io.WriteString(w, ev)
			w.(http.Flusher).Flush()
		}
	}
}

// Microsoft's Foundry Local labels its event streams application/json:
// the body says what it is, and the answer comes through.
func TestAnEventStreamLabelledJSONIsReadAsOne(t *testing.T) {
	t.Parallel()
	srv := wiretest.NewServer(t, labelled("application/json", wiretest.Transcript(t, "openai/text.sse")))
	e := openaiEnv(t)
	r := e.run("", "run", "--provider", "openai", "--base-url", srv.URL, "-m", "phi-4-mini", "hi")
	if r.code != 0 || r.stdout != "Hello there, how may I assist you today?\n" || r.stderr != "" {
		t.Errorf("exit %d\n%s", r.code, r)
	}
}

// A server that ignores "stream": true answers one JSON body: it is the
// answer, tool calls and all, with one note on stderr a step (none with
// -q), and the log holds the body as the response and validates.
func TestAServerThatDoesNotStreamIsAnsweredAllTheSame(t *testing.T) {
	t.Parallel()
	const note = "trail: openai: the server does not stream: its answer came whole, at the end\n"
	srv := wiretest.NewServer(t, wiretest.Status(200, wiretest.Body(t, "openai/RECONSTRUCTED_nonstream_tool_call.json")),
		wiretest.Status(200, wiretest.Body(t, "openai/nonstream.json")))
	e := openaiEnv(t)
	r := e.run("", "run", "--provider", "openai", "--base-url", srv.URL, "-m", "gpt-4o-mini", "--allow-tool", "Bash(echo *)", "hi")
	if r.code != 0 || r.stdout != "\n\nHello there, how may I assist you today?\n" || strings.Count(r.stderr, note) != 1 {
		t.Fatalf("exit %d, want 0 with the second answer and one note\n%s", r.code, r)
	}
	if e.read("w.txt") != "whole\n" || e.read("v.txt") != "second\n" {
		t.Errorf("the calls of the whole answer did not run")
	}
	id := e.onlySession()
	if v := e.run("", "validate-log", "--strict", e.logPath(id)); v.code != 0 {
		t.Errorf("validate-log --strict: %s", v)
	}
	responses := 0
	for _, l := range e.events(id, "provider_native_raw_payload") {
		if l["payloadKind"] == "response" {
			responses++
		}
	}
	if responses != 2 {
		t.Errorf("%d response payloads in the log, want the 2 bodies", responses)
	}

	srv = wiretest.NewServer(t, wiretest.Status(200, wiretest.Body(t, "anthropic/nonstream.json")))
	a := anthropicEnv(t)
	r = a.run("", "run", "--base-url", srv.URL, "-m", "claude-sonnet-4-5", "hi")
	if r.code != 0 || r.stdout != "Hi! My name is Claude.\n" || r.stderr != strings.Replace(note, "openai", "anthropic", 1) {
		t.Errorf("anthropic: exit %d\n%s", r.code, r)
	}
	r = a.run("", "run", "-q", "--base-url", srv.URL, "-m", "claude-sonnet-4-5", "hi")
	if r.code != 0 || r.stderr != "" {
		t.Errorf("-q: exit %d\n%s", r.code, r)
	}

	// An error body in place of the stream is still the error it was.
	srv = wiretest.NewServer(t, wiretest.Status(200, wiretest.Body(t, "lmstudio/200_unexpected_endpoint.json")))
	r = e.run("", "run", "--provider", "openai", "--base-url", srv.URL, "-m", "m", "hi")
	if r.code != 6 || !strings.HasPrefix(r.stderr, "trail: openai: 200 Unexpected endpoint or method. (POST /chat/completions)\n") {
		t.Errorf("an error body: exit %d\n%s", r.code, r)
	}
}
