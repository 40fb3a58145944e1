package logfmt

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
)

// What the writer opens inside the home, the log and the payload folder
// with its files, it opens without following a symbolic link, and only
// when it is a regular file (a folder for the payload folder). A link
// there would have trail cut the torn tail of, and append lines to, a file
// outside the home; a FIFO would block the open. The logs folder itself
// may be a link: a user who keeps logs elsewhere does so on purpose.

// NotRegularError is a file of the log that is a symbolic link or not what
// it should be (a FIFO, a device, a folder where a file goes, a file or a
// link where the payload folder goes). The writer neither follows nor
// replaces it.
type NotRegularError struct {
	Path string
	Kind string // what it is: "a symbolic link", "a named pipe", ...
	Want string // what it should be: "a regular file" or "a folder"
}

func (e *NotRegularError) Error() string {
	return fmt.Sprintf("%s is %s, not %s", e.Path, e.Kind, e.Want)
}

func fileKind(m fs.FileMode) string {
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

// openLogFile opens the log at path for reading (the torn-tail repair) and
// appending, creating it 0600 when missing; created says this call made
// it. A link or a special file there is a *NotRegularError.
func openLogFile(path string) (f *os.File, created bool, err error) {
	f, created, err = openLogNoFollow(path)
	if err != nil {
		// ELOOP for a link, EISDIR for a folder, ENXIO for a socket: say
		// what is there rather than the errno.
		if st, lerr := os.Lstat(path); lerr == nil && !st.Mode().IsRegular() {
			return nil, false, &NotRegularError{Path: path, Kind: fileKind(st.Mode()), Want: "a regular file"}
		}
		return nil, false, err
	}
	st, err := f.Stat()
	if err == nil && !st.Mode().IsRegular() {
		err = &NotRegularError{Path: path, Kind: fileKind(st.Mode()), Want: "a regular file"}
	}
	if err != nil {
		_ = f.Close()
		return nil, false, err
	}
	return f, created, nil
}

// checkFolder refuses a payload folder that is a link or not a folder;
// a missing one is fine (it is made when the first payload comes).
func checkFolder(dir string) error {
	st, err := os.Lstat(dir)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil
	case err != nil:
		return err
	case !st.IsDir():
		return &NotRegularError{Path: dir, Kind: fileKind(st.Mode()), Want: "a folder"}
	}
	return nil
}
