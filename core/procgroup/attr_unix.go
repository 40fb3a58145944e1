//go:build unix && !linux

package procgroup

import "syscall"

// sysProcAttr starts a command in a session of its own (procgroup.Start).
func sysProcAttr() *syscall.SysProcAttr { return &syscall.SysProcAttr{Setsid: true} }
