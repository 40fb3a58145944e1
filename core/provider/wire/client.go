package wire

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"time"

	"trail/core/errs"
)

// Options tune a Client. Zero values mean the defaults.
type Options struct {
	HTTP          *http.Client
	MaxRetries    int           // retries after the first attempt
	BaseDelay     time.Duration // first backoff (0.5 s)
	MaxDelay      time.Duration // backoff cap (8 s)
	MaxRetryAfter time.Duration // longest retry-after honoured (60 s)
	IdleTimeout   time.Duration // longest silence from the server (120 s)
	Rand          func() float64
	Now           func() time.Time
}

func (o *Options) fill() {
	if o.HTTP == nil {
		// Shared by every provider, made on first use (a command that
		// calls no provider never builds it); timeouts come from the idle
		// timer, not from the client; redirects as checkRedirect says.
		o.HTTP = defaultHTTP.Get()
	}
	if o.BaseDelay <= 0 {
		o.BaseDelay = DefaultBaseDelay
	}
	if o.MaxDelay <= 0 {
		o.MaxDelay = DefaultMaxDelay
	}
	if o.MaxRetryAfter <= 0 {
		o.MaxRetryAfter = DefaultMaxRetryAfter
	}
	if o.IdleTimeout <= 0 {
		o.IdleTimeout = DefaultIdleTimeout
	}
	if o.MaxRetries < 0 {
		o.MaxRetries = 0
	}
	if o.Now == nil {
		o.Now = time.Now
	}
}

// Client sends one provider's streaming requests.
type Client struct {
	Provider string   // names the provider in errors
	Secrets  []string // scrubbed from every error message
	Opts     Options
	// Message reads the provider's own error message from an error body;
	// nil or "" falls back to ErrorMessage, then to the body itself.
	Message func(body []byte) string
	// Hint suggests the fix for a failed status and its (scrubbed) body,
	// "" for none; also for a 2xx JSON body that reports an error in
	// place of a stream.
	Hint func(status int, body []byte) string
	// Whole reports whether a JSON body, in place of the stream, is the
	// provider's complete answer (a server that ignored "stream": true):
	// Open then returns a Stream whose Whole is the body. nil: never.
	Whole func(body []byte) bool
	// Final reads an error response the status alone would retry and says
	// whether waiting cannot help (a used-up quota, a spending cap), with
	// the hint that names the cause. nil: the status decides.
	Final func(status int, body []byte) (final bool, fix string)
	// Early reads the events a stream begins with, before its answer:
	// hold keeps the event (Anthropic's message_start, a ping) and looks
	// at the next; a status other than 0 says the event is an error that
	// status would have carried had the request not been streamed (an
	// overloaded_error is "what would normally be an HTTP 529"), and the
	// attempt fails as that status would: retried when it would be. The
	// held events, and the first that is neither, go to Next as they came.
	// nil: the answer begins with the first event.
	Early func(ev Event) (hold bool, status int)
}

// maxEarly bounds the events Early may hold.
const maxEarly = 8

// NewClient returns a client with opts' defaults filled in.
func NewClient(provider string, secrets []string, opts Options) *Client {
	opts.fill()
	return &Client{Provider: provider, Secrets: secrets, Opts: opts}
}

// errIdle is the cause of an attempt cancelled by the idle timer.
var errIdle = errors.New("idle timeout")

// maxErrorBody caps how much of an error response is read.
const maxErrorBody = 1 << 20

// Open sends the request newReq builds (once per attempt, bound to the
// attempt's context) and returns the stream once the first byte of a
// successful response has arrived. Failed attempts are retried as the
// package doc says; retry is told about each retry before its wait.
func (c *Client) Open(ctx context.Context, newReq func(context.Context) (*http.Request, error), retry func(attempt int, wait time.Duration, reason error)) (*Stream, error) {
	c.Opts.fill()
	for n := 0; ; n++ {
		s, after, err := c.attempt(ctx, newReq)
		if err == nil {
			return s, nil
		}
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		var pe *retryable
		if !errors.As(err, &pe) {
			return nil, err
		}
		// A server that asks for a longer pause than we will make is not
		// retried early (it would only refuse again): the step ends, saying
		// how long the server wants.
		if n >= c.Opts.MaxRetries || after > c.Opts.MaxRetryAfter {
			return nil, c.serverWait(pe.err, after, n < c.Opts.MaxRetries)
		}
		wait := c.Opts.backoff(n+1, after)
		if retry != nil {
			retry(n+1, wait, pe.err)
		}
		t := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			t.Stop()
			return nil, ctx.Err()
		case <-t.C:
		}
	}
}

