//go:build unix

package main_test

import (
	"os"
	"runtime"
	"syscall"
)

// What the end-to-end tests do differently per system; the Windows side is
// e2e_platform_windows_test.go.

// mkfifo makes a named pipe at path.
func mkfifo(path string) error { return syscall.Mkfifo(path, 0o600) }

// killGroup kills the process group pid leads (a Bash tool's command and
// what it started).
func killGroup(pid int) { _ = syscall.Kill(-pid, syscall.SIGKILL) }

// peakRSSKiB is the peak resident set of a finished process in KiB.
func peakRSSKiB(ps *os.ProcessState) (int64, bool) {
	ru, ok := ps.SysUsage().(*syscall.Rusage)
	if !ok {
		return 0, false
	}
	if runtime.GOOS == "darwin" {
		return int64(ru.Maxrss) / 1024, true // bytes there, KiB on Linux and the BSDs
	}
	return int64(ru.Maxrss), true
}
