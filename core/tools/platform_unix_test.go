//go:build unix

package tools

import "syscall"

// mkfifo makes a named pipe at path (platform_windows_test.go: none there).
func mkfifo(path string) error { return syscall.Mkfifo(path, 0o644) }

// setUmask sets the process umask and returns a func that restores it.
func setUmask(mask int) (restore func()) {
	old := syscall.Umask(mask)
	return func() { syscall.Umask(old) }
}
