//go:build !unix

package logfmt

import (
	"errors"
	"io/fs"
	"os"
)

// openNoFollow opens a payload for reading. Without O_NOFOLLOW the Lstat
// and SameFile checks around it are the only guard.
func openNoFollow(path string) (*os.File, error) {
	return os.Open(path)
}

// openLogNoFollow opens the log read-write for appending. Without
// O_NOFOLLOW, a link is refused by the Lstat before the open and by the
// SameFile check after it.
func openLogNoFollow(path string) (*os.File, bool, error) {
	before, err := os.Lstat(path)
	if err == nil && before.Mode()&fs.ModeSymlink != 0 {
		return nil, false, &NotRegularError{Path: path, Kind: fileKind(before.Mode()), Want: "a regular file"}
	}
	const flags = os.O_RDWR | os.O_APPEND | os.O_CREATE
	f, err := os.OpenFile(path, flags|os.O_EXCL, 0o600)
	created := err == nil
	if errors.Is(err, fs.ErrExist) {
		f, err = os.OpenFile(path, flags, 0o600)
	}
	if err != nil {
		return nil, false, err
	}
	after, lerr := os.Lstat(path)
	st, serr := f.Stat()
	if lerr != nil || serr != nil || !os.SameFile(after, st) {
		_ = f.Close()
		return nil, false, &NotRegularError{Path: path, Kind: "replaced while opened", Want: "a regular file"}
	}
	return f, created, nil
}
