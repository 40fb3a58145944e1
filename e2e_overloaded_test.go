package main_test

import (
	"strings"
	"testing"

	"trail/core/provider/wire/wiretest"
)

// A busy Anthropic API answers 200 and an overloaded_error as the stream's
// first event, where a request not streamed gets a 529. The step used to
// end at once with exit 6; it is retried as a 529 is, each retry one line
// on stderr, and the answer comes once the API has room.
func TestABusyAPIsFirstEventErrorIsRetried(t *testing.T) {
	t.Parallel()
	busy := wiretest.Transcript(t, "anthropic/overloaded_first_event.sse")
	srv := wiretest.NewServer(t, wiretest.Replay(busy), wiretest.Replay(wiretest.Transcript(t, "anthropic/text.sse")))
	e := anthropicEnv(t)
	r := e.run("", "run", "--base-url", srv.URL, "Hello")
	if r.code != 0 || r.stdout != "Hello!\n" || srv.Requests() != 2 {
		t.Fatalf("%d requests: %s", srv.Requests(), r)
	}
	if !strings.Contains(r.stderr, "trail: anthropic: 529 overloaded_error, retrying in") {
		t.Errorf("the retry was not said: %q", r.stderr)
	}
	id := e.onlySession()
	if n := len(e.events(id, "provider_request")); n != 1 {
		t.Errorf("%d provider_request lines, want the one request", n)
	}
	e.checkReplayMatchesRecord(id)
}
