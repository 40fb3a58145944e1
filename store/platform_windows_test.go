package store

import (
	"errors"
	"os/exec"

	"golang.org/x/sys/windows"
)

// mkfifo fails: Windows has no named pipes in the file system, and the
// tests that need one skip.
func mkfifo(string) error { return errors.New("no FIFOs on Windows") }

// killedExit is the exit code killSelf ends the process with.
const killedExit = 137

// killSelf ends the process at once with TerminateProcess, as a crash would.
func killSelf() { _ = windows.TerminateProcess(windows.CurrentProcess(), killedExit) }

// killedBySelf reports whether err is the exit of a process that killSelf ended.
func killedBySelf(err error) bool {
	var ee *exec.ExitError
	return errors.As(err, &ee) && ee.ExitCode() == killedExit
}
