package main_test

import (
	"compress/gzip"
	"io"
	"net/http"
	"strings"
	"testing"

	"trail/core/provider/wire/wiretest"
)

// What gateways and relays do to a stream on its way: a byte order mark
// before the first event, gzip though trail asked for the answer as is.
// The answer must come through whole all the same.
func TestGatewayQuirksLoseNoText(t *testing.T) {
	t.Parallel()
	grok := wiretest.Transcript(t, "gateways/xai_grok_stream.sse")
	bom := append([]string{"\ufeff" + grok[0]}, grok[1:]...)
	text := wiretest.Transcript(t, "openai/text.sse")
	gzipped := func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		w.Header().Set("Content-Encoding", "gzip")
		zw := gzip.NewWriter(w)
		for _, ev := range text {
			io.WriteString(zw, ev)
			zw.Flush()
			w.(http.Flusher).Flush()
		}
		zw.Close()
	}
	plain := wiretest.NewServer(t, wiretest.Replay(text))
	e := openaiEnv(t)
	want := e.must("", "run", "--provider", "openai", "--base-url", plain.URL, "-m", "gpt-4o-mini", "hi").stdout

	srv := wiretest.NewServer(t, wiretest.Replay(bom), gzipped)
	r := e.run("", "run", "--provider", "openai", "--base-url", srv.URL, "-m", "grok-beta", "hi")
	if r.code != 1 || !strings.HasPrefix(r.stdout, "Coca-Cola is") {
		t.Errorf("a BOM before the stream: exit %d, stdout %.40q (want exit 1 for the length stop, and the first chunk's text)\n%s", r.code, r.stdout, r.stderr)
	}
	if !strings.Contains(r.stderr, "the server ended the answer at its own output limit") {
		t.Errorf("a length stop with no cap sent: %s", r.stderr)
	}
	r = e.run("", "run", "--provider", "openai", "--base-url", srv.URL, "-m", "gpt-4o-mini", "hi")
	if r.code != 0 || r.stdout != want || want == "" {
		t.Errorf("a gzipped stream: exit %d, stdout %q, want %q\n%s", r.code, r.stdout, want, r.stderr)
	}
	if got := srv.Header(1).Get("Accept-Encoding"); got != "identity" {
		t.Errorf("Accept-Encoding %q, want identity", got)
	}
}
