package main_test

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/json"
	"encoding/pem"
	"io"
	"log"
	"math/big"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"trail/core/provider/wire/wiretest"
)

// Behind a company network, Claude Code users set HTTPS_PROXY, NO_PROXY
// (space- or comma-separated) and NODE_EXTRA_CA_CERTS, in the environment
// or in their settings' env block (Claude Code's network-config page),
// and keep a gateway's ANTHROPIC_BASE_URL there too. trail reaches the
// provider the same way; a certificate it cannot trust ends the step at
// once with the fix, rather than four retries.

// tlsProvider is an HTTPS server replaying Anthropic's recorded stream,
// and the file of the authority its certificate comes from.
func tlsProvider(t *testing.T, e *env) (*httptest.Server, string) {
	srv := httptest.NewUnstartedServer(http.HandlerFunc(wiretest.Replay(wiretest.Transcript(t, "anthropic/text.sse"))))
	srv.EnableHTTP2 = true
	srv.Config.ErrorLog = log.New(io.Discard, "", 0) // the refused handshakes are the test
	srv.StartTLS()
	t.Cleanup(srv.Close)
	ca := e.writeFile(filepath.Join(e.user, "corp-ca.pem"), string(pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: srv.Certificate().Raw})))
	return srv, ca
}

func writeClaudeSettings(t *testing.T, e *env, settings map[string]any) {
	b, err := json.Marshal(settings)
	if err != nil {
		t.Fatal(err)
	}
	e.writeFile(filepath.Join(e.user, ".claude", "settings.json"), string(b))
}

func TestACertificateThisMachineDoesNotTrustEndsTheStepWithTheFix(t *testing.T) {
	t.Parallel()
	e := anthropicEnv(t)
	srv, ca := tlsProvider(t, e)

	r := e.run("", "run", "--provider", "anthropic", "--base-url", srv.URL, "--no-stdin", "hi")
	lines := strings.Split(strings.TrimSuffix(r.stderr, "\n"), "\n")
	if r.code != 6 || len(lines) != 2 || strings.Contains(r.stderr, "retrying") {
		t.Fatalf("want exit 6 at once, one error and one hint: %s", r)
	}
	if !strings.Contains(lines[0], "certificate signed by unknown authority") ||
		!strings.HasPrefix(lines[1], "hint: the server's certificate is signed by an authority this machine does not trust; for a company proxy or a server of your own, set NODE_EXTRA_CA_CERTS") {
		t.Errorf("the error does not name the certificate and its fix:\n%s", r.stderr)
	}

	// the authority added, from the environment
	e.setenv("NODE_EXTRA_CA_CERTS=" + ca)
	r = e.run("", "run", "--provider", "anthropic", "--base-url", srv.URL, "--no-stdin", "hi")
	if r.code != 0 || r.stdout != "Hello!\n" {
		t.Errorf("with NODE_EXTRA_CA_CERTS: %s", r)
	}

	// a file with no certificate in it is named, not passed over
	e.setenv("NODE_EXTRA_CA_CERTS=" + e.writeFile("not-a-cert.pem", "hello\n"))
	r = e.run("", "run", "--provider", "anthropic", "--base-url", srv.URL, "--no-stdin", "hi")
	if r.code != 2 || !strings.Contains(r.stderr, `not-a-cert.pem" holds no certificate in PEM`) {
		t.Errorf("NODE_EXTRA_CA_CERTS of a file with no certificate: %s", r)
	}
	// a file that is no file of certificates is refused, never read
	// whole (/dev/zero filled memory, a FIFO hung the step)
	e.setenv("NODE_EXTRA_CA_CERTS=/dev/zero")
	if r := e.run("", "run", "--provider", "anthropic", "--base-url", srv.URL, "--no-stdin", "hi"); r.code != 2 || !strings.Contains(r.stderr, `/dev/zero is a device, not a regular file`) {
		t.Errorf("NODE_EXTRA_CA_CERTS=/dev/zero: %s", r)
	}
	// and none of it matters to a step against an http:// server (a
	// stale path in a shell's profile must not stop a local model)
	plain := wiretest.NewServer(t, wiretest.Replay(wiretest.Transcript(t, "anthropic/text.sse")), wiretest.Replay(wiretest.Transcript(t, "anthropic/text.sse")))
	for _, ca := range []string{"/dev/zero", filepath.Join(e.user, "gone.pem")} {
		e.setenv("NODE_EXTRA_CA_CERTS=" + ca)
		if r := e.run("", "run", "--provider", "anthropic", "--base-url", plain.URL, "--no-stdin", "hi"); r.code != 0 || r.stdout != "Hello!\n" {
			t.Errorf("NODE_EXTRA_CA_CERTS=%s against http://: %s", ca, r)
		}
	}
	// config --check finds it in a settings file before a step does
	e.writeFile(".trail/settings.json", `{"env": {"NODE_EXTRA_CA_CERTS": "`+e.writeFile("not-a-cert.pem", "hello\n")+`"}}`)
	if r := e.run("", "config", "--check"); r.code != 7 || !strings.Contains(r.stdout, `NODE_EXTRA_CA_CERTS: "`) {
		t.Errorf("config --check of a NODE_EXTRA_CA_CERTS with no certificate: %s", r)
	}
}

