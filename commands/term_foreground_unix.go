//go:build !windows

package commands

import (
	"os"

	"golang.org/x/sys/unix"
)

// inForeground reports whether trail's process group is the terminal's
// foreground group, as git's progress.c asks (tcgetpgrp(fd) == getpgrp())
// before it draws: a job started with & or sent there with bg shares the
// terminal with the shell, and a redrawn line would overwrite its prompt
// and what is being typed. A terminal that will not say (not trail's
// controlling terminal) counts as foreground, as in git.
func inForeground(f *os.File) bool {
	pgrp, err := unix.IoctlGetInt(int(f.Fd()), unix.TIOCGPGRP)
	if err != nil {
		return true
	}
	return pgrp == unix.Getpgrp()
}
