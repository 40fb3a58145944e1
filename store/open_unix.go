//go:build unix

package store

import (
	"errors"
	"os"
	"syscall"
)

// openFile is os.OpenFile for a file inside the home. O_NOFOLLOW fails on a
// symbolic link at path (ELOOP) instead of opening what it points to, and
// O_NONBLOCK keeps a FIFO from blocking the open so the caller's fstat can
// refuse it; on a regular file O_NONBLOCK changes nothing.
func openFile(path string, flag int, perm os.FileMode) (*os.File, error) {
	return os.OpenFile(path, flag|syscall.O_NOFOLLOW|syscall.O_NONBLOCK, perm)
}

// isLinkRefused reports whether err is openFile refusing a symbolic link.
func isLinkRefused(err error) bool { return errors.Is(err, syscall.ELOOP) }

// flockNB takes an exclusive flock on f without waiting; held says another
// open file holds it. A signal landing during the call is not a refusal.
func flockNB(f *os.File) (held bool, err error) {
	for {
		err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
		switch {
		case errors.Is(err, syscall.EINTR):
			continue
		case errors.Is(err, syscall.EWOULDBLOCK):
			return true, nil
		}
		return false, err
	}
}

// syncDir fsyncs a folder so a rename or create inside it is durable.
func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	if err := d.Sync(); err != nil {
		_ = d.Close()
		return err
	}
	return d.Close()
}
