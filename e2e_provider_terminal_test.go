//go:build linux || darwin

package main_test

import (
	"bytes"
	"io"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"trail/core/provider/wire/wiretest"
)

// spinnerLines is the spinner at the start of a terminal's output: its
// frames, each redrawn over the last, then the cleared line.
var spinnerLines = regexp.MustCompile("^(\r\x1b\\[2m[^\r]* waiting for [^\r]*\x1b\\[0m\x1b\\[K)+\r\x1b\\[K")

// On a terminal, thinking shows dimmed on stderr; stdout gets the answer
// only, and a piped stderr gets no thinking at all.
func TestThinkingShowsDimmedOnTheTerminalOnly(t *testing.T) {
	t.Parallel()
	srv := wiretest.NewServer(t, wiretest.Replay(wiretest.Transcript(t, "anthropic/thinking_signature.sse")))
	e := anthropicEnv(t)
	e.setenv("TERM=xterm")
	p := openPTY(t)
	c := e.cmd("run", "--base-url", srv.URL, "--thinking", "how do I cross the street?")
	var stdout bytes.Buffer
	c.Stdout, c.Stderr = &stdout, p.slave
	c.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	if err := c.Start(); err != nil {
		t.Fatal(err)
	}
	p.slave.Close()
	shown := make(chan []byte)
	go func() { b, _ := io.ReadAll(p.master); shown <- b }()
	done := make(chan error, 1)
	go func() { done <- c.Wait() }()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("trail: %v", err)
		}
	case <-time.After(patience):
		c.Process.Kill()
		t.Fatal("trail did not finish")
	}
	var stderr []byte
	select {
	case stderr = <-shown:
	case <-time.After(5 * time.Second):
		p.master.Close()
		stderr = <-shown
	}
	// While the server has not answered for 150 ms (a loaded machine), the
	// spinner shows first and then blanks its line; the thinking follows.
	stderr = spinnerLines.ReplaceAll(stderr, nil)
	plain := strings.NewReplacer("\x1b[2m", "", "\x1b[0m", "").Replace(string(stderr))
	if !strings.HasPrefix(string(stderr), "\x1b[2mThis") || !strings.HasPrefix(plain, "This is a straightforward question about pedestrian safety.") {
		t.Errorf("terminal stderr = %q", stderr)
	}
	if strings.Contains(stdout.String(), "pedestrian safety") || !strings.HasPrefix(stdout.String(), "Here are the basic steps") {
		t.Errorf("stdout = %q", stdout.String())
	}
	piped := e.must("", "run", "--base-url", srv.URL, "--thinking", "again")
	if strings.Contains(piped.stderr, "pedestrian") || strings.Contains(piped.stdout, "pedestrian safety") {
		t.Errorf("piped: %s", piped)
	}
}
