package wire

import (
	"bytes"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"strings"
	"sync"

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

// defaultHTTP is the client every provider shares.
var defaultHTTP = lazy.Value[*http.Client]{New: newHTTP}

func newHTTP() *http.Client {
	t := http.DefaultTransport.(*http.Transport).Clone()
	// Compression is off: a gzip layer may hold back bytes a streamed
	// answer should show at once.
	t.DisableCompression = true
	extra := tlsExtras{caFile: os.Getenv("NODE_EXTRA_CA_CERTS"),
		certFile: os.Getenv("CLAUDE_CODE_CLIENT_CERT"), keyFile: os.Getenv("CLAUDE_CODE_CLIENT_KEY")}
	if extra == (tlsExtras{}) {
		return &http.Client{Transport: t, CheckRedirect: checkRedirect}
	}
	return &http.Client{Transport: &splitTransport{plain: t, extra: extra}, CheckRedirect: checkRedirect}
}

// tlsExtras are the company network's additions to TLS: authorities to
// trust besides the system's (NODE_EXTRA_CA_CERTS) and a client
// certificate (CLAUDE_CODE_CLIENT_CERT and CLAUDE_CODE_CLIENT_KEY).
type tlsExtras struct{ caFile, certFile, keyFile string }

const caFix = "NODE_EXTRA_CA_CERTS names a file of CA certificates in PEM (-----BEGIN CERTIFICATE-----); fix the path or unset it"

const certFix = "CLAUDE_CODE_CLIENT_CERT and CLAUDE_CODE_CLIENT_KEY name the client certificate and its unencrypted private key, both PEM"

// splitTransport sends http:// requests as they are, and makes the TLS
// additions for https:// ones (prepare): the system's authorities and a
// bundle parsed cost about 20 ms and a thousand page faults, which a step
// against a local server (http://localhost) must not pay, and a stale
// NODE_EXTRA_CA_CERTS in a shell's profile must not stop such a step.
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
	if err := s.prepare(); err != nil {
		if r.Body != nil {
			r.Body.Close()
		}
		return nil, err
	}
	return s.tls.RoundTrip(r)
}

// prepare makes the https:// transport once: Setup calls it for a provider
// whose base URL is https://, so that a bad file is a usage error (exit 2)
// before any request.
func (s *splitTransport) prepare() error {
	s.once.Do(func() {
		var cfg tls.Config
		if s.extra.caFile != "" && !isSystemBundle(s.extra.caFile) {
			if cfg.RootCAs, s.err = extraRoots(s.extra.caFile); s.err != nil {
				return
			}
		}
		if s.extra.certFile != "" || s.extra.keyFile != "" {
			c, err := clientCertificate(s.extra.certFile, s.extra.keyFile)
			if err != nil {
				s.err = err
				return
			}
			cfg.Certificates = []tls.Certificate{c}
		}
		s.tls = s.plain.Clone()
		s.tls.TLSClientConfig = &cfg
	})
	return s.err
}

// clientCertificate is the certificate trail shows a server that asks for
// one (mutual TLS), from the files Claude Code reads. Go reads no key
// encrypted with a passphrase: such a key is refused with the way to
// decrypt it.
func clientCertificate(certFile, keyFile string) (tls.Certificate, error) {
	decrypt := &setupError{errors.New("the client key is encrypted with a passphrase, which trail cannot read"),
		"decrypt the key once (openssl pkey -in key.pem -out key-plain.pem, kept private) and point CLAUDE_CODE_CLIENT_KEY at it"}
	switch {
	case certFile == "":
		return tls.Certificate{}, &setupError{errors.New("CLAUDE_CODE_CLIENT_KEY is set without CLAUDE_CODE_CLIENT_CERT"), certFix}
	case keyFile == "":
		return tls.Certificate{}, &setupError{errors.New("CLAUDE_CODE_CLIENT_CERT is set without CLAUDE_CODE_CLIENT_KEY"), certFix}
	case os.Getenv("CLAUDE_CODE_CLIENT_KEY_PASSPHRASE") != "":
		return tls.Certificate{}, decrypt
	}
	certPEM, err := readPEM(certFile)
	if err != nil {
		return tls.Certificate{}, &setupError{fmt.Errorf("CLAUDE_CODE_CLIENT_CERT: %w", err), certFix}
	}
	keyPEM, err := readPEM(keyFile)
	if err != nil {
		return tls.Certificate{}, &setupError{fmt.Errorf("CLAUDE_CODE_CLIENT_KEY: %w", err), certFix}
	}
	if bytes.Contains(keyPEM, []byte("ENCRYPTED")) {
		return tls.Certificate{}, decrypt
	}
	c, err := tls.X509KeyPair(certPEM, keyPEM)
	if err != nil {
		return tls.Certificate{}, &setupError{fmt.Errorf("client certificate: %w", err), certFix}
	}
	return c, nil
}

// maxPEM bounds what is read of a certificate or key file: a system
// bundle is a few hundred KiB; /dev/zero given by mistake must not fill
// memory.
const maxPEM = 16 << 20

// readPEM reads a certificate or key file, which must be a regular file
// (a FIFO would hang the step) of at most maxPEM bytes.
func readPEM(file string) ([]byte, error) {
	f, fi, err := store.OpenUserFile(file)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if fi.Size() > maxPEM {
		return nil, fmt.Errorf("%s is %d bytes, more than a file of certificates holds", store.QuoteInput(file), fi.Size())
	}
	return io.ReadAll(io.LimitReader(f, maxPEM))
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
	pem, err := readPEM(file)
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
	pem, err := readPEM(file)
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
