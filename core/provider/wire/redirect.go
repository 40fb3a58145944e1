package wire

import (
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"
)

// A provider request carries the API key in a header (x-api-key, api-key,
// Authorization). Go's client follows a redirect to any host and keeps
// every header but Authorization and cookies there, so a base URL that
// redirects (a misconfigured gateway, a hijacked name) would hand the key
// to a server the user never named; and a 301, 302 or 303 turns the POST
// into a GET without its body. checkRedirect follows a redirect only when
// it keeps the request whole and the key on the server it was sent to:
// same method (307, 308), same host and port, same scheme or http to
// https. Anything else ends the attempt with the place it points at, for
// the user to name as the base URL if that is the server to use.
func checkRedirect(req *http.Request, via []*http.Request) error {
	first := via[0]
	if len(via) >= 10 {
		return &redirectError{from: first.URL, to: req.URL, status: redirectStatus(req), why: "stopped after 10 redirects", loop: true}
	}
	if req.Method != first.Method {
		return &redirectError{from: first.URL, to: req.URL, status: redirectStatus(req),
			why: "following it would send the request again as a " + req.Method + " without its body"}
	}
	if !sameServer(first.URL, req.URL) {
		return &redirectError{from: first.URL, to: req.URL, status: redirectStatus(req),
			why: "trail follows a redirect only to the same server: the request carries your API key"}
	}
	return nil
}

// sameServer reports whether to is the server from is, or its https form.
func sameServer(from, to *url.URL) bool {
	if !strings.EqualFold(from.Hostname(), to.Hostname()) {
		return false
	}
	switch {
	case from.Scheme == to.Scheme:
		return port(from) == port(to)
	case from.Scheme == "http" && to.Scheme == "https":
		return true // an upgrade: the key goes to the same host, encrypted
	}
	return false
}

func port(u *url.URL) string {
	if p := u.Port(); p != "" {
		return p
	}
	if u.Scheme == "https" {
		return "443"
	}
	return "80"
}

func redirectStatus(req *http.Request) string {
	if req.Response != nil {
		return req.Response.Status
	}
	return "a redirect"
}

// redirectError is a redirect not followed.
type redirectError struct {
	from, to *url.URL
	status   string
	why      string
	loop     bool // ten redirects on the same server
}

func (e *redirectError) Error() string {
	return fmt.Sprintf("%s answered %s to %s; not followed: %s", shownURL(e.from), e.status, shownURL(e.to), e.why)
}

// base is the base URL the redirect points at: its target less the path
// the request added to its base URL (the part both paths end with, as
// /v1/messages), so that a base URL of https://gw/api moved to
// https://gw2/anthropic is suggested as https://gw2/anthropic.
func (e *redirectError) base() string {
	from := strings.Split(strings.Trim(e.from.Path, "/"), "/")
	to := strings.Split(strings.Trim(e.to.Path, "/"), "/")
	n := 0
	for n < len(from) && n < len(to) && from[len(from)-1-n] == to[len(to)-1-n] && to[len(to)-1-n] != "" {
		n++
	}
	if n == 0 {
		return shownURL(e.to)
	}
	b := *e.to
	b.Path = "/" + strings.Join(to[:len(to)-n], "/")
	b.RawPath = ""
	return strings.TrimSuffix(shownURL(&b), "/")
}

// redirectFailure is the step's error for a redirect not followed: not
// retried, since the server would only answer the same.
func redirectFailure(err error) (*redirectError, bool) {
	var re *redirectError
	ok := errors.As(err, &re)
	return re, ok
}
