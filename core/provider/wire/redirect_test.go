package wire

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"

	"trail/core/errs"
)

// keyCounter is a server that counts the requests it gets and those that
// carry the API key.
type keyCounter struct {
	*httptest.Server
	requests, keys atomic.Int32
}

func newKeyCounter(t *testing.T, h http.HandlerFunc) *keyCounter {
	k := &keyCounter{}
	k.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		k.requests.Add(1)
		if strings.Contains(r.Header.Get("X-Api-Key"), testKey) {
			k.keys.Add(1)
		}
		h(w, r)
	}))
	t.Cleanup(k.Close)
	return k
}

func keyedClient(srvURL string) (*Client, func(context.Context) (*http.Request, error)) {
	c, newReq := testClient(srvURL, Options{MaxRetries: 4})
	return c, func(ctx context.Context) (*http.Request, error) {
		r, err := newReq(ctx)
		if err == nil {
			r.Header.Set("X-Api-Key", testKey)
		}
		return r, err
	}
}

// A base URL that redirects to another server would hand it the key
// (Go's client keeps x-api-key across hosts); a 301 would send the POST
// again as a GET without its body. Neither is followed, or retried: the
// step ends naming where the redirect points.
func TestARedirectThatWouldLeakTheKeyOrDropTheBodyIsNotFollowed(t *testing.T) {
	other := newKeyCounter(t, func(w http.ResponseWriter, r *http.Request) { sse(w, "data: ok\n\n") })
	for _, tt := range []struct {
		name   string
		status int
		to     func(srv string) string
		want   string
	}{
		{"another server", 307, func(string) string { return other.URL + "/v1/x" }, "trail follows a redirect only to the same server"},
		{"another server, permanently", 308, func(string) string { return other.URL + "/v1/x" }, "trail follows a redirect only to the same server"},
		{"a GET on the same server", 301, func(srv string) string { return srv + "/v2/x" }, "as a GET without its body"},
		{"a GET on another server", 302, func(string) string { return other.URL + "/v1/x" }, "as a GET without its body"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var srv *keyCounter
			srv = newKeyCounter(t, func(w http.ResponseWriter, r *http.Request) {
				if r.URL.Path == "/v1/x" {
					http.Redirect(w, r, tt.to(srv.URL), tt.status)
					return
				}
				sse(w, "data: ok\n\n")
			})
			before := other.requests.Load()
			c, req := keyedClient(srv.URL)
			var log retryLog
			_, err := c.Open(context.Background(), req, log.retry)
			var pe *errs.ProviderError
			if !errors.As(err, &pe) || !strings.Contains(err.Error(), tt.want) || !strings.Contains(err.Error(), tt.to(srv.URL)) {
				t.Fatalf("err = %v, want a provider error naming %s: %s", err, tt.to(srv.URL), tt.want)
			}
			if !strings.Contains(pe.Hint(), "make it the base URL: --base-url ") {
				t.Errorf("hint = %q", pe.Hint())
			}
			if got := other.requests.Load() - before; got != 0 || other.keys.Load() != 0 {
				t.Errorf("the other server got %d requests, %d with the key", got, other.keys.Load())
			}
			if srv.requests.Load() != 1 || log.n != 0 {
				t.Errorf("%d requests and %d retries, want 1 and 0", srv.requests.Load(), log.n)
			}
		})
	}
}

// A 307 or 308 on the same server (a moved path, a trailing slash) keeps
// the method, the body and the key where they were sent: followed.
func TestARedirectOnTheSameServerIsFollowedWithItsBody(t *testing.T) {
	var body atomic.Value
	srv := newKeyCounter(t, func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/v1/x" {
			http.Redirect(w, r, "/v1/x/", http.StatusPermanentRedirect)
			return
		}
		b, _ := io.ReadAll(r.Body)
		body.Store(r.Method + " " + string(b))
		sse(w, "data: ok\n\n")
	})
	c, req := keyedClient(srv.URL)
	s, err := c.Open(context.Background(), req, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if e, err := s.Next(); err != nil || string(e.Data) != "ok" {
		t.Fatalf("event %q, %v", e.Data, err)
	}
	if body.Load() != "POST {}" || srv.keys.Load() != 2 {
		t.Errorf("the redirected request was %q, %d of 2 with the key", body.Load(), srv.keys.Load())
	}
}

func TestSameServer(t *testing.T) {
	for _, tt := range []struct {
		from, to string
		same     bool
	}{
		{"http://h:8080/a", "http://H:8080/b", true},
		{"https://h/a", "https://h:443/b", true},
		{"http://h/a", "https://h/a", true}, // an upgrade
		{"https://h/a", "http://h/a", false},
		{"http://h:8080/a", "http://h:8081/a", false},
		{"https://api.example.com/a", "https://evil.example.com/a", false},
	} {
		from, to := mustURL(t, tt.from), mustURL(t, tt.to)
		if got := sameServer(from, to); got != tt.same {
			t.Errorf("sameServer(%s, %s) = %v", tt.from, tt.to, got)
		}
	}
}

func TestARedirectSuggestsTheBaseURLItPointsAt(t *testing.T) {
	for _, tt := range []struct{ from, to, base string }{
		{"http://127.0.0.1:1/v1/messages", "http://localhost:2/v1/messages", "http://localhost:2"},
		{"https://gw/api/v1/chat/completions", "https://gw2/openai/v1/chat/completions?x=1", "https://gw2/openai"},
		{"https://gw/v1/messages", "https://gw2/elsewhere", "https://gw2/elsewhere"},
	} {
		e := &redirectError{from: mustURL(t, tt.from), to: mustURL(t, tt.to)}
		if got := e.base(); got != tt.base {
			t.Errorf("%s -> %s: base %q, want %q", tt.from, tt.to, got, tt.base)
		}
	}
}

func mustURL(t *testing.T, s string) *url.URL {
	u, err := url.Parse(s)
	if err != nil {
		t.Fatal(err)
	}
	return u
}

// A server that redirects to itself forever is named as such, not offered
// as the base URL to use.
func TestARedirectLoopIsNamed(t *testing.T) {
	var srv *keyCounter
	srv = newKeyCounter(t, func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, r.URL.Path, http.StatusTemporaryRedirect)
	})
	c, req := keyedClient(srv.URL)
	_, err := c.Open(context.Background(), req, nil)
	var pe *errs.ProviderError
	if !errors.As(err, &pe) || !strings.Contains(err.Error(), "stopped after 10 redirects") || pe.Hint() != "the server redirects in a loop: check --base-url" {
		t.Fatalf("err = %v (hint %q)", err, pe.Hint())
	}
}