func TestClaudeCodeNetworkSettingsReachTheProvider(t *testing.T) {
	t.Parallel()
	e := anthropicEnv(t)
	srv, ca := tlsProvider(t, e)

	// the gateway and its authority from ~/.claude/settings.json's env
	writeClaudeSettings(t, e, map[string]any{"env": map[string]any{"ANTHROPIC_BASE_URL": srv.URL, "NODE_EXTRA_CA_CERTS": ca}})
	if r := e.run("", "run", "--no-stdin", "hi"); r.code != 0 || r.stdout != "Hello!\n" {
		t.Errorf("ANTHROPIC_BASE_URL and NODE_EXTRA_CA_CERTS from the settings' env: %s", r)
	}

	// An HTTP proxy from the settings' env. The base URL's host is
	// 0.0.0.0, which Go proxies (it never proxies localhost or 127.0.0.1)
	// and which, dialled directly, is this machine: nothing leaves it
	// either way. The proxy tells the two apart by the request's form.
	var proxied, direct atomic.Int32
	answer := wiretest.Replay(wiretest.Transcript(t, "anthropic/text.sse"))
	plain := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.HasPrefix(r.RequestURI, "http://") {
			proxied.Add(1)
		} else {
			direct.Add(1)
		}
		answer(w, r)
	}))
	t.Cleanup(plain.Close)
	u, err := url.Parse(plain.URL)
	if err != nil {
		t.Fatal(err)
	}
	base := "http://0.0.0.0:" + u.Port()
	for _, tt := range []struct {
		name, noProxy   string
		proxied, direct int32
	}{
		{"proxied", "", 1, 0},
		{"NO_PROXY separated by spaces", "gateway.corp.test 0.0.0.0", 0, 1},
		{"NO_PROXY separated by commas", "gateway.corp.test,0.0.0.0", 0, 1},
		{"NO_PROXY naming another host", "gateway.corp.test 10.0.0.1", 1, 0},
	} {
		env := map[string]any{"HTTP_PROXY": plain.URL}
		if tt.noProxy != "" {
			env["NO_PROXY"] = tt.noProxy
		}
		writeClaudeSettings(t, e, map[string]any{"env": env})
		p0, d0 := proxied.Load(), direct.Load()
		r := e.run("", "run", "--base-url", base, "--no-stdin", "hi")
		if r.code != 0 || r.stdout != "Hello!\n" {
			t.Errorf("%s: %s", tt.name, r)
		}
		if p, d := proxied.Load()-p0, direct.Load()-d0; p != tt.proxied || d != tt.direct {
			t.Errorf("%s: %d requests through the proxy and %d direct, want %d and %d", tt.name, p, d, tt.proxied, tt.direct)
		}
	}

	// a proxy that is not there is named as the thing to check
	writeClaudeSettings(t, e, map[string]any{"env": map[string]any{"HTTP_PROXY": "http://127.0.0.1:9"}})
	r := e.run("", "run", "--base-url", base, "--max-retries", "0", "--no-stdin", "hi")
	if r.code != 6 || !strings.Contains(r.stderr, "hint: is the proxy running? check HTTPS_PROXY (HTTP_PROXY for http://)") {
		t.Errorf("a proxy that refuses connections: %s", r)
	}

	// the environment's own proxy setting wins over the settings', and
	// config says so
	writeClaudeSettings(t, e, map[string]any{"env": map[string]any{"HTTP_PROXY": "http://127.0.0.1:9"}})
	e.setenv("http_proxy=" + plain.URL)
	if r := e.must("", "config"); !strings.Contains(r.stdout, "(trail's own requests use the environment's http_proxy)") {
		t.Errorf("config with a proxy in the environment and the settings:\n%s", r.stdout)
	}
	p0 := proxied.Load()
	if r := e.run("", "run", "--base-url", base, "--no-stdin", "hi"); r.code != 0 || proxied.Load() != p0+1 {
		t.Errorf("http_proxy in the environment beside HTTP_PROXY in the settings: %s", r)
	}
}

