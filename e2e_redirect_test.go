package main_test

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"trail/core/provider/wire/wiretest"
)

// A base URL that redirects elsewhere (a gateway moved, a name taken over)
// must not get the API key sent on to where it points: Go's client keeps
// x-api-key across hosts. The step ends with exit 6, the redirect's target
// in the error and the base URL to use in the hint; the target never sees
// the request. A move on the same server (307/308) is followed.
func TestARedirectToAnotherServerGetsNoKey(t *testing.T) {
	t.Parallel()
	answer := wiretest.Replay(wiretest.Transcript(t, "anthropic/text.sse"))
	var keysElsewhere atomic.Int32
	elsewhere := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("X-Api-Key") != "" {
			keysElsewhere.Add(1)
		}
		http.Error(w, "not here", 404)
	}))
	t.Cleanup(elsewhere.Close)
	// moved answers under /new/, and redirects everything else.
	moved := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch {
		case strings.HasPrefix(r.URL.Path, "/new/"):
			answer(w, r)
		case strings.HasPrefix(r.URL.Path, "/other/"):
			http.Redirect(w, r, elsewhere.URL+"/gw"+strings.TrimPrefix(r.URL.Path, "/other"), http.StatusTemporaryRedirect)
		case strings.HasPrefix(r.URL.Path, "/get/"):
			http.Redirect(w, r, "/new"+strings.TrimPrefix(r.URL.Path, "/get"), http.StatusMovedPermanently)
		default:
			http.Redirect(w, r, "/new"+r.URL.Path, http.StatusPermanentRedirect)
		}
	}))
	t.Cleanup(moved.Close)

	e := anthropicEnv(t)
	r := e.run("", "run", "--provider", "anthropic", "--base-url", moved.URL+"/other", "--no-stdin", "hi")
	lines := strings.Split(strings.TrimSuffix(r.stderr, "\n"), "\n")
	if r.code != 6 || len(lines) != 2 || r.stdout != "" {
		t.Fatalf("want exit 6 and two lines on stderr: %s", r)
	}
	if want := "answered 307 Temporary Redirect to " + elsewhere.URL + "/gw/v1/messages; not followed: trail follows a redirect only to the same server"; !strings.Contains(lines[0], want) {
		t.Errorf("error line %q\nwant it to say %q", lines[0], want)
	}
	if want := "hint: if that is the server to use, make it the base URL: --base-url " + elsewhere.URL + "/gw (or the baseUrl setting)"; !strings.HasPrefix(lines[1], want) {
		t.Errorf("hint %q\nwant it to start %q", lines[1], want)
	}
	if n := keysElsewhere.Load(); n != 0 {
		t.Errorf("the server the redirect named got the key %d times", n)
	}
	if strings.Contains(r.stderr, anthropicKey) {
		t.Errorf("the key reached stderr: %s", r)
	}

	r = e.run("", "run", "--provider", "anthropic", "--base-url", moved.URL+"/get", "--no-stdin", "hi")
	if r.code != 6 || !strings.Contains(r.stderr, "following it would send the request again as a GET without its body") {
		t.Errorf("a 301 on a POST: %s", r)
	}

	r = e.run("", "run", "--provider", "anthropic", "--base-url", moved.URL, "--no-stdin", "hi")
	if r.code != 0 || r.stdout != "Hello!\n" {
		t.Errorf("a 308 on the same server: %s", r)
	}
}
