//go:build unix

package store

import (
	"errors"
	"io"
	"io/fs"
	"os"
	"syscall"
)

// headFile is a record opened for list, read with plain system calls.
// os.File would hand the descriptor to the runtime's poller first (an
// epoll_ctl that fails on a regular file, one per record) and wrap every
// read; list opens ten thousand records and reads each once or twice.
type headFile struct {
	fd   int
	path string
}

// openHead opens path as openFile does (no link followed, a FIFO not
// waited for), without the poller. Errors are *os.PathError, as os.Open's.
func openHead(path string) (headFile, error) {
	for {
		fd, err := sysOpen(path, syscall.O_RDONLY|syscall.O_CLOEXEC|syscall.O_NOFOLLOW|syscall.O_NONBLOCK)
		if errors.Is(err, syscall.EINTR) {
			continue
		}
		if err != nil {
			return headFile{}, &os.PathError{Op: "open", Path: path, Err: err}
		}
		return headFile{fd: fd, path: path}, nil
	}
}

// readAt fills b from off, returning fewer bytes only at the end of the
// file (io.EOF is not an error here: n says how much there was). A FIFO or
// a folder fails (ESPIPE, EISDIR); the caller's stat then names it.
func (f headFile) readAt(b []byte, off int64) (int, error) {
	n := 0
	for n < len(b) {
		m, err := sysPread(f.fd, b[n:], off+int64(n))
		if errors.Is(err, syscall.EINTR) {
			continue
		}
		if err != nil {
			return n, &os.PathError{Op: "read", Path: f.path, Err: err}
		}
		if m == 0 {
			break
		}
		n += m
	}
	return n, nil
}

// ReadAt makes headFile an io.ReaderAt for the streaming scan.
func (f headFile) ReadAt(b []byte, off int64) (int, error) {
	n, err := f.readAt(b, off)
	if err == nil && n < len(b) {
		err = io.EOF
	}
	return n, err
}

// stat returns the size and kind of the open file.
func (f headFile) stat() (int64, fs.FileMode, error) {
	var st syscall.Stat_t
	for {
		err := sysFstat(f.fd, &st)
		if errors.Is(err, syscall.EINTR) {
			continue
		}
		if err != nil {
			return 0, 0, &os.PathError{Op: "stat", Path: f.path, Err: err}
		}
		break
	}
	var mode fs.FileMode
	switch st.Mode & syscall.S_IFMT {
	case syscall.S_IFREG:
	case syscall.S_IFDIR:
		mode = fs.ModeDir
	case syscall.S_IFIFO:
		mode = fs.ModeNamedPipe
	case syscall.S_IFLNK:
		mode = fs.ModeSymlink
	case syscall.S_IFSOCK:
		mode = fs.ModeSocket
	case syscall.S_IFCHR:
		mode = fs.ModeDevice | fs.ModeCharDevice
	case syscall.S_IFBLK:
		mode = fs.ModeDevice
	default:
		mode = fs.ModeIrregular
	}
	return st.Size, mode, nil
}

func (f headFile) close() { sysClose(f.fd) }

// statFirst: a read fails on a FIFO or a folder, so a record whose first
// read parses needs no fstat; anything else is checked after.
const statFirst = false
