package provider

import (
	"strings"
)

// A base URL may carry a credential: a proxy's ?key=… (often the API key
// itself), a signed ?sig=…, or user:password@. The record keeps the URL with
// "[REDACTED]" in their place (redactURL); resume takes the same URL from
// the environment or the settings again when it redacts to the stored one,
// or else fills the API key in.

// minKeyInURL keeps a local server's dummy key ("x", "ollama") from being
// cut out of URLs that merely contain it.
const minKeyInURL = 16

// redactURL replaces the credentials in a base URL by "[REDACTED]": the API
// key wherever it appears (when long enough to be one), the password of
// user:password@, and the value of each query parameter whose name says it
// is a credential.
func redactURL(u, apiKey string) string {
	if len(apiKey) >= minKeyInURL {
		u = strings.ReplaceAll(u, apiKey, keyInURL)
	}
	if i := strings.Index(u, "://"); i >= 0 {
		host := u[i+3:]
		if end := strings.IndexAny(host, "/?#"); end >= 0 {
			host = host[:end]
		}
		if at := strings.LastIndexByte(host, '@'); at >= 0 {
			if colon := strings.IndexByte(host[:at], ':'); colon >= 0 && host[colon+1:at] != keyInURL {
				start := i + 3 + colon + 1
				u = u[:start] + keyInURL + u[i+3+at:]
			}
		}
	}
	q := strings.IndexByte(u, '?')
	if q < 0 {
		return u
	}
	query, frag := u[q+1:], ""
	if h := strings.IndexByte(query, '#'); h >= 0 {
		query, frag = query[:h], query[h:]
	}
	params := strings.Split(query, "&")
	for i, p := range params {
		if name, value, ok := strings.Cut(p, "="); ok && value != "" && credentialParam(name) {
			params[i] = name + "=" + keyInURL
		}
	}
	return u[:q+1] + strings.Join(params, "&") + frag
}

// credentialParam reports whether a query parameter's name says its value
// is a credential: key, api_key, token, access_token, sig, password, ...
func credentialParam(name string) bool {
	n := strings.NewReplacer("-", "", "_", "").Replace(strings.ToLower(name))
	switch n {
	case "key", "token", "auth", "authorization", "sig", "signature", "secret", "password", "pass", "pwd":
		return true
	}
	for _, suffix := range []string{"key", "token", "secret", "password"} {
		if strings.HasSuffix(n, suffix) {
			return true
		}
	}
	return false
}

// restoreURL undoes redactURL on resume: the first of candidates (the
// environment's and the settings' base URL) that redacts to the stored URL
// is the URL itself; else the API key fills every "[REDACTED]", as a proxy
// that takes the key in its URL wants. "" when neither can.
func restoreURL(stored, apiKey string, candidates ...string) string {
	for _, c := range candidates {
		if c != "" && redactURL(c, apiKey) == stored {
			return c
		}
	}
	if apiKey == "" {
		return ""
	}
	return strings.ReplaceAll(stored, keyInURL, apiKey)
}