// A server that asks for a client certificate (mutual TLS, Claude Code's
// CLAUDE_CODE_CLIENT_CERT and CLAUDE_CODE_CLIENT_KEY) gets the one those
// name, from the environment or the settings' env.
func TestAClientCertificateFromClaudeCodesVariables(t *testing.T) {
	t.Parallel()
	e := anthropicEnv(t)
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "trail-ci"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth}}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	keyDER, err := x509.MarshalPKCS8PrivateKey(key)
	if err != nil {
		t.Fatal(err)
	}
	certFile := e.writeFile(filepath.Join(e.user, "client.pem"), string(pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der})))
	keyFile := e.writeFile(filepath.Join(e.user, "client-key.pem"), string(pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: keyDER})))
	clientCert, err := x509.ParseCertificate(der)
	if err != nil {
		t.Fatal(err)
	}

	srv := httptest.NewUnstartedServer(http.HandlerFunc(wiretest.Replay(wiretest.Transcript(t, "anthropic/text.sse"))))
	srv.Config.ErrorLog = log.New(io.Discard, "", 0)
	clients := x509.NewCertPool()
	clients.AddCert(clientCert)
	srv.TLS = &tls.Config{ClientAuth: tls.RequireAndVerifyClientCert, ClientCAs: clients}
	srv.StartTLS()
	t.Cleanup(srv.Close)
	ca := e.writeFile(filepath.Join(e.user, "ca.pem"), string(pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: srv.Certificate().Raw})))
	e.setenv("NODE_EXTRA_CA_CERTS=" + ca)

	// Without one the handshake fails; under TLS 1.3 the server's alert
	// may come after the request was written, so what the client reads
	// first varies (a closed connection, or the alert with its hint).
	if r := e.run("", "run", "--base-url", srv.URL, "--max-retries", "0", "--no-stdin", "hi"); r.code != 6 {
		t.Errorf("no client certificate: %s", r)
	}
	writeClaudeSettings(t, e, map[string]any{"env": map[string]any{"CLAUDE_CODE_CLIENT_CERT": certFile, "CLAUDE_CODE_CLIENT_KEY": keyFile}})
	if r := e.run("", "run", "--base-url", srv.URL, "--no-stdin", "hi"); r.code != 0 || r.stdout != "Hello!\n" {
		t.Errorf("with the client certificate from the settings' env: %s", r)
	}
	e.setenv("CLAUDE_CODE_CLIENT_KEY_PASSPHRASE=secret-passphrase")
	if r := e.run("", "run", "--base-url", srv.URL, "--no-stdin", "hi"); r.code != 2 || !strings.Contains(r.stderr, "encrypted with a passphrase") {
		t.Errorf("an encrypted client key: %s", r)
	}
}

