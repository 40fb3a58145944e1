package wire

import (
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"trail/core/errs"
	"trail/core/provider/wire/wiretest"
)

const testKey = "sk-test-0123456789abcdefghij"

func testClient(srvURL string, opts Options) (*Client, func(context.Context) (*http.Request, error)) {
	opts.BaseDelay = time.Millisecond
	opts.Rand = func() float64 { return 0 }
	c := NewClient("acme", []string{testKey}, opts)
	c.Hint = func(status int, _ []byte) string {
		if status == 401 {
			return "check the key"
		}
		return ""
	}
	return c, func(ctx context.Context) (*http.Request, error) {
		return http.NewRequestWithContext(ctx, "POST", srvURL+"/v1/x", strings.NewReader("{}"))
	}
}

type retryLog struct {
	n     int
	waits []time.Duration
	why   []string
}

func (l *retryLog) retry(n int, wait time.Duration, reason error) {
	l.n = n
	l.waits = append(l.waits, wait)
	l.why = append(l.why, reason.Error())
}

func sse(w http.ResponseWriter, body string) {
	w.Header().Set("Content-Type", "text/event-stream")
	io.WriteString(w, body)
}

func TestOpenRetriesRateLimitHonouringRetryAfter(t *testing.T) {
	var calls atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if calls.Add(1) == 1 {
			w.Header().Set("Retry-After", "0.05")
			w.WriteHeader(429)
			io.WriteString(w, `{"type":"error","error":{"type":"rate_limit_error","message":"slow down"}}`)
			return
		}
		sse(w, "data: ok\n\n")
	}))
	defer srv.Close()
	c, req := testClient(srv.URL, Options{MaxRetries: 4})
	var log retryLog
	s, err := c.Open(context.Background(), req, log.retry)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	e, err := s.Next()
	if err != nil || string(e.Data) != "ok" {
		t.Fatalf("event %q, %v", e.Data, err)
	}
	if calls.Load() != 2 || log.n != 1 {
		t.Fatalf("calls %d, retries %d; want 2 and 1", calls.Load(), log.n)
	}
	if log.waits[0] != 50*time.Millisecond {
		t.Errorf("waited %s, want the server's 50ms", log.waits[0])
	}
	if log.why[0] != "acme: 429 rate_limit_error: slow down" {
		t.Errorf("retry reason = %q", log.why[0])
	}
}

// A retry-after beyond what trail waits for a retry (60 s) is not
// shortened into an early retry the server would refuse again: the call
// ends at once, with the server's wait in the message.
func TestARetryAfterLongerThanTrailWaitsEndsTheCall(t *testing.T) {
	for _, tt := range []struct{ name, header, value, want string }{
		{"seconds", "Retry-After", "100", "acme: 429 rate_limit_error: the server asks to wait 100 s: slow down"},
		{"milliseconds", "Retry-After-Ms", "90500", "acme: 429 rate_limit_error: the server asks to wait 90.5 s: slow down"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var calls atomic.Int32
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				calls.Add(1)
				w.Header().Set(tt.header, tt.value)
				w.WriteHeader(429)
				io.WriteString(w, `{"type":"error","error":{"type":"rate_limit_error","message":"slow down"}}`)
			}))
			defer srv.Close()
			c, req := testClient(srv.URL, Options{MaxRetries: 4})
			var log retryLog
			_, err := c.Open(context.Background(), req, log.retry)
			var pe *errs.ProviderError
			if !errors.As(err, &pe) || err.Error() != tt.want {
				t.Fatalf("err = %v, want %q", err, tt.want)
			}
			if pe.Hint() != "trail waits at most 60 s for a retry: resume the session once the wait is over" {
				t.Errorf("hint = %q", pe.Hint())
			}
			if calls.Load() != 1 || log.n != 0 {
				t.Errorf("%d calls and %d retries, want 1 and 0", calls.Load(), log.n)
			}
		})
	}
}

// With no retry left, the server's wait is still named.
func TestTheLastFailureNamesTheServersWait(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Retry-After", "0.01")
		w.WriteHeader(529)
		io.WriteString(w, `{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}`)
	}))
	defer srv.Close()
	c, req := testClient(srv.URL, Options{MaxRetries: 1})
	_, err := c.Open(context.Background(), req, nil)
	if want := "acme: 529 overloaded_error: the server asks to wait 0.01 s: Overloaded"; err == nil || err.Error() != want {
		t.Fatalf("err = %v, want %q", err, want)
	}
}

