package wire

import (
	"bytes"
	"context"
	"errors"
	"net/http"
	"net/url"
	"strings"

	"trail/core/errs"
	"trail/core/provider"
	"trail/store"
)

// Setup builds what every HTTP provider derives from its configuration:
// the URL it posts to and a client whose idle timeout and retries come
// from cfg (opts supplies the rest, e.g. a shorter backoff in tests).
func Setup(name string, cfg provider.Config, opts Options, defaultBase, path string) (string, *Client, error) {
	applyNetworkEnv(cfg.NetworkEnv)
	secrets := []string{cfg.APIKey}
	for _, h := range cfg.Headers {
		secrets = append(secrets, h[1]) // a gateway's key, as likely as not
	}
	endpoint, err := Endpoint(cfg.BaseURL, defaultBase, path, secrets)
	if err != nil {
		return "", nil, err
	}
	if st, ok := defaultHTTP.Get().Transport.(*splitTransport); ok && opts.HTTP == nil && strings.HasPrefix(endpoint, "https:") {
		// the TLS additions this provider needs: a bad file is a usage
		// error now, not a failed request retried
		if err := st.prepare(); err != nil {
			var se *setupError
			if errors.As(err, &se) {
				return "", nil, errs.Usagef(se.fix, "%s", se.Error())
			}
			return "", nil, err
		}
	}
	if cfg.Timeout > 0 {
		opts.IdleTimeout = cfg.Timeout
	}
	opts.MaxRetries = cfg.MaxRetries
	return endpoint, NewClient(name, secrets, opts), nil
}

// Endpoint is base (defaultBase when empty) with path added to its path.
// The query survives: proxies that want ?api-version=… keep it, where
// appending to the string would bury the path inside the query. A base
// that is not an http(s) URL with a host is a usage error: a missing
// scheme ("localhost:11434/v1") would otherwise fail as a connection
// error, retried for seconds, with no word about what is wrong.
func Endpoint(base, defaultBase, path string, secrets []string) (string, error) {
	if base == "" {
		base = defaultBase
	}
	u, err := url.Parse(base)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return "", errs.Usagef("give the scheme and the host, e.g. --base-url http://localhost:11434/v1",
			"base URL %s is not an http:// or https:// URL", store.QuoteInput(Scrub(base, secrets)))
	}
	return u.JoinPath(path).String(), nil
}

// Post returns the request builder Client.Open wants: body POSTed to url
// as JSON, asking for an event stream, with header's fields added (the
// provider's authentication and version headers).
func Post(url string, body []byte, header http.Header) func(context.Context) (*http.Request, error) {
	return func(ctx context.Context) (*http.Request, error) {
		r, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(body))
		if err != nil {
			return nil, err
		}
		r.Header.Set("Content-Type", "application/json")
		r.Header.Set("Accept", "text/event-stream")
		for k, v := range header {
			r.Header[k] = v
		}
		return r, nil
	}
}

// shownURL is u as an error message shows it: without the user info and
// the query, where proxies carry credentials trail cannot recognise.
func shownURL(u *url.URL) string {
	c := *u
	c.User, c.RawQuery, c.ForceQuery = nil, "", false
	return c.String()
}
