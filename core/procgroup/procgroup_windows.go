//go:build windows

package procgroup

import (
	"os/exec"
	"syscall"

	"golang.org/x/sys/windows"
)

// Group is a started command and every process it starts, held in a
// job object: Windows has no process groups that a kill reaches. A child
// the command starts in the instant before it joins the job escapes it.
type Group struct {
	cmd *exec.Cmd
	job windows.Handle // 0 when no job could be made: kill reaches the command only
}

// Start starts cmd and puts it in a new job object.
func Start(cmd *exec.Cmd) (*Group, error) {
	cmd.SysProcAttr = &syscall.SysProcAttr{CreationFlags: windows.CREATE_NEW_PROCESS_GROUP}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	g := &Group{cmd: cmd}
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

// Kill ends every process in the job, or the command alone without one.
func (g *Group) Kill() {
	if g.job == 0 || windows.TerminateJobObject(g.job, 1) != nil {
		_ = g.cmd.Process.Kill()
	}
}

// Release closes the job handle. Processes still in the job go on, as a
// process group's background children do on unix.
func (g *Group) Release() {
	if g.job != 0 {
		_ = windows.CloseHandle(g.job)
		g.job = 0
	}
}

// Parallel is want: Windows has no open-files limit this low.
func Parallel(want int) int { return want }
