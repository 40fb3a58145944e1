package wire

import (
	"compress/gzip"
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"trail/core/errs"
)

// A relay that gzips the event stream, flushing each event as SSE
// servers do, though trail asked for the answer as is: the events come
// through one by one. An error page gzipped the same way reads as text.
func TestAGzippedAnswerIsDecoded(t *testing.T) {
	var asked []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		asked = append(asked, r.Header.Get("Accept-Encoding"))
		w.Header().Set("Content-Encoding", "gzip")
		if strings.HasSuffix(r.URL.Path, "/fail") {
			w.WriteHeader(500)
			zw := gzip.NewWriter(w)
			io.WriteString(zw, `{"error":{"message":"the upstream is down","type":"server_error"}}`)
			zw.Close()
			return
		}
		w.Header().Set("Content-Type", "text/event-stream")
		zw := gzip.NewWriter(w)
		for _, ev := range []string{"data: one\n\n", "data: two\n\n"} {
			io.WriteString(zw, ev)
			zw.Flush()
			w.(http.Flusher).Flush()
		}
		zw.Close()
	}))
	defer srv.Close()
	c, req := testClient(srv.URL, Options{})
	s, err := c.Open(context.Background(), req, nil)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for {
		ev, err := s.Next()
		if err != nil {
			if !errors.Is(err, io.EOF) {
				t.Fatal(err)
			}
			break
		}
		got = append(got, string(ev.Data))
	}
	s.Close()
	if strings.Join(got, ",") != "one,two" {
		t.Errorf("events %q", got)
	}
	c, _ = testClient(srv.URL, Options{})
	_, err = c.Open(context.Background(), func(ctx context.Context) (*http.Request, error) {
		return http.NewRequestWithContext(ctx, "POST", srv.URL+"/v1/fail", strings.NewReader("{}"))
	}, nil)
	var pe *errs.ProviderError
	if !errors.As(err, &pe) || pe.Status != 500 || !strings.Contains(pe.Message, "the upstream is down") {
		t.Errorf("a gzipped error page: %v", err)
	}
	for _, a := range asked {
		if a != "identity" {
			t.Errorf("Accept-Encoding %q, want identity", a)
		}
	}
}

func TestAnEncodingTrailCannotReadIsNamed(t *testing.T) {
	for enc, want := range map[string]string{
		"br":   `compressed with "br", which trail did not ask for and cannot read`,
		"gzip": "marked gzip-compressed but does not decompress",
	} {
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Encoding", enc)
			w.Header().Set("Content-Type", "text/event-stream")
			io.WriteString(w, "\x8b\x00\x01binary")
		}))
		c, req := testClient(srv.URL, Options{})
		_, err := c.Open(context.Background(), req, nil)
		var pe *errs.ProviderError
		if !errors.As(err, &pe) || !strings.Contains(pe.Message, want) || pe.Fix == "" {
			t.Errorf("%s: %v, want %q", enc, err, want)
		}
		srv.Close()
	}
}