func TestOpenGivesUpAfterMaxRetries(t *testing.T) {
	for _, status := range []int{500, 529, 503, 408} {
		var calls atomic.Int32
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			calls.Add(1)
			w.WriteHeader(status)
			io.WriteString(w, `{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}`)
		}))
		c, req := testClient(srv.URL, Options{MaxRetries: 2})
		var log retryLog
		_, err := c.Open(context.Background(), req, log.retry)
		srv.Close()
		var pe *errs.ProviderError
		if !errors.As(err, &pe) || pe.Status != status {
			t.Fatalf("%d: err = %#v", status, err)
		}
		if calls.Load() != 3 || log.n != 2 {
			t.Errorf("%d: %d calls and %d retries, want 3 and 2", status, calls.Load(), log.n)
		}
		if !strings.Contains(err.Error(), "overloaded_error: Overloaded") {
			t.Errorf("%d: error %q lacks the provider's message", status, err)
		}
	}
}

func TestOpenDoesNotRetryAuthErrorsAndHidesTheKey(t *testing.T) {
	var calls atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		calls.Add(1)
		w.WriteHeader(401)
		io.WriteString(w, `{"error":{"message":"Incorrect API key provided: `+testKey+`","type":"invalid_request_error","code":"invalid_api_key"}}`)
	}))
	defer srv.Close()
	c, req := testClient(srv.URL, Options{MaxRetries: 4})
	_, err := c.Open(context.Background(), req, nil)
	if calls.Load() != 1 {
		t.Fatalf("401 was tried %d times", calls.Load())
	}
	if err == nil || strings.Contains(err.Error(), testKey) {
		t.Fatalf("error %v shows the key", err)
	}
	if err.Error() != "acme: 401 invalid_api_key: Incorrect API key provided: [REDACTED]" {
		t.Errorf("error = %q", err)
	}
	var h errs.Hinter
	if !errors.As(err, &h) || h.Hint() != "check the key" {
		t.Errorf("no hint on %v", err)
	}
}

// A message is cut short when quoted; the key must go before the cut, or
// its first half would show.
func TestAKeyAtTheCutOfALongMessageIsHiddenWhole(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(400)
		io.WriteString(w, `{"error":{"type":"invalid_request_error","message":"`+strings.Repeat("x", 455)+` header: `+testKey+`"}}`)
	}))
	defer srv.Close()
	c, req := testClient(srv.URL, Options{})
	_, err := c.Open(context.Background(), req, nil)
	if err == nil {
		t.Fatal("no error")
	}
	if strings.Contains(err.Error(), testKey[:12]) {
		t.Errorf("the error shows the start of the key: ...%s", err.Error()[450:])
	}
}

func TestOpenRetriesConnectionFailures(t *testing.T) {
	// A listener that accepts and closes: the connection fails before any byte.
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var accepted atomic.Int32
	go func() {
		for {
			conn, err := ln.Accept()
			if err != nil {
				return
			}
			accepted.Add(1)
			conn.Close()
		}
	}()
	defer ln.Close()
	c, req := testClient("http://"+ln.Addr().String(), Options{MaxRetries: 2})
	var log retryLog
	_, err = c.Open(context.Background(), req, log.retry)
	var pe *errs.ProviderError
	if !errors.As(err, &pe) || pe.Status != 0 {
		t.Fatalf("err = %v", err)
	}
	if log.n != 2 {
		t.Fatalf("%d retries, want 2", log.n)
	}
}

func TestOpenRetriesAResponseThatClosesBeforeItsFirstByte(t *testing.T) {
	var calls atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if calls.Add(1) == 1 {
			w.Header().Set("Content-Type", "text/event-stream")
			w.WriteHeader(200)
			w.(http.Flusher).Flush()
			hj, _, _ := w.(http.Hijacker).Hijack()
			hj.Close()
			return
		}
		sse(w, "data: second\n\n")
	}))
	defer srv.Close()
	c, req := testClient(srv.URL, Options{MaxRetries: 1})
	s, err := c.Open(context.Background(), req, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if e, _ := s.Next(); string(e.Data) != "second" {
		t.Fatalf("got %q", e.Data)
	}
}

