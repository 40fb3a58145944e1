//go:build unix

package commands

import (
	"os"
	"os/signal"
	"syscall"
)

// onContinue calls f each time the process is continued after a stop
// (SIGCONT: fg after Ctrl-Z), until the returned stop is called.
func onContinue(f func()) (stop func()) {
	ch := make(chan os.Signal, 1)
	signal.Notify(ch, syscall.SIGCONT)
	done := make(chan struct{})
	exited := make(chan struct{})
	go func() {
		defer close(exited)
		for {
			select {
			case <-ch:
				f()
			case <-done:
				return
			}
		}
	}()
	return func() {
		signal.Stop(ch)
		close(done)
		<-exited
	}
}
