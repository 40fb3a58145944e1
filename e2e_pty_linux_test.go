package main_test

import (
	"fmt"
	"os"
	"syscall"
	"unsafe"
)

// unlockPTY unlocks the slave of the master m and returns its path, as
// glibc's unlockpt and ptsname do.
func unlockPTY(m *os.File) (string, error) {
	var unlock int32
	if _, _, e := syscall.Syscall(syscall.SYS_IOCTL, m.Fd(), syscall.TIOCSPTLCK, uintptr(unsafe.Pointer(&unlock))); e != 0 {
		return "", e
	}
	var n uint32
	if _, _, e := syscall.Syscall(syscall.SYS_IOCTL, m.Fd(), syscall.TIOCGPTN, uintptr(unsafe.Pointer(&n))); e != 0 {
		return "", fmt.Errorf("pty number: %w", e)
	}
	return fmt.Sprintf("/dev/pts/%d", n), nil
}
