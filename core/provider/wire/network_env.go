package wire

import (
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"net/http"
	"os"
	"strings"

	"trail/core/errs"
	"trail/lazy"
	"trail/store"
)

// How trail reaches a provider through a company network, as Claude Code
// does (its network-config page): the proxy variables (HTTPS_PROXY,
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
	var cfg tls.Config
	if file := os.Getenv("NODE_EXTRA_CA_CERTS"); file != "" {
		roots, err := extraRoots(file)
		if err != nil {
			return httpSetup{err: err}
		}
		cfg.RootCAs = roots
	}
	if cert, key := os.Getenv("CLAUDE_CODE_CLIENT_CERT"), os.Getenv("CLAUDE_CODE_CLIENT_KEY"); cert != "" || key != "" {
		c, err := clientCertificate(cert, key)
		if err != nil {
			return httpSetup{err: err}
		}
		cfg.Certificates = []tls.Certificate{c}
	}
	if cfg.RootCAs != nil || cfg.Certificates != nil {
		t.TLSClientConfig = &cfg
	}
	return httpSetup{client: &http.Client{Transport: t, CheckRedirect: checkRedirect}}
}

// clientCertificate is the certificate trail shows a server that asks for
// one (mutual TLS), from the files Claude Code reads: CLAUDE_CODE_CLIENT_CERT
// and CLAUDE_CODE_CLIENT_KEY, both PEM. A key encrypted with a passphrase
// (CLAUDE_CODE_CLIENT_KEY_PASSPHRASE) is refused with the way to decrypt
// it: Go reads no encrypted PKCS#8.
func clientCertificate(certFile, keyFile string) (tls.Certificate, error) {
	const fix = "CLAUDE_CODE_CLIENT_CERT and CLAUDE_CODE_CLIENT_KEY name the client certificate and its unencrypted private key, both PEM"
	switch {
	case certFile == "":
		return tls.Certificate{}, errs.Usagef(fix, "CLAUDE_CODE_CLIENT_KEY is set without CLAUDE_CODE_CLIENT_CERT")
	case keyFile == "":
		return tls.Certificate{}, errs.Usagef(fix, "CLAUDE_CODE_CLIENT_CERT is set without CLAUDE_CODE_CLIENT_KEY")
	case os.Getenv("CLAUDE_CODE_CLIENT_KEY_PASSPHRASE") != "":
		return tls.Certificate{}, errs.Usagef("decrypt the key once (openssl pkey -in key.pem -out key-plain.pem, kept private) and point CLAUDE_CODE_CLIENT_KEY at it",
			"a client key encrypted with a passphrase (CLAUDE_CODE_CLIENT_KEY_PASSPHRASE) is not supported")
	}
	c, err := tls.LoadX509KeyPair(certFile, keyFile)
	if err != nil {
		return tls.Certificate{}, errs.Usagef(fix, "client certificate: %v", err)
	}
	return c, nil
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
	fix := "NODE_EXTRA_CA_CERTS names a file of CA certificates in PEM (-----BEGIN CERTIFICATE-----); fix the path or unset it"
	pem, err := os.ReadFile(file)
	if err != nil {
		return nil, errs.Usagef(fix, "NODE_EXTRA_CA_CERTS: %v", err)
	}
	roots, err := x509.SystemCertPool()
	if err != nil || roots == nil {
		roots = x509.NewCertPool()
	}
	if !roots.AppendCertsFromPEM(pem) {
		return nil, errs.Usagef(fix, "NODE_EXTRA_CA_CERTS: %s holds no certificate in PEM", store.QuoteInput(file))
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
