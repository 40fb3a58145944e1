//go:build windows

package hooks

import (
	"os/exec"
	"syscall"

	"golang.org/x/sys/windows"
)

// procGroup is a started command and every process it starts, held in a
// job object: Windows has no process groups that a kill reaches. A child
// the command starts in the instant before it joins the job escapes it.
type procGroup struct {
	cmd *exec.Cmd
	job windows.Handle // 0 when no job could be made: kill reaches the command only
}

// startGroup starts cmd and puts it in a new job object.
func startGroup(cmd *exec.Cmd) (*procGroup, error) {
	cmd.SysProcAttr = &syscall.SysProcAttr{CreationFlags: windows.CREATE_NEW_PROCESS_GROUP}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	g := &procGroup{cmd: cmd}
	job, err := windows.CreateJobObject(nil, nil)
	if err != nil {
		return g, nil
	}
	p, err := windows.OpenProcess(windows.PROCESS_SET_QUOTA|windows.PROCESS_TERMINATE, false, uint32(cmd.Process.Pid))
	if err == nil {
		err = windows.AssignProcessToJobObject(job, p)
		_ = windows.CloseHandle(p)
	}
	if err != nil {
		_ = windows.CloseHandle(job)
		return g, nil
	}
	g.job = job
	return g, nil
}

// kill ends every process in the job, or the command alone without one.
func (g *procGroup) kill() {
	if g.job == 0 || windows.TerminateJobObject(g.job, 1) != nil {
		_ = g.cmd.Process.Kill()
	}
}

// release closes the job handle. Processes still in the job go on, as a
// process group's background children do on unix.
func (g *procGroup) release() {
	if g.job != 0 {
		_ = windows.CloseHandle(g.job)
		g.job = 0
	}
}
