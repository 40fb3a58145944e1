package wire

import (
	"compress/gzip"
	"fmt"
	"io"
	"net/http"
	"strings"
)

// decodeBody undoes a Content-Encoding the server applied though trail
// asked for none: relays and web frameworks gzip event streams and error
// pages on their own. Left as is, the stream would read as no events at
// all and an error page as binary. gzip (and x-gzip) is decoded as it
// streams; an encoding trail cannot read is an error naming it.
func decodeBody(resp *http.Response) error {
	enc := strings.ToLower(strings.TrimSpace(resp.Header.Get("Content-Encoding")))
	switch enc {
	case "", "identity":
		return nil
	case "gzip", "x-gzip":
		zr, err := gzip.NewReader(resp.Body)
		if err != nil {
			return fmt.Errorf("the answer is marked gzip-compressed but does not decompress: %v", err)
		}
		resp.Body = gzipBody{zr, resp.Body}
		resp.Header.Del("Content-Encoding")
		return nil
	}
	return fmt.Errorf("the answer is compressed with %q, which trail did not ask for and cannot read", enc)
}

// gzipBody reads the decompressed stream and closes the connection's body.
type gzipBody struct {
	*gzip.Reader
	body io.Closer
}

func (g gzipBody) Close() error {
	_ = g.Reader.Close()
	return g.body.Close()
}
