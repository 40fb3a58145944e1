//go:build unix

package procgroup

import (
	"os/exec"
	"syscall"
)

// Group is a started command and every process it starts: they share
// the process group the command leads, so one kill reaches them all.
type Group struct{ pid int }

// Start starts cmd as the leader of a new process group.
func Start(cmd *exec.Cmd) (*Group, error) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	return &Group{pid: cmd.Process.Pid}, nil
}

// Kill sends SIGKILL to the whole group.
func (g *Group) Kill() { _ = syscall.Kill(-g.pid, syscall.SIGKILL) }

// Release frees what the group holds; a process group holds nothing.
func (g *Group) Release() {}