func TestIdleTimeoutBeforeTheAnswerIsNotRetried(t *testing.T) {
	var calls atomic.Int32
	release := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		calls.Add(1)
		select {
		case <-release:
		case <-r.Context().Done():
		}
	}))
	defer srv.Close()
	defer close(release)
	c, req := testClient(srv.URL, Options{MaxRetries: 3, IdleTimeout: 50 * time.Millisecond})
	start := time.Now()
	_, err := c.Open(context.Background(), req, nil)
	if err == nil || !strings.Contains(err.Error(), "timed out") {
		t.Fatalf("err = %v", err)
	}
	if calls.Load() != 1 {
		t.Errorf("a timed out call was retried (%d calls)", calls.Load())
	}
	if time.Since(start) > 5*time.Second {
		t.Errorf("took %s", time.Since(start))
	}
}

func TestIdleTimeoutIsRefreshedByEveryEvent(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		for range 6 {
			io.WriteString(w, "event: ping\ndata: {\"type\": \"ping\"}\n\n")
			w.(http.Flusher).Flush()
			time.Sleep(100 * time.Millisecond)
		}
		io.WriteString(w, "data: done\n\n")
		w.(http.Flusher).Flush()
		<-r.Context().Done() // then silence
	}))
	defer srv.Close()
	// Six pings 100 ms apart outlast a 400 ms timer only if each restarts it;
	// the margins leave room for a loaded machine.
	c, req := testClient(srv.URL, Options{IdleTimeout: 400 * time.Millisecond})
	s, err := c.Open(context.Background(), req, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	for i := range 7 {
		if _, err := s.Next(); err != nil {
			t.Fatalf("event %d: %v (pings 100ms apart must keep a 400ms timer alive)", i, err)
		}
	}
	_, err = s.Next()
	var pe *errs.ProviderError
	if !errors.As(err, &pe) || !strings.Contains(pe.Message, "timed out") {
		t.Fatalf("after silence: %v", err)
	}
}

// OpenRouter keeps a slow answer open with comment lines (": OPENROUTER
// PROCESSING"), as Anthropic does with pings: they restart the wait too.
func TestKeepAliveCommentsRefreshTheIdleTimeout(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		io.WriteString(w, ": OPENROUTER PROCESSING\n\n")
		w.(http.Flusher).Flush()
		for range 8 {
			time.Sleep(100 * time.Millisecond)
			io.WriteString(w, ": OPENROUTER PROCESSING\n\n")
			w.(http.Flusher).Flush()
		}
		io.WriteString(w, "data: done\n\n")
		w.(http.Flusher).Flush()
		<-r.Context().Done()
	}))
	defer srv.Close()
	c, req := testClient(srv.URL, Options{IdleTimeout: 400 * time.Millisecond})
	s, err := c.Open(context.Background(), req, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if ev, err := s.Next(); err != nil || string(ev.Data) != "done" {
		t.Fatalf("event %q, %v (comments 100ms apart must keep a 400ms timer alive)", ev.Data, err)
	}
	_, err = s.Next()
	var pe *errs.ProviderError
	if !errors.As(err, &pe) || !strings.Contains(pe.Message, "timed out") {
		t.Fatalf("after silence: %v", err)
	}
}

func TestCancelEndsTheStreamAtOnce(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		sse(w, "data: a\n\n")
		w.(http.Flusher).Flush()
		<-r.Context().Done()
	}))
	defer srv.Close()
	ctx, cancel := context.WithCancel(context.Background())
	c, req := testClient(srv.URL, Options{})
	s, err := c.Open(ctx, req, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if _, err := s.Next(); err != nil {
		t.Fatal(err)
	}
	time.AfterFunc(20*time.Millisecond, cancel)
	start := time.Now()
	_, err = s.Next()
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
	if time.Since(start) > 2*time.Second {
		t.Fatalf("cancel took %s", time.Since(start))
	}
}

func TestCancelDuringBackoffReturnsAtOnce(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Retry-After", "30")
		w.WriteHeader(429)
	}))
	defer srv.Close()
	ctx, cancel := context.WithCancel(context.Background())
	c, req := testClient(srv.URL, Options{MaxRetries: 3})
	start := time.Now()
	_, err := c.Open(ctx, req, func(int, time.Duration, error) { cancel() })
	if !errors.Is(err, context.Canceled) || time.Since(start) > 5*time.Second {
		t.Fatalf("err %v after %s", err, time.Since(start))
	}
}

