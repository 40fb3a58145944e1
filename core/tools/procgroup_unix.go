//go:build unix

package tools

import (
	"os/exec"
	"syscall"
)

// procGroup is a started command and every process it starts: they share
// the process group the command leads, so one kill reaches them all.
type procGroup struct{ pid int }

// startGroup starts cmd as the leader of a new process group.
func startGroup(cmd *exec.Cmd) (*procGroup, error) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	return &procGroup{pid: cmd.Process.Pid}, nil
}

// kill sends SIGKILL to the whole group.
func (g *procGroup) kill() { _ = syscall.Kill(-g.pid, syscall.SIGKILL) }

// release frees what the group holds; a process group holds nothing.
func (g *procGroup) release() {}
