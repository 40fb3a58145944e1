package wire

import (
	"net/http"
	"os"
	"path/filepath"
	"testing"
)

// A NODE_EXTRA_CA_CERTS that is the bundle Go reads the system's
// authorities from (some machines export it so) adds nothing, and is not
// parsed a second time.
func TestTheSystemBundleIsNoExtraAuthority(t *testing.T) {
	dir := t.TempDir()
	bundle := filepath.Join(dir, "ca-certificates.crt")
	other := filepath.Join(dir, "corp-ca.pem")
	link := filepath.Join(dir, "link.crt")
	for _, f := range []string{bundle, other} {
		if err := os.WriteFile(f, []byte("-----BEGIN CERTIFICATE-----\n"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink(bundle, link); err != nil {
		t.Fatal(err)
	}
	t.Setenv("SSL_CERT_FILE", bundle)
	for f, want := range map[string]bool{bundle: true, link: true, other: false, filepath.Join(dir, "missing"): false} {
		if got := isSystemBundle(f); got != want {
			t.Errorf("isSystemBundle(%s) = %v, want %v", filepath.Base(f), got, want)
		}
	}
}

func TestNoProxyList(t *testing.T) {
	for in, want := range map[string]string{
		"localhost 192.168.1.1 example.com .example.com": "localhost,192.168.1.1,example.com,.example.com",
		"localhost, 10.0.0.5":                            "localhost,10.0.0.5",
		"*":                                              "*",
	} {
		if got := noProxyList(in); got != want {
			t.Errorf("noProxyList(%q) = %q, want %q", in, got, want)
		}
	}
}

// The https:// transport made for the TLS additions is the plain one's
// clone: the proxy from the environment, the timeouts and HTTP/2 stay.
func TestTheTLSTransportKeepsTheProxy(t *testing.T) {
	plain := http.DefaultTransport.(*http.Transport).Clone()
	s := &splitTransport{plain: plain}
	if err := s.prepare(); err != nil {
		t.Fatal(err)
	}
	if s.tls == nil || s.tls.Proxy == nil || !s.tls.ForceAttemptHTTP2 || s.tls.TLSHandshakeTimeout != plain.TLSHandshakeTimeout {
		t.Errorf("the https transport lost the plain one's settings: %+v", s.tls)
	}
}
