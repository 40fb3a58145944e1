package commands

import (
	"context"
	"os"
	"os/signal"
	"syscall"
	"time"
)

// SignalContext is cancelled by the first SIGINT, SIGTERM, SIGHUP or
// SIGQUIT, so the step can save its partial answer; a second signal
// exits at once with 130 (the last saved record is intact because saves
// are atomic), saying so. A second signal within secondSignalGrace of
// the first is the same interrupt: GNU timeout (the CI idiom `timeout 600
// trail run ...`) signals both trail and its process group, and the two
// copies arriving apart used to end the save they had just begun.
//
// SIGHUP (a closed terminal, a dropped ssh) is an interrupt too, not
// death: the step was as much the user's as with Ctrl-C. SIGPIPE is
// ignored: a reader gone away is a write error (EPIPE) trail handles
// (stdout_errors.go), not a kill before the save.
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
	signal.Ignore(syscall.SIGPIPE)
	ch := make(chan os.Signal, 4)
	// A signal trail was started with ignored stays ignored: `nohup trail
	// run …` must outlive the terminal, and a shell's background job (`cmd
	// &` in a script) ignores SIGINT. Notify would turn them back on.
	var watch []os.Signal
	for _, sig := range interruptSignals() {
		if !signal.Ignored(sig) {
			watch = append(watch, sig)
		}
	}
	if len(watch) > 0 {
		signal.Notify(ch, watch...)
	}
	watchJobControl()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		select {
		case <-ch:
			cancel()
		case <-done:
			return
		}
		first := time.Now()
		for {
			select {
			case <-ch:
				if time.Since(first) < secondSignalGrace {
					continue
				}
				os.Stderr.WriteString("trail: interrupted again: exiting without waiting for the save (a record saved before stands; trail replay ID --write-record rebuilds one from the log)\n")
				os.Exit(ExitInterrupted)
			case <-done:
				return
			}
		}
	}()
	return ctx, func() {
		close(done)
		cancel()
	}
}

// interruptSignals are the signals that end a step with its save. SIGQUIT
// (Ctrl-\) is one: a person quitting wants out, not the Go runtime's dump
// of every goroutine over the screen, exit 2 (trail's "usage") and a first
// step with no record. GOTRACEBACK asking for every goroutine (all,
// system, crash, wer, 1, 2) asks for that dump: a developer looking at a
// hang then gets the runtime's SIGQUIT. none, single or 0 do not.
func interruptSignals() []os.Signal {
	sigs := []os.Signal{os.Interrupt, syscall.SIGTERM, syscall.SIGHUP}
	switch os.Getenv("GOTRACEBACK") {
	case "all", "system", "crash", "wer", "1", "2":
	default:
		sigs = append(sigs, syscall.SIGQUIT)
	}
	return sigs
}

// secondSignalGrace is how long after the first signal another one is
// still the same interrupt.
const secondSignalGrace = 500 * time.Millisecond
