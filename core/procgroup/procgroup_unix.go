//go:build unix

package procgroup

import (
	"os/exec"
	"sync"
	"syscall"
)

// Group is a started command and every process it starts: they share
// the process group the command leads, so one kill reaches them all.
type Group struct{ pid int }

// Start starts cmd as the leader of a new session, and so of a new
// process group. A session of its own also takes the user's terminal away:
// trail's tools and hooks are not interactive (their stdin is not the
// terminal), and a command that opens /dev/tty anyway (sudo asking for a
// password, an ssh or gpg passphrase, an editor) fails at once with "no
// such device" for the model to see, where in trail's session it was
// stopped by SIGTTIN and the step hung until the tool's time limit.
func Start(cmd *exec.Cmd) (*Group, error) {
	cmd.SysProcAttr = sysProcAttr()
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	g := &Group{pid: cmd.Process.Pid}
	live.Lock()
	if live.pids == nil {
		live.pids = map[int]struct{}{}
	}
	live.pids[g.pid] = struct{}{}
	live.Unlock()
	return g, nil
}

// Kill sends SIGKILL to the whole group.
func (g *Group) Kill() { _ = syscall.Kill(-g.pid, syscall.SIGKILL) }

// Release forgets the group once its command has been waited for.
func (g *Group) Release() {
	live.Lock()
	delete(live.pids, g.pid)
	live.Unlock()
}

// live are the groups started and not yet released (the map is made on
// first use: no package of trail runs an init at start-up).
var live struct {
	sync.Mutex
	pids map[int]struct{}
}

// SignalAll sends sig to every live group. In a session of their own,
// the groups are out of reach of the terminal's job control: Ctrl-Z
// stopped trail and left its tool running; trail passes SIGSTOP and
// SIGCONT on (commands' job control).
func SignalAll(sig syscall.Signal) {
	live.Lock()
	defer live.Unlock()
	for pid := range live.pids {
		_ = syscall.Kill(-pid, sig)
	}
}

// fdsPerCommand is what one command holds open in trail while it starts
// and runs (its stdin, stdout and stderr pipes, both ends until it has
// started, the exec status pipe, a pidfd), with a margin; fdsForTrail is
// what the step itself holds (session files, the poller, stdio).
const (
	fdsPerCommand = 8
	fdsForTrail   = 24
)

// Parallel is how many commands of want may run at once within the
// open-files limit: under `ulimit -n 40`, five Bash calls started together
// failed with "too many open files" where one at a time would all run.
func Parallel(want int) int {
	var lim syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &lim); err != nil || lim.Cur >= uint64(fdsForTrail+want*fdsPerCommand) {
		return want
	}
	return max(1, min(want, int(int64(lim.Cur)-fdsForTrail)/fdsPerCommand))
}
