package store

import (
	"bytes"
	"errors"
	"os"
	"syscall"
)

// errNotRegular is what a record path that names a FIFO, a device or a
// folder gives: it is not a record, whatever its name says.
var errNotRegular = errors.New("not a regular file")

// openRegular opens path for reading and refuses anything but a regular
// file. O_NONBLOCK keeps a FIFO that nobody writes to from blocking the
// open (list, resume and migrate would hang on it, and one SIGTERM would not
// end them); on a regular file it changes nothing.
func openRegular(path string) (*os.File, os.FileInfo, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, nil, err
	}
	st, err := f.Stat()
	if err != nil {
		_ = f.Close()
		return nil, nil, err
	}
	if !st.Mode().IsRegular() {
		_ = f.Close()
		return nil, nil, &CorruptError{Path: path, Err: errNotRegular}
	}
	return f, st, nil
}

// readRegular is os.ReadFile through openRegular.
func readRegular(path string) ([]byte, error) {
	f, st, err := openRegular(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var buf bytes.Buffer
	buf.Grow(int(st.Size()) + bytes.MinRead) // one read, and one more to see the end
	if _, err := buf.ReadFrom(f); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}
