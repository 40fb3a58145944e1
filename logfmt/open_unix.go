//go:build unix

package logfmt

import (
	"errors"
	"io/fs"
	"os"
	"syscall"
)

// openNoFollow opens a payload for reading without following a symlink
// that replaced it since it was checked, and without blocking on a FIFO.
func openNoFollow(path string) (*os.File, error) {
	return os.OpenFile(path, os.O_RDONLY|syscall.O_NOFOLLOW|syscall.O_NONBLOCK, 0)
}

// openLogNoFollow opens the log read-write for appending. O_NOFOLLOW fails
// on a link (O_EXCL alone would not see a link to a file that exists);
// O_NONBLOCK keeps a FIFO from blocking the open, so the caller's fstat
// can refuse it. On a regular file O_NONBLOCK changes nothing.
func openLogNoFollow(path string) (*os.File, bool, error) {
	const flags = os.O_RDWR | os.O_APPEND | os.O_CREATE | syscall.O_NOFOLLOW | syscall.O_NONBLOCK
	f, err := os.OpenFile(path, flags|os.O_EXCL, 0o600)
	if errors.Is(err, fs.ErrExist) {
		f, err = os.OpenFile(path, flags, 0o600)
		return f, false, err
	}
	if err == nil {
		_ = f.Chmod(0o600) // 0600 whatever the umask (SPEC 3.1)
	}
	return f, err == nil, err
}
