// Package wiretest replays recorded provider streams from a local server
// and records what a provider hands its sink, for provider and end-to-end
// tests. It listens on 127.0.0.1 only.
package wiretest

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"
)

// Transcript reads testdata/providers/<name> (e.g. "anthropic/text.sse")
// from the module root and splits it into events, each ending in a blank
// line. Some SDK fixture files end at their last event's data line, without
// the blank line a server sends after it: that event gets its blank line.
func Transcript(t testing.TB, name string) []string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(Root(), "testdata", "providers", name))
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, ev := range strings.SplitAfter(string(b), "\n\n") {
		if strings.TrimSpace(ev) != "" {
			out = append(out, ev)
		}
	}
	if n := len(out); n > 0 && !strings.HasSuffix(out[n-1], "\n\n") {
		out[n-1] = strings.TrimRight(out[n-1], "\n") + "\n\n"
	}
	return out
}

// Body reads testdata/providers/<name> as it is (error bodies).
func Body(t testing.TB, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(Root(), "testdata", "providers", name))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// Root is the module root.
func Root() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(file), "..", "..", "..", "..")
}

// Step answers one request.
type Step func(w http.ResponseWriter, r *http.Request)

// Server answers the i-th request with steps[i], repeating the last step
// when there are more requests than steps, and keeps every request.
type Server struct {
	*httptest.Server
	mu       sync.Mutex
	steps    []Step
	bodies   [][]byte
	headers  []http.Header
	requests int
}

// NewServer starts a server on 127.0.0.1; it is closed when t ends.
func NewServer(t testing.TB, steps ...Step) *Server {
	s := &Server{steps: steps}
	s.Server = httptest.NewServer(http.HandlerFunc(s.serve))
	t.Cleanup(s.Close)
	return s
}

func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	s.mu.Lock()
	i := s.requests
	s.requests++
	s.bodies = append(s.bodies, body)
	s.headers = append(s.headers, r.Header.Clone())
	step := s.steps[min(i, len(s.steps)-1)]
	s.mu.Unlock()
	step(w, r)
}

// Requests is how many requests arrived.
func (s *Server) Requests() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.requests
}

// Body is the i-th request's body.
func (s *Server) Body(i int) []byte {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.bodies[i]
}

// Header is the i-th request's headers.
func (s *Server) Header(i int) http.Header {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.headers[i]
}

// Replay streams events with a flush after each.
func Replay(events []string) Step {
	return func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		w.Header().Set("Cache-Control", "no-cache")
		w.WriteHeader(http.StatusOK)
		for _, ev := range events {
			if _, err := io.WriteString(w, ev); err != nil {
				return
			}
			w.(http.Flusher).Flush()
		}
	}
}

// Status answers with an error status and body; headers are name, value pairs.
func Status(code int, body string, headers ...string) Step {
	return func(w http.ResponseWriter, r *http.Request) {
		for i := 0; i+1 < len(headers); i += 2 {
			w.Header().Set(headers[i], headers[i+1])
		}
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(code)
		io.WriteString(w, body)
	}
}

// Cut streams the first n events, then drops the connection.
func Cut(events []string, n int) Step {
	return func(w http.ResponseWriter, r *http.Request) {
		Replay(events[:n])(w, r)
		if hj, ok := w.(http.Hijacker); ok {
			if conn, _, err := hj.Hijack(); err == nil {
				conn.Close()
			}
		}
	}
}

// Hold streams the first n events, then stays silent until the client
// goes away (or the test ends).
func Hold(events []string, n int) Step {
	return func(w http.ResponseWriter, r *http.Request) {
		Replay(events[:n])(w, r)
		select {
		case <-r.Context().Done():
		case <-time.After(time.Minute):
		}
	}
}

// Hang never answers.
func Hang() Step { return Hold(nil, 0) }

// Sink records what a provider reports.
type Sink struct {
	mu       sync.Mutex
	Text     []string
	Thinking []string
	Tools    []string // "index id name"
	Input    []string // "index piece", each ToolInputDelta
	Raw      []Raw
	Retries  []Retry
	// OnText, when set, runs after each text delta (e.g. to cancel).
	OnText func(string)
}

// Raw is one RawPayload call.
type Raw struct {
	Kind    string
	Payload any
}

// Retry is one Retry call.
type Retry struct {
	Attempt int
	Wait    time.Duration
	Reason  string
}

func (s *Sink) TextDelta(t string) {
	s.mu.Lock()
	s.Text = append(s.Text, t)
	f := s.OnText
	s.mu.Unlock()
	if f != nil {
		f(t)
	}
}

func (s *Sink) ThinkingDelta(t string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.Thinking = append(s.Thinking, t)
}

func (s *Sink) ToolCallStarted(index int, id, name string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.Tools = append(s.Tools, strings.Join([]string{itoa(index), id, name}, " "))
}

func (s *Sink) ToolInputDelta(index int, piece string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.Input = append(s.Input, itoa(index)+" "+piece)
}

func (s *Sink) RawPayload(kind string, payload any) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.Raw = append(s.Raw, Raw{kind, payload})
}

func (s *Sink) Retry(attempt int, wait time.Duration, reason error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.Retries = append(s.Retries, Retry{attempt, wait, reason.Error()})
}

// Kinds counts the raw payloads by kind.
func (s *Sink) Kinds() map[string]int {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := map[string]int{}
	for _, r := range s.Raw {
		out[r.Kind]++
	}
	return out
}

// RawJSON is every raw payload encoded, for tests that look inside.
func (s *Sink) RawJSON(t testing.TB) []string {
	t.Helper()
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]string, len(s.Raw))
	for i, r := range s.Raw {
		b, err := json.Marshal(r.Payload)
		if err != nil {
			t.Fatalf("raw payload %d does not encode: %v", i, err)
		}
		out[i] = string(b)
	}
	return out
}

// Compact is b without insignificant whitespace, for comparing bodies.
func Compact(t testing.TB, b []byte) string {
	t.Helper()
	var out bytes.Buffer
	if err := json.Compact(&out, b); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, b)
	}
	return out.String()
}

func itoa(i int) string {
	b, _ := json.Marshal(i)
	return string(b)
}
