//go:build unix

package store

import (
	"errors"
	"os"
	"os/exec"
	"syscall"
)

// mkfifo makes a named pipe at path (platform_windows_test.go: none there).
func mkfifo(path string) error { return syscall.Mkfifo(path, 0o600) }

// killSelf ends the process at once, as a crash or SIGKILL would.
func killSelf() { _ = syscall.Kill(os.Getpid(), syscall.SIGKILL) }

// killedBySelf reports whether err is the exit of a process that killSelf ended.
func killedBySelf(err error) bool {
	var ee *exec.ExitError
	return errors.As(err, &ee) && ee.Sys().(syscall.WaitStatus).Signal() == syscall.SIGKILL
}