func TestConnectionLostMidStreamIsAProviderError(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		w.Header().Set("Content-Length", "1000")
		io.WriteString(w, "data: a\n\ndata: {\"cut")
		w.(http.Flusher).Flush()
		hj, _, _ := w.(http.Hijacker).Hijack()
		hj.Close()
	}))
	defer srv.Close()
	c, req := testClient(srv.URL, Options{MaxRetries: 3})
	s, err := c.Open(context.Background(), req, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if _, err := s.Next(); err != nil {
		t.Fatal(err)
	}
	_, err = s.Next()
	var pe *errs.ProviderError
	if !errors.As(err, &pe) || !strings.Contains(pe.Message, "connection lost") {
		t.Fatalf("err = %v", err)
	}
}

func TestBackoffDoublesUpToTheCapWithJitter(t *testing.T) {
	o := Options{Rand: func() float64 { return 0 }}
	o.fill()
	want := []time.Duration{500 * time.Millisecond, time.Second, 2 * time.Second, 4 * time.Second, 8 * time.Second, 8 * time.Second, 8 * time.Second}
	for i, w := range want {
		if got := o.backoff(i+1, 0); got != w {
			t.Errorf("retry %d: %s, want %s", i+1, got, w)
		}
	}
	o.Rand = func() float64 { return 0.999 }
	if got := o.backoff(1, 0); got < 375*time.Millisecond || got >= 500*time.Millisecond {
		t.Errorf("jittered first wait %s outside [375ms, 500ms)", got)
	}
	if got := o.backoff(1, 3*time.Second); got != 3*time.Second {
		t.Errorf("retry-after 3s gave %s", got)
	}
	if got := o.backoff(1, time.Hour); got > 500*time.Millisecond {
		t.Errorf("an hour-long retry-after was honoured: %s", got)
	}
}

func TestRetryAfterForms(t *testing.T) {
	now := time.Date(2025, 1, 2, 3, 4, 5, 0, time.UTC)
	tests := []struct {
		name string
		h    map[string]string
		want time.Duration
	}{
		{"seconds", map[string]string{"Retry-After": "2"}, 2 * time.Second},
		{"fractional seconds", map[string]string{"Retry-After": "0.5"}, 500 * time.Millisecond},
		{"an HTTP date", map[string]string{"Retry-After": now.Add(7 * time.Second).Format(http.TimeFormat)}, 7 * time.Second},
		{"a date in the past", map[string]string{"Retry-After": now.Add(-time.Minute).Format(http.TimeFormat)}, 0},
		{"milliseconds win", map[string]string{"Retry-After-Ms": "250", "Retry-After": "9"}, 250 * time.Millisecond},
		{"garbage", map[string]string{"Retry-After": "soon"}, 0},
		{"negative", map[string]string{"Retry-After": "-3"}, 0},
		{"huge, bounded", map[string]string{"Retry-After": "1e300"}, maxServerWait},
		{"huge milliseconds, bounded", map[string]string{"Retry-After-Ms": "1e300"}, maxServerWait},
		{"NaN", map[string]string{"Retry-After": "NaN"}, 0},
		{"absent", nil, 0},
	}
	for _, tt := range tests {
		h := http.Header{}
		for k, v := range tt.h {
			h.Set(k, v)
		}
		if got := retryAfter(h, now); got != tt.want {
			t.Errorf("%s: %s, want %s", tt.name, got, tt.want)
		}
	}
}

