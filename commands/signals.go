package commands

import (
	"context"
	"os"
	"os/signal"
	"syscall"
)

// SignalContext is cancelled by the first SIGINT or SIGTERM, so the step can
// save its partial answer; a second signal exits at once with 130 (the last
// saved record is intact because saves are atomic).
func SignalContext() (context.Context, func()) {
	ctx, cancel := context.WithCancel(context.Background())
	ch := make(chan os.Signal, 2)
	signal.Notify(ch, os.Interrupt, syscall.SIGTERM)
	done := make(chan struct{})
	go func() {
		select {
		case <-ch:
			cancel()
		case <-done:
			return
		}
		select {
		case <-ch:
			os.Exit(ExitInterrupted)
		case <-done:
		}
	}()
	return ctx, func() {
		signal.Stop(ch)
		close(done)
		cancel()
	}
}
