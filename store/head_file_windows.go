//go:build windows

package store

import (
	"errors"
	"io"
	"io/fs"
	"os"
)

// headFile is a record opened for list. Windows has no poller cost to
// avoid for a file opened without overlapped I/O, so this is os.File
// through openFile (links opened themselves, deletes shared).
type headFile struct{ f *os.File }

func openHead(path string) (headFile, error) {
	f, err := openFile(path, os.O_RDONLY, 0)
	return headFile{f}, err
}

// readAt fills b from off, returning fewer bytes only at the end of the file.
func (h headFile) readAt(b []byte, off int64) (int, error) {
	n, err := h.f.ReadAt(b, off)
	if errors.Is(err, io.EOF) {
		err = nil
	}
	return n, err
}

func (h headFile) ReadAt(b []byte, off int64) (int, error) { return h.f.ReadAt(b, off) }

func (h headFile) stat() (int64, fs.FileMode, error) {
	st, err := h.f.Stat()
	if err != nil {
		return 0, 0, err
	}
	return st.Size(), st.Mode(), nil
}

func (h headFile) close() { _ = h.f.Close() }

// statFirst: a handle Windows opened on a link is the link itself, so its
// kind is checked before any read.
const statFirst = true