// retryable marks an attempt's error as worth another attempt.
type retryable struct{ err *errs.ProviderError }

func (r *retryable) Error() string { return r.err.Error() }

func (c *Client) attempt(ctx context.Context, newReq func(context.Context) (*http.Request, error)) (*Stream, time.Duration, error) {
	actx, cancel := context.WithCancelCause(ctx)
	idle := c.Opts.IdleTimeout
	timer := time.AfterFunc(idle, func() { cancel(errIdle) })
	fail := func(err error) (*Stream, time.Duration, error) {
		timer.Stop()
		cancel(nil)
		return nil, 0, err
	}
	req, err := newReq(actx)
	if err != nil {
		return fail(&errs.ProviderError{Provider: c.Provider, Message: c.scrub("build request: " + err.Error()), Err: err})
	}
	if req.Header.Get("Accept-Encoding") == "" {
		// Without the header any encoding is acceptable (RFC 9110), and a
		// relay may compress; say plainly that the answer comes as is.
		req.Header.Set("Accept-Encoding", "identity")
	}
	resp, err := c.Opts.HTTP.Do(req)
	if err != nil {
		return fail(c.transportError(ctx, actx, err, req.URL))
	}
	if err := decodeBody(resp); err != nil {
		resp.Body.Close()
		return fail(&errs.ProviderError{Provider: c.Provider, Status: resp.StatusCode, Message: err.Error(),
			Fix: "the server or a proxy before it compresses answers; have it send them uncompressed"})
	}
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		body, _ := io.ReadAll(io.LimitReader(resp.Body, maxErrorBody))
		resp.Body.Close()
		after := retryAfter(resp.Header, c.Opts.Now())
		pe := c.statusError(resp.StatusCode, body)
		timer.Stop()
		cancel(nil)
		if c.shouldRetry(resp.StatusCode, resp.Header, body, pe) {
			return nil, after, &retryable{pe}
		}
		return nil, 0, pe
	}
	var body io.ReadCloser = resp.Body
	if labelledJSON(resp.Header) {
		timer.Reset(idle) // the headers came: the body's wait starts now
		head, isJSON, err := sniff(resp.Body)
		if isJSON {
			all, err := io.ReadAll(io.LimitReader(io.MultiReader(bytes.NewReader(head), resp.Body), maxWholeBody+1))
			resp.Body.Close()
			if err != nil {
				return fail(c.transportError(ctx, actx, err, req.URL))
			}
			whole, err := c.jsonBody(resp.StatusCode, all)
			if err != nil {
				return fail(err)
			}
			timer.Stop()
			return &Stream{body: resp.Body, timer: timer, ctx: ctx, actx: actx, cancel: cancel, c: c, whole: whole}, 0, nil
		}
		// An event stream labelled JSON (Foundry Local): read as one,
		// from its first byte; a read error there comes back in its turn.
		var rest io.Reader = resp.Body
		if err != nil {
			rest = errReader{err}
		}
		body = replayed{io.MultiReader(bytes.NewReader(head), rest), resp.Body}
	}
	s := &Stream{
		sse: NewReader(body), body: body, timer: timer, idle: idle,
		ctx: ctx, actx: actx, cancel: cancel, c: c,
	}
	// Every line restarts the wait, keep-alive comments included
	// (OpenRouter's ": OPENROUTER PROCESSING", as Anthropic's pings): a
	// server that sends them is at work.
	s.sse.OnLine = func() { timer.Reset(idle) }
	if err := s.sse.Prime(); err != nil {
		if errors.Is(err, io.EOF) {
			err = errors.New("the server closed the connection before the answer began")
		}
		err = c.transportError(ctx, actx, err, req.URL)
		s.Close()
		return nil, 0, err
	}
	if c.Early != nil {
		if err := s.readEarly(); err != nil {
			s.Close()
			return nil, 0, err
		}
	}
	timer.Reset(idle)
	return s, 0, nil
}

