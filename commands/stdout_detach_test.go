package commands

import (
	"bytes"
	"context"
	"io"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"
)

// gate is a writer that holds every write until it is opened, as a
// reader that pauses holds a pipe.
type gate struct {
	mu   sync.Mutex
	open chan struct{}
	got  bytes.Buffer
	err  error
}

func (g *gate) Write(p []byte) (int, error) {
	<-g.open
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.err != nil {
		return 0, g.err
	}
	return g.got.Write(p)
}

// A detached writer takes writes while the reader pauses, delivers them in
// order once it reads, and flush waits for that.
func TestDetachedOutputDoesNotWaitForTheReader(t *testing.T) {
	g := &gate{open: make(chan struct{})}
	o := &outWriter{w: g}
	o.detach()
	done := make(chan struct{})
	go func() {
		for i := range 1000 {
			io.WriteString(o, strings.Repeat("x", i%7)+"\n")
		}
		close(done)
	}()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		t.Fatal("writes waited for a reader that pauses")
	}
	close(g.open)
	o.flush(context.Background())
	var want strings.Builder
	for i := range 1000 {
		want.WriteString(strings.Repeat("x", i%7) + "\n")
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.got.String() != want.String() {
		t.Fatalf("delivered %d bytes, want %d in order", g.got.Len(), want.Len())
	}
}

// A reader gone away (EPIPE) calls broken once, later writes fail, and
// flush does not wait for what can never be written.
func TestDetachedOutputReportsAReaderGone(t *testing.T) {
	g := &gate{open: make(chan struct{}), err: syscall.EPIPE}
	close(g.open)
	var calls atomic.Int32
	o := &outWriter{w: g, broken: func() { calls.Add(1) }}
	o.detach()
	io.WriteString(o, "first\n")
	deadline := time.Now().Add(5 * time.Second)
	for {
		o.mu.Lock()
		err := o.err
		o.mu.Unlock()
		if err != nil || time.Now().After(deadline) {
			break
		}
		time.Sleep(time.Millisecond)
	}
	if _, err := io.WriteString(o, "second\n"); err == nil {
		t.Error("a write after the reader left succeeded")
	}
	o.flush(context.Background())
	for calls.Load() == 0 && time.Now().Before(deadline) {
		time.Sleep(time.Millisecond) // broken runs just after the error is kept
	}
	time.Sleep(10 * time.Millisecond)
	if n := calls.Load(); n != 1 {
		t.Errorf("broken called %d times", n)
	}
}

// Past maxPending, a write waits for the reader rather than hold more.
func TestDetachedOutputIsBounded(t *testing.T) {
	g := &gate{open: make(chan struct{})}
	o := &outWriter{w: g}
	o.detach()
	big := make([]byte, maxPending)
	io.WriteString(o, "x") // taken by the writer goroutine, held at the gate
	for deadline := time.Now().Add(5 * time.Second); ; {
		o.mu.Lock()
		held := o.writing
		o.mu.Unlock()
		if held || time.Now().After(deadline) {
			break
		}
		time.Sleep(time.Millisecond)
	}
	o.Write(big) // fills the buffer
	wrote := make(chan struct{})
	go func() {
		o.Write([]byte("over"))
		close(wrote)
	}()
	select {
	case <-wrote:
		t.Fatal("a write past maxPending did not wait")
	case <-time.After(100 * time.Millisecond):
	}
	close(g.open)
	select {
	case <-wrote:
	case <-time.After(5 * time.Second):
		t.Fatal("the waiting write never went on")
	}
	o.flush(context.Background())
}

// After an interrupt, flush gives a reader that never reads a moment, not
// forever.
func TestFlushAfterAnInterruptIsBounded(t *testing.T) {
	g := &gate{open: make(chan struct{})}
	defer close(g.open)
	o := &outWriter{w: g}
	o.detach()
	io.WriteString(o, "result\n")
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	start := time.Now()
	o.flush(ctx)
	if d := time.Since(start); d < afterInterrupt/2 || d > afterInterrupt+2*time.Second {
		t.Errorf("flush after an interrupt took %s, want about %s", d, afterInterrupt)
	}
}
