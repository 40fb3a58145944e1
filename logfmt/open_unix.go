//go:build unix

package logfmt

import (
	"os"
	"syscall"
)

// openNoFollow opens a payload for reading without following a symlink
// that replaced it since it was checked, and without blocking on a FIFO.
func openNoFollow(path string) (*os.File, error) {
	return os.OpenFile(path, os.O_RDONLY|syscall.O_NOFOLLOW|syscall.O_NONBLOCK, 0)
}
