//go:build darwin || dragonfly || freebsd || netbsd || openbsd

package commands

import (
	"os"

	"golang.org/x/sys/unix"
)

// dropTypeahead discards what was typed at the terminal f and not read yet
// (tcflush TCIFLUSH is TIOCFLUSH with FREAD here).
func dropTypeahead(f *os.File) { _ = unix.IoctlSetPointerInt(int(f.Fd()), unix.TIOCFLUSH, fread) }

// fread is FREAD of <sys/fcntl.h>, the same on every BSD.
const fread = 0x1
