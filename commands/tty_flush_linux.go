package commands

import (
	"os"

	"golang.org/x/sys/unix"
)

// dropTypeahead discards what was typed at the terminal f and not read yet
// (tcflush TCIFLUSH).
func dropTypeahead(f *os.File) { _ = unix.IoctlSetInt(int(f.Fd()), unix.TCFLSH, unix.TCIFLUSH) }
