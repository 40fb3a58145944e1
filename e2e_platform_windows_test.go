package main_test

import (
	"errors"
	"os"
)

// mkfifo fails: Windows has no named pipes in the file system, and the
// tests that need one skip.
func mkfifo(string) error { return errors.New("no FIFOs on Windows") }

// killGroup kills the process pid alone: Windows has no process groups a
// test could reach from a pid.
func killGroup(pid int) {
	if p, err := os.FindProcess(pid); err == nil {
		_ = p.Kill()
	}
}

// peakRSSKiB is not known here.
func peakRSSKiB(*os.ProcessState) (int64, bool) { return 0, false }

// terminalRun stands for a run on a pseudo-terminal; Windows has none the
// standard library can open, so the tests that need one skip.
type terminalRun struct{}

func (e *env) startOnTerminal(...string) *terminalRun {
	e.t.Helper()
	e.t.Skip("no pseudo-terminal on Windows")
	return nil
}

func (tr *terminalRun) expect(string)       {}
func (tr *terminalRun) send(string)         {}
func (tr *terminalRun) wait() (int, string) { return 0, "" }
