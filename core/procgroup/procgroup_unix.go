//go:build unix

package procgroup

import (
	"os/exec"
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
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	return &Group{pid: cmd.Process.Pid}, nil
}

// Kill sends SIGKILL to the whole group.
func (g *Group) Kill() { _ = syscall.Kill(-g.pid, syscall.SIGKILL) }

// Release frees what the group holds; a process group holds nothing.
func (g *Group) Release() {}