// A gateway set up as Claude Code's docs and gateways' own pages say:
// ANTHROPIC_BASE_URL, ANTHROPIC_AUTH_TOKEN and ANTHROPIC_MODEL (the model
// the gateway serves), and ANTHROPIC_CUSTOM_HEADERS for its own key, in
// the environment or the settings' env. trail sent Anthropic's default
// model and no header, and the gateway refused both.
func TestAGatewayAsClaudeCodeIsSetUpForIt(t *testing.T) {
	t.Parallel()
	srv := wiretest.NewServer(t, wiretest.Replay(wiretest.Transcript(t, "anthropic/text.sse")),
		wiretest.Replay(wiretest.Transcript(t, "anthropic/text.sse")), wiretest.Replay(wiretest.Transcript(t, "anthropic/text.sse")),
		wiretest.Replay(wiretest.Transcript(t, "anthropic/text.sse")))
	e := newEnv(t)
	e.setenv("ANTHROPIC_AUTH_TOKEN=gw-token-0123456789", "ANTHROPIC_BASE_URL="+srv.URL)
	writeClaudeSettings(t, e, map[string]any{"env": map[string]any{
		"ANTHROPIC_MODEL": "deepseek-v3.2", "ANTHROPIC_CUSTOM_HEADERS": "x-gateway-key: gwk-0123456789abcdef\nx-route: eu-west"}})
	model := func(i int) string {
		var body struct{ Model string }
		json.Unmarshal(srv.Body(i), &body)
		return body.Model
	}
	e.must("", "run", "--no-stdin", "hi")
	if model(0) != "deepseek-v3.2" || srv.Header(0).Get("X-Gateway-Key") != "gwk-0123456789abcdef" || srv.Header(0).Get("X-Route") != "eu-west" {
		t.Errorf("from the settings' env: model %q, headers %v", model(0), srv.Header(0))
	}
	e.setenv("ANTHROPIC_MODEL=glm-4.6") // the environment's beats the settings'
	e.must("", "run", "--no-stdin", "hi")
	if model(1) != "glm-4.6" {
		t.Errorf("ANTHROPIC_MODEL in the environment: model %q", model(1))
	}
	if r := e.must("", "config"); !regexp.MustCompile(`(?m)^model +"glm-4\.6" +env ANTHROPIC_MODEL$`).MatchString(r.stdout) ||
		!strings.Contains(r.stdout, "(trail's own requests use the environment's ANTHROPIC_MODEL)") {
		t.Errorf("config with ANTHROPIC_MODEL in the environment and the settings:\n%s", r.stdout)
	}
	e.must("", "run", "-m", "qwen3-coder", "--no-stdin", "hi") // and the flag beats both
	if model(2) != "qwen3-coder" {
		t.Errorf("-m beside ANTHROPIC_MODEL: model %q", model(2))
	}
	// the header's value is a secret: a tool that prints the environment
	// does not put it in the log
	s := e.script(calls(call("Bash", map[string]any{"command": `echo "$ANTHROPIC_CUSTOM_HEADERS"`})), answer("done"))
	e.must("", "run", "--provider", "script", "--script", s, "--allow-tool", "Bash", "go")
	e.checkNoSecrets("gwk-0123456789abcdef")
	// a line that is no header is refused, without quoting it: its value
	// may be the key
	e.setenv("ANTHROPIC_CUSTOM_HEADERS=x-gateway-key gwk-typed-without-colon")
	if r := e.run("", "run", "--no-stdin", "hi"); r.code != 2 || !strings.Contains(r.stderr, "ANTHROPIC_CUSTOM_HEADERS: line 1 is no header") || strings.Contains(r.stderr, "gwk") {
		t.Errorf("a custom header line that is no header: %s", r)
	}
	// config --check finds it in a settings file, and a gateway's base
	// URL there without its scheme
	e.setenv("ANTHROPIC_CUSTOM_HEADERS=")
	writeClaudeSettings(t, e, map[string]any{"env": map[string]any{"ANTHROPIC_CUSTOM_HEADERS": "no header here", "ANTHROPIC_BASE_URL": "gateway.corp:8080"}})
	if r := e.run("", "config", "--check"); r.code != 7 || !strings.Contains(r.stdout, "line 1 is no header") || !strings.Contains(r.stdout, "must start with http:// or https://") {
		t.Errorf("config --check of the gateway's settings: %s", r)
	}
}

