//go:build !windows

package commands

import (
	"os"

	"golang.org/x/sys/unix"
)

// ttyWidth asks the terminal behind f how many columns it has.
func ttyWidth(f *os.File) int {
	ws, err := unix.IoctlGetWinsize(int(f.Fd()), unix.TIOCGWINSZ)
	if err != nil {
		return 0
	}
	return int(ws.Col)
}