func TestErrorMessageShapes(t *testing.T) {
	tests := []struct{ body, want string }{
		{`{"type":"error","error":{"type":"authentication_error","message":"invalid x-api-key"},"request_id":"req_1"}`, "authentication_error: invalid x-api-key"},
		{`{"error":{"message":"You exceeded your current quota","type":"insufficient_quota","param":null,"code":"insufficient_quota"}}`, "insufficient_quota: You exceeded your current quota"},
		{`{"error":"model \"llama9\" not found, try pulling it first"}`, `model "llama9" not found, try pulling it first`},
		{`<html>bad gateway</html>`, ""},
		{`[{"error":{"code":400,"message":"Function call is missing a thought_signature","status":"INVALID_ARGUMENT"}}]`, "INVALID_ARGUMENT: Function call is missing a thought_signature"},
		{`{"object":"error","message":"[{'type': 'extra_forbidden', 'loc': ('body', 'stream_options')}]","type":"BadRequestError","param":null,"code":400}`, "BadRequestError: [{'type': 'extra_forbidden', 'loc': ('body', 'stream_options')}]"},
		{`{"object":"error","message":{"detail":[{"type":"extra_forbidden","loc":["body","stream_options","include_usage"],"msg":"Extra inputs are not permitted"}]},"type":"invalid_request_error","code":null}`, "invalid_request_error: Extra inputs are not permitted (body.stream_options.include_usage)"},
		{`{"detail":"Extra parameters ['stream_options'] are not allowed"}`, "Extra parameters ['stream_options'] are not allowed"},
		{`{"detail":[{"type":"missing","loc":["body","model"],"msg":"Field required"}]}`, "missing: Field required (body.model)"},
		{`{"error":{"message":"Error from provider: Provider returned error","code":400,"metadata":{"raw":"{\"error\":{\"message\":\"reasoning_content is missing\"}}"}}}`, "Error from provider: Provider returned error: reasoning_content is missing"},
		{`{"error":{"code":500,"message":"boom","type":"server_error"}}`, "server_error: boom"},
		{`[]`, ""},
		{`"text"`, ""},
	}
	for _, tt := range tests {
		if got := ErrorMessage([]byte(tt.body)); got != tt.want {
			t.Errorf("ErrorMessage(%s) = %q, want %q", tt.body, got, tt.want)
		}
	}
}

func TestPayloadKeepsJSONAndQuotesTheRest(t *testing.T) {
	if _, ok := Payload([]byte(`{"a":[1]}`)).(interface{ MarshalJSON() ([]byte, error) }); !ok {
		t.Error("valid JSON is not kept raw")
	}
	if s, ok := Payload([]byte(`{"a":`)).(string); !ok || s != `{"a":` {
		t.Errorf("broken JSON = %#v", Payload([]byte(`{"a":`)))
	}
	deep := strings.Repeat("[", 600) + strings.Repeat("]", 600)
	if _, ok := Payload([]byte(deep)).(string); !ok {
		t.Error("a 600-deep array was handed to the log as JSON")
	}
}

// A proxy's HTML error page (nginx's own 502, byte for byte) is named by
// its title in the error and every retry line, not quoted as markup.
func TestAnHTMLErrorPageIsNamedByItsTitle(t *testing.T) {
	page := wiretest.Body(t, "gateways/nginx_502.html")
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		w.WriteHeader(http.StatusBadGateway)
		io.WriteString(w, page)
	}))
	defer srv.Close()
	c, req := testClient(srv.URL, Options{MaxRetries: 0})
	_, err := c.Open(context.Background(), req, nil)
	var pe *errs.ProviderError
	if !errors.As(err, &pe) || pe.Message != "an HTML page: 502 Bad Gateway" {
		t.Fatalf("err = %v", err)
	}
	for body, want := range map[string]string{
		`<!DOCTYPE html><html><body><h1>Service Unavailable</h1></body></html>`: "an HTML page: Service Unavailable",
		`<html><body>down</body></html>`:                                        "an HTML page",
		"upstream connect error or disconnect/reset before headers":             "upstream connect error or disconnect/reset before headers",
	} {
		if got := BodyText([]byte(body)); got != want {
			t.Errorf("BodyText(%q) = %q, want %q", body, got, want)
		}
	}
}

// The time the caller spends with an event (writing it to a reader that
// pauses) is not the server's silence: only the wait in Next counts.
func TestIdleTimeoutCountsOnlyTheWaitForTheServer(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		for range 3 {
			io.WriteString(w, "data: x\n\n")
			w.(http.Flusher).Flush()
			time.Sleep(20 * time.Millisecond) // each event its own read
		}
		<-r.Context().Done()
	}))
	defer srv.Close()
	c, req := testClient(srv.URL, Options{IdleTimeout: 100 * time.Millisecond})
	s, err := c.Open(context.Background(), req, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	for i := range 3 {
		if _, err := s.Next(); err != nil {
			t.Fatalf("event %d: %v (the caller's own pause counted as the server's silence)", i, err)
		}
		time.Sleep(300 * time.Millisecond) // the caller is busy, three times the timeout
	}
	if _, err := s.Next(); err == nil || !strings.Contains(err.Error(), "timed out") {
		t.Fatalf("after the server's own silence: %v", err)
	}
}
