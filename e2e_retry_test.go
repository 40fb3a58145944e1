package main_test

import (
	"strings"
	"testing"
	"time"

	"github.com/tidwall/gjson"

	"trail/core/provider/wire/wiretest"
)

// Provider retries on the built binary: each retry is one stderr line,
// whatever stderr is, silenced by -q; a retry-after longer than trail waits
// ends the step with the server's wait.

func TestEachRetryIsOneLineOnStderr(t *testing.T) {
	t.Parallel()
	text := wiretest.Transcript(t, "anthropic/text.sse")
	limited := wiretest.Status(429, wiretest.Body(t, "anthropic/429.json"))
	tests := []struct {
		name       string
		args       []string
		wantStderr string
	}{
		{name: "text", wantStderr: "trail: anthropic: 429 rate_limit_error, retrying in 0.0 s (1 of 4)\n" +
			"trail: anthropic: 429 rate_limit_error, retrying in 0.0 s (2 of 4)\n"},
		{name: "-q", args: []string{"-q"}},
		{name: "stream-json", args: []string{"-o", "stream-json"}, wantStderr: "trail: anthropic: 429 rate_limit_error, retrying in 0.0 s (1 of 4)\n" +
			"trail: anthropic: 429 rate_limit_error, retrying in 0.0 s (2 of 4)\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			srv := wiretest.NewServer(t, limited, limited, wiretest.Replay(text))
			e := anthropicEnv(t)
			r := e.must("", append(append([]string{"run", "--base-url", srv.URL}, tt.args...), "Hello")...)
			if r.stderr != tt.wantStderr {
				t.Errorf("stderr = %q, want %q", r.stderr, tt.wantStderr)
			}
			if srv.Requests() != 3 {
				t.Errorf("%d requests, want 3", srv.Requests())
			}
			if tt.name != "stream-json" {
				return
			}
			var status []string
			for _, l := range strings.Split(strings.TrimSpace(r.stdout), "\n") {
				if gjson.Get(l, "block.type").String() == "system" || strings.Contains(l, "retrying in") {
					status = append(status, l)
				}
			}
			if len(status) < 2 || !strings.Contains(status[0], "retrying in") {
				t.Errorf("stream-json retry events: %v", status)
			}
		})
	}
}

// A retry-after beyond the 60 s trail waits is neither shortened nor
// ignored: the step ends at once (exit 6) naming the server's wait, and the
// session is saved as after any provider error.
func TestARetryAfterBeyondWhatTrailWaitsEndsTheStep(t *testing.T) {
	t.Parallel()
	srv := wiretest.NewServer(t, wiretest.Status(429, wiretest.Body(t, "anthropic/429.json"), "Retry-After", "100"))
	e := anthropicEnv(t)
	start := time.Now()
	r := e.run("", "run", "--base-url", srv.URL, "Hello")
	if r.code != 6 {
		t.Fatalf("exit %d, want 6\n%s", r.code, r)
	}
	want := "trail: anthropic: 429 rate_limit_error: the server asks to wait 100 s: This request would exceed the rate limit for your organization of 50 requests per minute. For details, refer to: https://docs.claude.com/en/api/rate-limits.\n" +
		"hint: trail waits at most 60 s for a retry: resume the session once the wait is over; the prompt is kept: trail resume " + e.onlySession() + " (no prompt) asks again\n"
	if r.stderr != want {
		t.Errorf("stderr = %q\nwant     %q", r.stderr, want)
	}
	if srv.Requests() != 1 {
		t.Errorf("%d requests, want 1: the server's wait was not honoured", srv.Requests())
	}
	if d := time.Since(start); d > 10*time.Second {
		t.Errorf("took %s", d)
	}
	id := e.onlySession()
	if n := len(e.events(id, "provider_retry")); n != 0 {
		t.Errorf("%d provider_retry lines", n)
	}
	if rec := e.record(id); rec["stopReason"] != "error" {
		t.Errorf("stopReason = %v", rec["stopReason"])
	}
}
