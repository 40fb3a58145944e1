package procgroup

import "syscall"

// sysProcAttr starts a command in a session of its own (procgroup.Start),
// and, on Linux, has the kernel kill it when trail dies: a trail killed
// with SIGKILL (the OOM killer, `timeout -s KILL`, a CI runner) could not
// end the group itself, and a command with no terminal is not ended by
// the terminal closing either. What the command started in turn outlives
// it, as when Claude Code is killed.
func sysProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setsid: true, Pdeathsig: syscall.SIGKILL}
}
