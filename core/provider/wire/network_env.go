package wire

import (
	"bytes"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"net/http"
	"os"
	"strings"
	"sync"

	"trail/core/errs"
	"trail/lazy"
	"trail/store"
)

// How trail reaches a provider through a company network, as Claude Code
// does (its network-config page, docs.claude.com/…/claude-code/network-config):
// the proxy variables (HTTPS_PROXY,
// HTTP_PROXY, NO_PROXY; Go reads them, and never proxies localhost), a
// NO_PROXY list separated by spaces as well as commas, extra certificate
// authorities in NODE_EXTRA_CA_CERTS (added to the system's; SSL_CERT_FILE
// and SSL_CERT_DIR replace them, as Go reads them), and any of these set
// in the settings' env block rather than the environment.

// applyNetworkEnv puts the settings' network variables (provider.Config's
// NetworkEnv) into the process's environment, where Go's proxy and
// certificate code read them, before the first request.
func applyNetworkEnv(set map[string]string) {
	for k, v := range set {
		// set holds only what the environment lacks (provider.Resolve)
		if os.Getenv(k) == "" {
			os.Setenv(k, v)
		}
	}
	// Go splits NO_PROXY at commas only; Claude Code's documented
	// "localhost 192.168.1.1 example.com" would be one entry that matches
	// nothing, and every request would go through the proxy.
	for _, k := range []string{"NO_PROXY", "no_proxy"} {
		if v := os.Getenv(k); strings.ContainsAny(v, " \t") {
			os.Setenv(k, noProxyList(v))
		}
	}
}

// noProxyList is a NO_PROXY value with its entries separated by commas.
func noProxyList(v string) string {
	return strings.Join(strings.FieldsFunc(v, func(r rune) bool { return r == ',' || r == ' ' || r == '\t' }), ",")
}

// httpSetup is the client every provider shares, or why it cannot be made.
type httpSetup struct {
	client *http.Client
	err    error
}

var defaultHTTP = lazy.Value[httpSetup]{New: newHTTP}

func newHTTP() httpSetup {
	t := http.DefaultTransport.(*http.Transport).Clone()
	// Compression is off: a gzip layer may hold back bytes a streamed
	// answer should show at once.
	t.DisableCompression = true
	extra := tlsExtras{caFile: os.Getenv("NODE_EXTRA_CA_CERTS"),
		certFile: os.Getenv("CLAUDE_CODE_CLIENT_CERT"), keyFile: os.Getenv("CLAUDE_CODE_CLIENT_KEY")}
	if extra == (tlsExtras{}) {
		return httpSetup{client: &http.Client{Transport: t, CheckRedirect: checkRedirect}}
	}
	if err := extra.check(); err != nil {
		return httpSetup{err: err}
	}
	return httpSetup{client: &http.Client{Transport: &splitTransport{plain: t, extra: extra}, CheckRedirect: checkRedirect}}
}

// tlsExtras are the company network's additions to TLS: authorities to
// trust besides the system's (NODE_EXTRA_CA_CERTS) and a client
// certificate (CLAUDE_CODE_CLIENT_CERT and CLAUDE_CODE_CLIENT_KEY).
type tlsExtras struct{ caFile, certFile, keyFile string }

// check finds, at once and cheaply, what would make every HTTPS request
// fail: a usage error before any request (exit 2), not a connection
// failure retried.
func (x tlsExtras) check() error {
	if x.caFile != "" && !isSystemBundle(x.caFile) {
		pem, err := os.ReadFile(x.caFile)
		if err != nil {
			return errs.Usagef(caFix, "NODE_EXTRA_CA_CERTS: %v", err)
		}
		if !bytes.Contains(pem, []byte("-----BEGIN CERTIFICATE-----")) {
			return errs.Usagef(caFix, "NODE_EXTRA_CA_CERTS: %s holds no certificate in PEM", store.QuoteInput(x.caFile))
		}
	}
	const fix = "CLAUDE_CODE_CLIENT_CERT and CLAUDE_CODE_CLIENT_KEY name the client certificate and its unencrypted private key, both PEM"
	switch {
	case x.certFile == "" && x.keyFile == "":
	case x.certFile == "":
		return errs.Usagef(fix, "CLAUDE_CODE_CLIENT_KEY is set without CLAUDE_CODE_CLIENT_CERT")
	case x.keyFile == "":
		return errs.Usagef(fix, "CLAUDE_CODE_CLIENT_CERT is set without CLAUDE_CODE_CLIENT_KEY")
	case os.Getenv("CLAUDE_CODE_CLIENT_KEY_PASSPHRASE") != "":
		// Go reads no encrypted PKCS#8 key
		return errs.Usagef("decrypt the key once (openssl pkey -in key.pem -out key-plain.pem, kept private) and point CLAUDE_CODE_CLIENT_KEY at it",
			"a client key encrypted with a passphrase (CLAUDE_CODE_CLIENT_KEY_PASSPHRASE) is not supported")
	}
	return nil
}

const caFix = "NODE_EXTRA_CA_CERTS names a file of CA certificates in PEM (-----BEGIN CERTIFICATE-----); fix the path or unset it"

