package store

import (
	"bytes"
	"errors"
	"io/fs"
	"os"
)

// Files trail keeps inside its home (records, their temp files, locks,
// backups) are opened without following a symbolic link and only when they
// are regular files. A link there would make trail read, append to or
// replace a file outside the home, and a FIFO would block a read forever.
// The home folder itself and its sessions/ and logs/ folders may be links:
// a user who moves the home elsewhere does so on purpose.

// NotRegularError is a file inside the home that is a symbolic link or not
// a regular file (a FIFO, a device, a socket, a folder). trail neither
// follows it nor replaces it.
type NotRegularError struct {
	Path string
	Kind string // "a symbolic link", "a named pipe", ...
}

func (e *NotRegularError) Error() string {
	return e.Path + " is " + e.Kind + ", not a regular file"
}

// FileKind names what a file mode is, for NotRegularError.
func FileKind(m fs.FileMode) string {
	switch {
	case m&fs.ModeSymlink != 0:
		return "a symbolic link"
	case m.IsDir():
		return "a folder"
	case m&fs.ModeNamedPipe != 0:
		return "a named pipe"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m&fs.ModeDevice != 0:
		return "a device"
	case m.IsRegular():
		return "a regular file"
	}
	return "a special file"
}

// noFollow turns the error of an O_NOFOLLOW open into a NotRegularError
// when what is at path is not a regular file: ELOOP for a link, EISDIR for
// a folder opened to write, ENXIO for a socket. It looks rather than trust
// the errno (ELOOP also comes from a loop in the folders above).
func noFollow(path string, err error) error {
	if st, lerr := os.Lstat(path); lerr == nil && !st.Mode().IsRegular() {
		return &NotRegularError{Path: path, Kind: FileKind(st.Mode())}
	}
	return err
}

// checkReplaceable refuses to rename a file over path when path is there
// and is not a regular file: a rename would drop the user's link (or FIFO)
// and put a file in its place. A missing path is fine.
func checkReplaceable(path string) error {
	st, err := os.Lstat(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil
	case err != nil:
		return err
	case !st.Mode().IsRegular():
		return &NotRegularError{Path: path, Kind: FileKind(st.Mode())}
	}
	return nil
}

// openRegular opens path for reading and refuses anything but a regular
// file. O_NONBLOCK keeps a FIFO that nobody writes to from blocking the
// open (list, resume and migrate would hang on it, and one SIGTERM would not
// end them); on a regular file it changes nothing. O_NOFOLLOW refuses a
// symbolic link instead of reading what it points to.
func openRegular(path string) (*os.File, os.FileInfo, error) {
	f, err := openFile(path, os.O_RDONLY, 0)
	if err != nil {
		return nil, nil, noFollow(path, err)
	}
	return keepRegular(f, path)
}

// keepRegular returns f, open at path, with its stat when it is a regular
// file; anything else is closed and refused.
func keepRegular(f *os.File, path string) (*os.File, os.FileInfo, error) {
	st, err := f.Stat()
	if err != nil {
		_ = f.Close()
		return nil, nil, err
	}
	if !st.Mode().IsRegular() {
		_ = f.Close()
		return nil, nil, &NotRegularError{Path: path, Kind: FileKind(st.Mode())}
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
