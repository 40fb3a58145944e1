package main_test

import (
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