// splitTransport sends http:// requests as they are, and builds the TLS
// additions on the first https:// one: the system's authorities and a
// bundle parsed cost about 20 ms and a thousand page faults, which a step
// against a local server (http://localhost) must not pay, nor any step of
// a machine whose NODE_EXTRA_CA_CERTS is the system bundle itself.
type splitTransport struct {
	plain *http.Transport
	extra tlsExtras
	once  sync.Once
	tls   *http.Transport
	err   error
}

func (s *splitTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	if r.URL.Scheme != "https" {
		return s.plain.RoundTrip(r)
	}
	s.once.Do(func() {
		var cfg tls.Config
		if s.extra.caFile != "" && !isSystemBundle(s.extra.caFile) {
			if cfg.RootCAs, s.err = extraRoots(s.extra.caFile); s.err != nil {
				return
			}
		}
		if s.extra.certFile != "" {
			c, err := tls.LoadX509KeyPair(s.extra.certFile, s.extra.keyFile)
			if err != nil {
				s.err = &setupError{fmt.Errorf("client certificate: %w", err),
					"CLAUDE_CODE_CLIENT_CERT and CLAUDE_CODE_CLIENT_KEY name the client certificate and its unencrypted private key, both PEM"}
				return
			}
			cfg.Certificates = []tls.Certificate{c}
		}
		s.tls = s.plain.Clone()
		s.tls.TLSClientConfig = &cfg
	})
	if s.err != nil {
		if r.Body != nil {
			r.Body.Close()
		}
		return nil, s.err
	}
	return s.tls.RoundTrip(r)
}

// setupError is a TLS addition that could not be made: not retried.
type setupError struct {
	err error
	fix string
}

func (e *setupError) Error() string { return e.err.Error() }
func (e *setupError) Unwrap() error { return e.err }

// systemBundles are the files Go reads the system's authorities from on
// Linux when SSL_CERT_FILE names none (crypto/x509's root_linux.go).
var systemBundles = []string{
	"/etc/ssl/certs/ca-certificates.crt",
	"/etc/pki/tls/certs/ca-bundle.crt",
	"/etc/ssl/ca-bundle.pem",
	"/etc/pki/tls/cacert.pem",
	"/etc/pki/ca-trust/extracted/pem/tls-ca-bundle.pem",
	"/etc/ssl/cert.pem",
}

// isSystemBundle reports whether file is the bundle Go takes the system's
// authorities from already: adding it again adds nothing.
func isSystemBundle(file string) bool {
	if f := os.Getenv("SSL_CERT_FILE"); f != "" {
		return store.SameFile(file, f)
	}
	for _, b := range systemBundles {
		if _, err := os.Stat(b); err == nil {
			return store.SameFile(file, b)
		}
	}
	return false
}

// CheckCAFile says what is wrong with a NODE_EXTRA_CA_CERTS file, as a
// step would refuse it (trail config --check); nil when it holds a
// certificate.
func CheckCAFile(file string) error {
	pem, err := os.ReadFile(file)
	if err != nil {
		return err
	}
	if !x509.NewCertPool().AppendCertsFromPEM(pem) {
		return fmt.Errorf("%s holds no certificate in PEM", store.QuoteInput(file))
	}
	return nil
}

// extraRoots is the system's certificate authorities and those of file.
// A file that adds none is an error: Node warns and goes on, and the
// requests then fail with an unknown authority that no longer says why.
func extraRoots(file string) (*x509.CertPool, error) {
	pem, err := os.ReadFile(file)
	if err != nil {
		return nil, &setupError{fmt.Errorf("NODE_EXTRA_CA_CERTS: %w", err), caFix}
	}
	roots, err := x509.SystemCertPool()
	if err != nil || roots == nil {
		roots = x509.NewCertPool()
	}
	if !roots.AppendCertsFromPEM(pem) {
		return nil, &setupError{fmt.Errorf("NODE_EXTRA_CA_CERTS: %s holds no certificate in PEM", store.QuoteInput(file)), caFix}
	}
	return roots, nil
}

// tlsFix names the cure for a certificate this machine does not accept;
// "" for an error that is no certificate's.
func tlsFix(err error) string {
	var (
		unknown  x509.UnknownAuthorityError
		hostname x509.HostnameError
		invalid  x509.CertificateInvalidError
		record   tls.RecordHeaderError
	)
	switch {
	case errors.As(err, &unknown):
		return "the server's certificate is signed by an authority this machine does not trust; " +
			"for a company proxy or a server of your own, set NODE_EXTRA_CA_CERTS to its CA certificate (PEM, added to the system's)"
	case errors.As(err, &hostname):
		return fmt.Sprintf("the server's certificate is not for %s: check --base-url", hostname.Host)
	case errors.As(err, &invalid):
		return "the server's certificate is expired, not yet valid or not for serving: renew it, or check this machine's clock"
	case errors.As(err, &record):
		return "the server does not speak TLS: if it is plain HTTP, use http:// in --base-url"
	case strings.Contains(err.Error(), "tls: certificate required"), strings.Contains(err.Error(), "tls: bad certificate") && os.Getenv("CLAUDE_CODE_CLIENT_CERT") == "":
		// the server's alert: it wants a client certificate (mutual TLS)
		return "the server asks for a client certificate: set CLAUDE_CODE_CLIENT_CERT and CLAUDE_CODE_CLIENT_KEY (PEM files)"
	}
	return ""
}
