//go:build unix

package commands

import (
	"os"
	"os/signal"
	"syscall"

	"trail/core/procgroup"
)

// watchJobControl makes Ctrl-Z (SIGTSTP) stop trail's running tools and
// hooks with it, and fg (SIGCONT) continue them: each runs in a session
// of its own, without the terminal (procgroup.Start), out of reach of the
// shell's job control, so a test suite a Bash call ran went on while
// trail was stopped. trail then stops itself with SIGSTOP and waits to
// be continued: the stop reaches this goroutine's thread only some time
// after kill returns, so the SIGCONT that fg sends is what says trail ran
// again. A SIGTSTP trail was started with ignored stays ignored.
func watchJobControl() {
	if signal.Ignored(syscall.SIGTSTP) {
		return
	}
	tstp, cont := make(chan os.Signal, 1), make(chan os.Signal, 1)
	signal.Notify(tstp, syscall.SIGTSTP)
	signal.Notify(cont, syscall.SIGCONT)
	go func() {
		for range tstp {
			procgroup.SignalAll(syscall.SIGSTOP)
			select {
			case <-cont: // an earlier continue, not this one's
			default:
			}
			_ = syscall.Kill(os.Getpid(), syscall.SIGSTOP)
			<-cont
			procgroup.SignalAll(syscall.SIGCONT)
		}
	}()
}
