package wire

import (
	"math/rand/v2"
	"net/http"
	"strconv"
	"strings"
	"time"

	"trail/core/provider"
)

// Defaults of Options (SPEC 4.1).
const (
	DefaultBaseDelay     = 500 * time.Millisecond
	DefaultMaxDelay      = 8 * time.Second
	DefaultMaxRetryAfter = 60 * time.Second
	DefaultIdleTimeout   = provider.DefaultTimeout
)

// RetryableStatus reports whether an HTTP status is worth another attempt:
// timeouts, conflicts, rate limits and every server error, as the OpenAI
// and Anthropic SDKs retry them (Anthropic's 529 "overloaded" and
// Cloudflare's 520 to 524 in front of most hosted APIs among them), but
// for the three no wait cures: 501 (the server does not do this at all),
// 505 (it refuses the HTTP version) and 511 (a captive portal wants a
// login first).
func RetryableStatus(code int) bool {
	switch code {
	case 408, 409, 429:
		return true
	case 501, 505, 511:
		return false
	}
	return code >= 500 && code <= 599
}

// backoff is the wait before retry number n (1-based): the server's
// retry-after when it gave a sensible one, else BaseDelay doubling up to
// MaxDelay, minus up to a quarter of jitter so clients that failed together
// do not come back together.
func (o *Options) backoff(n int, retryAfter time.Duration) time.Duration {
	if retryAfter > 0 && retryAfter <= o.MaxRetryAfter {
		return retryAfter
	}
	d := o.BaseDelay
	for i := 1; i < n && d < o.MaxDelay; i++ {
		d *= 2
	}
	d = min(d, o.MaxDelay)
	r := o.Rand
	if r == nil {
		r = rand.Float64
	}
	return d - time.Duration(float64(d)*0.25*r())
}

// maxServerWait bounds a retry-after so the conversion cannot overflow; a
// wait that long ends the call anyway (Client.Open).
const maxServerWait = 1e6 * time.Second

// retryAfter reads how long the server asked us to wait: retry-after-ms
// (OpenAI), then retry-after in seconds or as an HTTP date. Zero when absent
// or unreadable.
func retryAfter(h http.Header, now time.Time) time.Duration {
	if v := strings.TrimSpace(h.Get("Retry-After-Ms")); v != "" {
		if ms, err := strconv.ParseFloat(v, 64); err == nil && ms > 0 {
			return min(time.Duration(min(ms, 1e12)*float64(time.Millisecond)), maxServerWait)
		}
	}
	v := strings.TrimSpace(h.Get("Retry-After"))
	if v == "" {
		return 0
	}
	if s, err := strconv.ParseFloat(v, 64); err == nil {
		if !(s > 0) { // NaN too
			return 0
		}
		return min(time.Duration(min(s, 1e9)*float64(time.Second)), maxServerWait)
	}
	if t, err := http.ParseTime(v); err == nil {
		if d := t.Sub(now); d > 0 {
			return min(d, maxServerWait)
		}
	}
	return 0
}