// Claude Code's variables for what trail keeps as settings keys
// (DISABLE_PROMPT_CACHING, CLAUDE_CODE_MAX_OUTPUT_TOKENS,
// MAX_THINKING_TOKENS), from the environment or the settings' env, shape
// the request where no settings file names trail's own key; a flag wins.
func TestClaudeCodesRequestVariables(t *testing.T) {
	t.Parallel()
	steps := make([]wiretest.Step, 4)
	for i := range steps {
		steps[i] = wiretest.Replay(wiretest.Transcript(t, "anthropic/text.sse"))
	}
	srv := wiretest.NewServer(t, steps...)
	e := anthropicEnv(t)
	e.setenv("ANTHROPIC_BASE_URL="+srv.URL, "CLAUDE_CODE_MAX_OUTPUT_TOKENS=32000", "DISABLE_PROMPT_CACHING=1")
	writeClaudeSettings(t, e, map[string]any{"env": map[string]any{"MAX_THINKING_TOKENS": "4096"}})
	request := func(i int) (maxTokens, budget int, cached bool) {
		var body struct {
			MaxTokens int `json:"max_tokens"`
			Thinking  struct {
				Budget int `json:"budget_tokens"`
			}
		}
		json.Unmarshal(srv.Body(i), &body)
		return body.MaxTokens, body.Thinking.Budget, strings.Contains(string(srv.Body(i)), "cache_control")
	}
	e.must("", "run", "--no-stdin", "hi")
	if m, b, c := request(0); m != 32000 || b != 4096 || c {
		t.Errorf("from the variables: max_tokens %d, thinking budget %d, cache_control %v", m, b, c)
	}
	r := e.must("", "config")
	for _, want := range []string{`(?m)^maxTokens +32000 +env CLAUDE_CODE_MAX_OUTPUT_TOKENS$`, `(?m)^thinking +4096 +~/\.claude/settings\.json$`, `(?m)^promptCaching +false +env DISABLE_PROMPT_CACHING$`} {
		if !regexp.MustCompile(want).MatchString(r.stdout) {
			t.Errorf("config lacks %s:\n%s", want, r.stdout)
		}
	}
	e.must("", "run", "--max-tokens", "5000", "--no-stdin", "hi")
	if m, _, _ := request(1); m != 5000 {
		t.Errorf("--max-tokens beside CLAUDE_CODE_MAX_OUTPUT_TOKENS: max_tokens %d", m)
	}
	e.writeFile(".trail/settings.json", `{"maxTokens": 6000}`)
	e.must("", "run", "--no-stdin", "hi")
	if m, _, _ := request(2); m != 6000 {
		t.Errorf("maxTokens in a settings file beside CLAUDE_CODE_MAX_OUTPUT_TOKENS: max_tokens %d", m)
	}
	e.setenv("CLAUDE_CODE_MAX_OUTPUT_TOKENS=lots")
	os.Remove(filepath.Join(e.cwd, ".trail", "settings.json"))
	if r := e.run("", "run", "--no-stdin", "hi"); r.code != 2 || !strings.Contains(r.stderr, `CLAUDE_CODE_MAX_OUTPUT_TOKENS "lots" is no number of tokens`) {
		t.Errorf("CLAUDE_CODE_MAX_OUTPUT_TOKENS=lots: %s", r)
	}
}
