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
//
// main calls it before anything else: until signal.Notify runs, the Go
// runtime answers SIGINT by killing the process ("signal: interrupt"), so
// every instruction before it is a window where Ctrl-C is not clean. What
// remains is the runtime's start and the packages' init, which no Go code
// can shorten.
//
// The returned stop ends the watch but keeps the handlers: a signal that
// arrives between the command's end and os.Exit must not kill the process
// after its exit code was decided (signal.Stop would give SIGINT back to
// the runtime, which dies of it).
func SignalContext() (context.Context, func()) {
	ch := make(chan os.Signal, 2)
	signal.Notify(ch, os.Interrupt, syscall.SIGTERM)
	ctx, cancel := context.WithCancel(context.Background())
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
		close(done)
		cancel()
	}
}