// readEarly holds the events before the answer (Client.Early), or fails
// the attempt on an error event there as its status would.
func (s *Stream) readEarly() error {
	for range maxEarly {
		ev, err := s.sse.Next()
		if err != nil {
			s.earlyErr = err // Next reports it in its turn
			return nil
		}
		hold, status := s.c.Early(ev)
		if status != 0 {
			pe := s.c.statusError(status, ev.Data)
			if s.c.shouldRetry(status, http.Header{}, ev.Data, pe) {
				return &retryable{pe}
			}
			return pe
		}
		s.held = append(s.held, ev)
		if !hold {
			return nil
		}
	}
	return nil
}

// shouldRetry decides whether a failed status is worth another attempt,
// as the vendors' own SDKs do, with one exception: the provider's Final
// (a quota or spending cap: waiting cannot help, whatever the headers
// say) comes first; then the server's x-should-retry header ("true" or
// "false"); then the status (RetryableStatus). Final's hint replaces the
// status's.
func (c *Client) shouldRetry(status int, h http.Header, body []byte, pe *errs.ProviderError) bool {
	if c.Final != nil {
		final, fix := c.Final(status, c.scrubBytes(body))
		if fix != "" {
			pe.Fix = fix
		}
		if final {
			return false
		}
	}
	switch strings.ToLower(strings.TrimSpace(h.Get("X-Should-Retry"))) {
	case "true":
		return true
	case "false":
		return false
	}
	return RetryableStatus(status)
}

// transportError classifies a failure before the response began: the
// caller's cancel, the idle timer, a redirect not followed or a refused
// certificate (not retried), or a connection failure (retried).
func (c *Client) transportError(ctx, actx context.Context, err error, u *url.URL) error {
	if ctx.Err() != nil {
		return ctx.Err()
	}
	if errors.Is(context.Cause(actx), errIdle) {
		return c.idleError()
	}
	var ue *url.Error
	if errors.As(err, &ue) {
		err = ue.Err
	}
	if re, ok := redirectFailure(err); ok {
		fix := "if that is the server to use, make it the base URL: --base-url " + re.base() + " (or the baseUrl setting)"
		if re.loop {
			fix = "the server redirects in a loop: check --base-url"
		}
		return &errs.ProviderError{Provider: c.Provider, Message: c.scrub(re.Error()), Err: err, Fix: fix}
	}
	var se *setupError
	if errors.As(err, &se) {
		return &errs.ProviderError{Provider: c.Provider, Message: c.scrub(se.Error()), Err: err, Fix: se.fix}
	}
	if fix := tlsFix(err); fix != "" {
		// A certificate is refused the same way on every try.
		return &errs.ProviderError{Provider: c.Provider, Message: c.scrub(fmt.Sprintf("connection to %s failed: %v", shownURL(u), err)), Err: err, Fix: fix}
	}
	msg := "connection failed: " + err.Error()
	if u != nil {
		msg = fmt.Sprintf("connection to %s failed: %v", shownURL(u), err)
	}
	pe := &errs.ProviderError{Provider: c.Provider, Message: c.scrub(msg), Err: err}
	var op *net.OpError
	switch {
	case errors.As(err, &op) && op.Op == "dial":
		pe.Fix = "is the server running? check --base-url"
	case errors.As(err, &op) && op.Op == "proxyconnect":
		pe.Fix = "is the proxy running? check HTTPS_PROXY (HTTP_PROXY for http://), or NO_PROXY to reach the server directly"
	}
	return &retryable{pe}
}

func (c *Client) idleError() *errs.ProviderError {
	return &errs.ProviderError{
		Provider: c.Provider,
		Message:  fmt.Sprintf("timed out: no data from the server for %s", c.Opts.IdleTimeout),
		Fix:      "raise --timeout, or check the server",
		Err:      context.DeadlineExceeded,
	}
}

func (c *Client) statusError(status int, body []byte) *errs.ProviderError {
	body = c.scrubBytes(body)
	msg := ""
	if c.Message != nil {
		msg = c.Message(body)
	}
	if msg == "" {
		msg = ErrorMessage(body)
	}
	if msg == "" {
		msg = BodyText(body)
	}
	if msg == "" {
		msg = strings.ToLower(http.StatusText(status))
	}
	pe := &errs.ProviderError{Provider: c.Provider, Status: status, Message: msg, Type: ErrorType(body)}
	if c.Hint != nil {
		pe.Fix = c.Hint(status, body)
	}
	markContextFull(pe, body)
	return pe
}

