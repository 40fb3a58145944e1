package wire

import (
	"bytes"
	"fmt"
	"io"
	"mime"
	"net/http"

	"github.com/tidwall/gjson"

	"trail/core/errs"
)

// A 2xx response labelled application/json is not always one JSON body.
// Microsoft's Foundry Local streams its events under that label, so the
// body's first bytes decide, not the label: JSON begins with '{' or '['
// (after a byte order mark and white space); anything else is read as an
// event stream, as a body under any other label is. A JSON body is
// either the provider's whole answer from a server that ignored
// "stream": true (Client.Whole says so), an error, or neither; only a
// body that parses is called JSON.

// maxWholeBody caps the whole answer of a server that does not stream.
const maxWholeBody = 64 << 20

// maxSniff bounds the white space read before a body shows what it is.
const maxSniff = 64 << 10

// labelledJSON reports whether a response says its body is JSON.
func labelledJSON(h http.Header) bool {
	ct, _, _ := mime.ParseMediaType(h.Get("Content-Type"))
	return ct == "application/json"
}

// sniff reads the start of body until its first significant byte shows
// whether it is JSON. head is what it read, to be read again.
func sniff(body io.Reader) (head []byte, isJSON bool, err error) {
	buf := make([]byte, 512)
	for len(head) < maxSniff {
		n, err := body.Read(buf)
		head = append(head, buf[:n]...)
		rest := bytes.TrimLeft(bytes.TrimPrefix(bytes.TrimLeft(head, " \t\r\n"), []byte("\uFEFF")), " \t\r\n")
		if len(rest) > 0 {
			return head, rest[0] == '{' || rest[0] == '[', nil
		}
		if err != nil {
			return head, false, err
		}
	}
	return head, false, nil
}

// replayed reads head again, then the rest of the body.
type replayed struct {
	io.Reader
	io.Closer
}

// jsonBody reads a body labelled JSON that begins like JSON: the
// provider's whole answer, or the attempt's error.
func (c *Client) jsonBody(status int, body []byte) ([]byte, error) {
	fix := "point --base-url at a server that streams (server-sent events)"
	fail := func(msg string) error {
		return &errs.ProviderError{Provider: c.Provider, Status: status, Message: c.scrub(msg), Fix: fix}
	}
	switch {
	case len(body) > maxWholeBody:
		return nil, fail(fmt.Sprintf("the server answered with JSON larger than %d MiB instead of an event stream", maxWholeBody>>20))
	case !gjson.ValidBytes(body):
		return nil, fail("the server answered with a body labelled JSON that is neither JSON nor an event stream: " + Snippet(c.scrubBytes(body)))
	case c.Whole != nil && c.Whole(body):
		return body, nil
	}
	shown := c.scrubBytes(body)
	msg := ErrorMessage(shown)
	if msg == "" {
		return nil, fail("the server answered with JSON instead of an event stream: " + Snippet(shown))
	}
	if c.Hint != nil {
		// An error where the stream should be: LM Studio's answer to a
		// path it does not serve is a 200, and the URL is at fault.
		if h := c.Hint(status, shown); h != "" {
			fix = h
		}
	}
	return nil, fail(msg)
}

// Whole is the complete JSON answer of a server that ignored "stream":
// true (Client.Whole recognised it), nil for a stream. Next then ends at
// once: the provider reads the answer from this body instead.
func (s *Stream) Whole() []byte { return s.whole }

// errReader fails with the error that ended a sniff.
type errReader struct{ err error }

func (e errReader) Read([]byte) (int, error) { return 0, e.err }
