package main_test

import (
	"bytes"
	"fmt"
	"os"
	"syscall"
	"unsafe"
)

// unlockPTY grants and unlocks the slave of the master m and returns its
// path, as libc's grantpt, unlockpt and ptsname do on macOS.
func unlockPTY(m *os.File) (string, error) {
	for _, req := range []uintptr{syscall.TIOCPTYGRANT, syscall.TIOCPTYUNLK} {
		if _, _, e := syscall.Syscall(syscall.SYS_IOCTL, m.Fd(), req, 0); e != 0 {
			return "", e
		}
	}
	var name [128]byte // TIOCPTYGNAME writes at most 128 bytes
	if _, _, e := syscall.Syscall(syscall.SYS_IOCTL, m.Fd(), syscall.TIOCPTYGNAME, uintptr(unsafe.Pointer(&name[0]))); e != 0 {
		return "", fmt.Errorf("pty name: %w", e)
	}
	n := bytes.IndexByte(name[:], 0)
	if n < 0 {
		n = len(name)
	}
	return string(name[:n]), nil
}
