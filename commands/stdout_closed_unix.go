//go:build unix

package commands

import (
	"os"
	"syscall"
)

// closedAtStart reports whether f, a standard stream, was closed when trail
// started (`trail run ... >&-`). The Go runtime then opens /dev/null read
// and write in its place, so every write would succeed and the answer go
// nowhere with exit 0. A shell's `>/dev/null` opens it write-only: only a
// /dev/null open for both is the runtime's stand-in.
func closedAtStart(f *os.File) bool {
	fd := int(f.Fd())
	var st, null syscall.Stat_t
	if syscall.Fstat(fd, &st) != nil || st.Mode&syscall.S_IFMT != syscall.S_IFCHR {
		return false
	}
	if syscall.Stat(os.DevNull, &null) != nil || st.Rdev != null.Rdev {
		return false
	}
	flags, _, errno := syscall.Syscall(syscall.SYS_FCNTL, uintptr(fd), syscall.F_GETFL, 0)
	return errno == 0 && int(flags)&syscall.O_ACCMODE == syscall.O_RDWR
}
