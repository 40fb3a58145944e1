package wire

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"sync/atomic"
	"testing"

	"trail/core/errs"
	"trail/core/provider/wire/wiretest"
)

// Cloudflare, in front of most hosted APIs, answers its own 520 to 524
// when the origin fails or is slow: the next attempt often passes, and the
// vendors' SDKs retry every 5xx. 501, 505 and 511 no wait cures.
func TestEveryServerErrorButTheHopelessOnesIsRetried(t *testing.T) {
	page := wiretest.Body(t, "gateways/RECONSTRUCTED_cloudflare_524.html")
	for _, tt := range []struct {
		status int
		calls  int32
	}{
		{520, 2}, {521, 2}, {522, 2}, {523, 2}, {524, 2}, {507, 2}, {599, 2},
		{501, 1}, {505, 1}, {511, 1}, {400, 1}, {404, 1},
	} {
		var calls atomic.Int32
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if calls.Add(1) == 1 {
				w.Header().Set("Content-Type", "text/html")
				w.WriteHeader(tt.status)
				io.WriteString(w, page)
				return
			}
			sse(w, "data: {}\n\n")
		}))
		c, req := testClient(srv.URL, Options{MaxRetries: 2})
		var log retryLog
		s, err := c.Open(context.Background(), req, log.retry)
		srv.Close()
		if calls.Load() != tt.calls {
			t.Errorf("%d: %d requests, want %d", tt.status, calls.Load(), tt.calls)
		}
		if tt.calls == 2 {
			if err != nil {
				t.Errorf("%d: %v", tt.status, err)
				continue
			}
			s.Close()
			if len(log.why) != 1 || log.why[0] != "acme: "+strconv.Itoa(tt.status)+" an HTML page: api.openai.com | 524: A timeout occurred" {
				t.Errorf("%d: retry reasons %q", tt.status, log.why)
			}
			continue
		}
		var pe *errs.ProviderError
		if !errors.As(err, &pe) || pe.Status != tt.status {
			t.Errorf("%d: err = %v", tt.status, err)
		}
	}
}