// serverWait adds the server's retry-after, when it gave one, to the error
// that ends the call: "429 rate_limit_error: the server asks to wait 100 s:
// <its message>". tooLong says retries were left but the wait is more than
// MaxRetryAfter.
func (c *Client) serverWait(pe *errs.ProviderError, after time.Duration, tooLong bool) *errs.ProviderError {
	if after <= 0 {
		return pe
	}
	out := *pe
	asks := "the server asks to wait " + Seconds(after)
	if rest, ok := strings.CutPrefix(pe.Message, pe.Type+": "); ok && pe.Type != "" {
		out.Message = pe.Type + ": " + asks + ": " + rest
	} else {
		out.Message = asks + ": " + pe.Message
	}
	if tooLong {
		out.Fix = fmt.Sprintf("trail waits at most %s for a retry: resume the session once the wait is over", Seconds(c.Opts.MaxRetryAfter))
	}
	return &out
}

// Seconds shows a wait as people read it: "100 s", "2.5 s", "0.25 s".
func Seconds(d time.Duration) string {
	switch {
	case d%time.Second == 0:
		return fmt.Sprintf("%d s", d/time.Second)
	case d < time.Second:
		return fmt.Sprintf("%.2g s", d.Seconds())
	}
	return fmt.Sprintf("%.1f s", d.Seconds())
}

func (c *Client) scrub(s string) string { return Scrub(s, c.Secrets) }

// scrubBytes scrubs a body before any of it is quoted: a message cut short
// could otherwise keep the first half of a key.
func (c *Client) scrubBytes(b []byte) []byte { return []byte(c.scrub(string(b))) }

// Stream is a successful response being read event by event.
type Stream struct {
	sse    *Reader
	body   io.ReadCloser
	timer  *time.Timer
	idle   time.Duration
	ctx    context.Context // the caller's
	actx   context.Context // this attempt's: cancelled by the idle timer
	cancel context.CancelCauseFunc
	c      *Client
	// held are the events readEarly read, and earlyErr the end it met,
	// handed out by Next before anything else.
	held     []Event
	earlyErr error
	whole    []byte // the answer of a server that did not stream (Whole)
}

// Next returns the next event. The idle timer runs only while Next waits
// for the server: the time the caller spends with an event (writing it to
// a reader that pauses, running a hook) is not the server's silence. At
// the end it returns io.EOF (the response ended, perhaps inside an event,
// which is then lost: the provider knows whether the answer was whole),
// the caller's context error, or a *errs.ProviderError (timeout,
// connection lost).
func (s *Stream) Next() (Event, error) {
	if s.whole != nil {
		return Event{}, io.EOF
	}
	if len(s.held) > 0 {
		ev := s.held[0]
		s.held = s.held[1:]
		return ev, nil
	}
	var ev Event
	err := s.earlyErr
	if err != nil {
		s.earlyErr = nil
	} else {
		s.timer.Reset(s.idle)
		if ev, err = s.sse.Next(); err == nil {
			s.timer.Stop()
			return ev, nil
		}
	}
	if err == io.EOF || errors.Is(err, ErrIncomplete) {
		return ev, io.EOF
	}
	if s.ctx.Err() != nil {
		return ev, s.ctx.Err()
	}
	if errors.Is(context.Cause(s.actx), errIdle) {
		return ev, s.c.idleError()
	}
	return ev, &errs.ProviderError{Provider: s.c.Provider, Message: s.c.scrub("connection lost mid-stream: " + err.Error()), Err: err}
}

// Malformed is the error for a stream event that cannot be understood.
func (s *Stream) Malformed(what string, data []byte) error {
	return &errs.ProviderError{Provider: s.c.Provider, Message: s.c.scrub("malformed stream event: " + what + ": " + Snippet(s.c.scrubBytes(data)))}
}

// Reported is the error for a failure the provider reported inside the
// stream (an error event or object): its own message, else the event.
func (s *Stream) Reported(event []byte) error {
	event = s.c.scrubBytes(event)
	msg := ErrorMessage(event)
	if msg == "" {
		msg = Snippet(event)
	}
	pe := &errs.ProviderError{Provider: s.c.Provider, Message: s.c.scrub(msg)}
	markContextFull(pe, event)
	return pe
}

// Fail is the error for a provider that reported a failure inside the stream.
func (s *Stream) Fail(msg string) error {
	return &errs.ProviderError{Provider: s.c.Provider, Message: s.c.scrub(msg)}
}

// Close releases the connection and stops the idle timer.
func (s *Stream) Close() {
	s.timer.Stop()
	s.cancel(nil)
	s.body.Close()
}
