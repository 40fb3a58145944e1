package wiretest

import (
	"bytes"
	"io"
	"net/http"
)

// BodyTransport answers every request with status 200, an event-stream
// content type and body, without a network: for fuzzing what a provider
// makes of arbitrary bytes.
type BodyTransport []byte

func (b BodyTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	if r.Body != nil {
		io.Copy(io.Discard, r.Body)
		r.Body.Close()
	}
	return &http.Response{
		StatusCode: http.StatusOK,
		Header:     http.Header{"Content-Type": {"text/event-stream"}},
		Body:       io.NopCloser(bytes.NewReader(b)),
		Request:    r,
	}, nil
}
