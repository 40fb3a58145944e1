//go:build unix

package main_test

import (
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// A NODE_EXTRA_CA_CERTS that names a FIFO with no writer is refused: its
// open waited forever, and the step with it, past SIGTERM.
func TestANamedPipeAsCertificatesIsRefused(t *testing.T) {
	t.Parallel()
	e := anthropicEnv(t)
	srv, _ := tlsProvider(t, e)
	fifo := filepath.Join(e.user, "ca.fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skip(err)
	}
	e.setenv("NODE_EXTRA_CA_CERTS=" + fifo)
	if r := e.run("", "run", "--base-url", srv.URL, "--no-stdin", "hi"); r.code != 2 || !strings.Contains(r.stderr, "ca.fifo is a named pipe, not a regular file") {
		t.Errorf("NODE_EXTRA_CA_CERTS naming a FIFO: %s", r)
	}
}
