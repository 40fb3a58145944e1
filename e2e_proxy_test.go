package main_test

import (
	"bufio"
	"encoding/pem"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"trail/core/provider/wire/wiretest"
)

// The release binary is built without cgo, so names are resolved and
// proxies chosen by Go's own code. These tests hold it to what the cgo
// build did: HTTPS_PROXY is honoured (a CONNECT tunnel, the host name sent
// to the proxy and never resolved here) and a name from /etc/hosts
// resolves.

// connectProxy is an HTTP proxy on 127.0.0.1 that tunnels every CONNECT to
// target, whatever host it names, and records the hosts asked for.
type connectProxy struct {
	ln     net.Listener
	target string
	mu     sync.Mutex
	asked  []string
}

func newConnectProxy(t *testing.T, target string) *connectProxy {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p := &connectProxy{ln: ln, target: target}
	t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go p.serve(c)
		}
	}()
	return p
}

func (p *connectProxy) serve(c net.Conn) {
	defer c.Close()
	br := bufio.NewReader(c)
	req, err := http.ReadRequest(br)
	if err != nil {
		return
	}
	p.mu.Lock()
	p.asked = append(p.asked, req.Method+" "+req.Host)
	p.mu.Unlock()
	if req.Method != http.MethodConnect {
		io.WriteString(c, "HTTP/1.1 405 Method Not Allowed\r\nContent-Length: 0\r\n\r\n")
		return
	}
	up, err := net.Dial("tcp", p.target)
	if err != nil {
		io.WriteString(c, "HTTP/1.1 502 Bad Gateway\r\nContent-Length: 0\r\n\r\n")
		return
	}
	defer up.Close()
	io.WriteString(c, "HTTP/1.1 200 Connection established\r\n\r\n")
	done := make(chan struct{}, 2)
	go func() { io.Copy(up, br); done <- struct{}{} }()
	go func() { io.Copy(c, up); done <- struct{}{} }()
	<-done
}

func (p *connectProxy) requests() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]string(nil), p.asked...)
}

func TestHTTPSProxyCarriesTheRun(t *testing.T) {
	t.Parallel()
	// An HTTPS provider whose certificate names example.com, trusted
	// through SSL_CERT_FILE; the proxy is the only way to reach it.
	step := wiretest.Replay(wiretest.Transcript(t, "anthropic/text.sse"))
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		step(w, r)
	}))
	srv.StartTLS()
	t.Cleanup(srv.Close)
	proxy := newConnectProxy(t, srv.Listener.Addr().String())
	e := anthropicEnv(t)
	ca := filepath.Join(t.TempDir(), "ca.pem")
	if err := os.WriteFile(ca, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: srv.Certificate().Raw}), 0o644); err != nil {
		t.Fatal(err)
	}
	_, port, _ := net.SplitHostPort(srv.Listener.Addr().String())
	e.setenv("SSL_CERT_FILE="+ca, "HTTPS_PROXY=http://"+proxy.ln.Addr().String(),
		"ANTHROPIC_BASE_URL=https://example.com:"+port)
	r := e.must("", "run", "Hello")
	if r.stdout != "Hello!\n" {
		t.Fatalf("%s", r)
	}
	if got := proxy.requests(); len(got) != 1 || got[0] != "CONNECT example.com:"+port {
		t.Fatalf("the proxy saw %q", got)
	}
}

// hostsName is a name /etc/hosts maps to 127.0.0.1, other than localhost
// (which a resolver might answer without reading the file).
func hostsName() string {
	data, err := os.ReadFile("/etc/hosts")
	if err != nil {
		return ""
	}
	for _, line := range strings.Split(string(data), "\n") {
		line, _, _ = strings.Cut(line, "#")
		f := strings.Fields(line)
		if len(f) < 2 || f[0] != "127.0.0.1" {
			continue
		}
		for _, name := range f[1:] {
			if name != "localhost" && !strings.HasSuffix(name, ".localhost") && !strings.Contains(name, "localdomain") {
				return name
			}
		}
	}
	return ""
}

func TestAHostNameFromTheHostsFileResolves(t *testing.T) {
	t.Parallel()
	name := hostsName()
	if name == "" {
		t.Skip("no name in /etc/hosts maps to 127.0.0.1 besides localhost, and a test may not edit the file")
	}
	srv := wiretest.NewServer(t, wiretest.Replay(wiretest.Transcript(t, "anthropic/text.sse")))
	u, err := url.Parse(srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	e := anthropicEnv(t)
	e.setenv("ANTHROPIC_BASE_URL=http://" + name + ":" + u.Port())
	r := e.must("", "run", "Hello")
	if r.stdout != "Hello!\n" || srv.Requests() != 1 {
		t.Fatalf("via %s: %s", name, r)
	}
}
