package wire

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"trail/core/provider/wire/wiretest"
)

// A body labelled application/json is what its first bytes say: an event
// stream (Foundry Local labels its streams so), the provider's whole
// answer, an error, or JSON of no known shape; only JSON is called JSON.
func TestABodyLabelledJSONIsWhatItsFirstBytesSay(t *testing.T) {
	text := strings.Join(wiretest.Transcript(t, "openai/text.sse"), "")
	whole := wiretest.Body(t, "openai/nonstream.json")
	tests := []struct {
		name      string
		body      string
		wantEvent string // the first event's data, for a stream
		wantWhole bool
		wantErr   string
	}{
		{name: "an event stream", body: text, wantEvent: `{"id":"chatcmpl-123"`},
		{name: "an event stream after a BOM and blank lines", body: "\ufeff\r\n\n" + text, wantEvent: `{"id":"chatcmpl-123"`},
		{name: "an event stream that begins with a comment", body: ": ok\n\n" + text, wantEvent: `{"id":"chatcmpl-123"`},
		{name: "an event stream that begins with event:", body: "event: message\n" + text, wantEvent: `{"id":"chatcmpl-123"`},
		{name: "the whole answer", body: whole, wantWhole: true},
		{name: "an error", body: wiretest.Body(t, "lmstudio/200_unexpected_endpoint.json"),
			wantErr: "acme: 200 Unexpected endpoint or method. (POST /chat/completions)"},
		{name: "JSON of no known shape", body: `{"ok": true}`,
			wantErr: `acme: 200 the server answered with JSON instead of an event stream: {"ok": true}`},
		{name: "JSON cut short", body: whole[:40],
			wantErr: `acme: 200 the server answered with a body labelled JSON that is neither JSON nor an event stream: { "id": "chatcmpl-123", "object": "c`},
		{name: "nothing at all", body: "",
			wantErr: "acme: connection to "},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Type", "application/json; charset=utf-8")
				for _, b := range []byte(tt.body) { // one byte a write: the label is judged on what came
					w.Write([]byte{b})
					w.(http.Flusher).Flush()
				}
			}))
			defer srv.Close()
			c, req := testClient(srv.URL, Options{})
			c.Whole = func(b []byte) bool { return strings.Contains(string(b), `"chat.completion"`) }
			s, err := c.Open(context.Background(), req, nil)
			if tt.wantErr != "" {
				if err == nil || !strings.HasPrefix(err.Error(), tt.wantErr) {
					t.Fatalf("err = %v, want %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			if tt.wantWhole {
				if string(s.Whole()) != whole {
					t.Errorf("Whole = %q", s.Whole())
				}
				if _, err := s.Next(); err != io.EOF {
					t.Errorf("Next after a whole answer: %v", err)
				}
				return
			}
			if s.Whole() != nil {
				t.Error("a stream taken for a whole answer")
			}
			ev, err := s.Next()
			if err != nil || !strings.HasPrefix(string(ev.Data), tt.wantEvent) {
				t.Errorf("first event %q, %v", ev.Data, err)
			}
		})
	}
}
