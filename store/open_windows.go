//go:build windows

package store

import (
	"errors"
	"os"

	"golang.org/x/sys/windows"
)

// openFile is os.OpenFile for a file inside the home, made with CreateFile
// for two things os.OpenFile does not offer on Windows:
//
//   - FILE_FLAG_OPEN_REPARSE_POINT opens a symbolic link (or junction) at
//     path itself, never what it points to; the caller's Stat then sees a
//     link and refuses it, as O_NOFOLLOW does on unix.
//   - FILE_SHARE_DELETE lets Delete remove a lock file its owner holds open
//     and Save rename over a record another process is reading, as unix
//     allows; without it both fail with a sharing violation.
//
// Windows has no FIFOs in the file system, so nothing here can block.
func openFile(path string, flag int, _ os.FileMode) (*os.File, error) {
	name, err := windows.UTF16PtrFromString(path)
	if err != nil {
		return nil, &os.PathError{Op: "open", Path: path, Err: err}
	}
	var access uint32
	switch flag & (os.O_RDONLY | os.O_WRONLY | os.O_RDWR) {
	case os.O_RDONLY:
		access = windows.GENERIC_READ
	case os.O_WRONLY:
		access = windows.GENERIC_WRITE
	case os.O_RDWR:
		access = windows.GENERIC_READ | windows.GENERIC_WRITE
	}
	if flag&os.O_APPEND != 0 {
		// Append data only, as syscall.Open does: every write lands at the end.
		access &^= windows.GENERIC_WRITE
		access |= windows.FILE_APPEND_DATA | windows.FILE_WRITE_ATTRIBUTES | windows.SYNCHRONIZE
	}
	var create uint32
	switch {
	case flag&(os.O_CREATE|os.O_EXCL) == os.O_CREATE|os.O_EXCL:
		create = windows.CREATE_NEW
	case flag&os.O_CREATE != 0:
		create = windows.OPEN_ALWAYS
	default:
		create = windows.OPEN_EXISTING
	}
	const share = windows.FILE_SHARE_READ | windows.FILE_SHARE_WRITE | windows.FILE_SHARE_DELETE
	h, err := windows.CreateFile(name, access, share, nil, create,
		windows.FILE_ATTRIBUTE_NORMAL|windows.FILE_FLAG_OPEN_REPARSE_POINT, 0)
	if err != nil {
		return nil, &os.PathError{Op: "open", Path: path, Err: err}
	}
	return os.NewFile(uintptr(h), path), nil
}

// isLinkRefused is always false here: openFile opens a link itself, and the
// caller's check that the file is regular refuses it.
func isLinkRefused(error) bool { return false }

// flockNB locks the whole of f with LockFileEx, exclusively and without
// waiting; held says another handle holds it. Windows drops the lock when
// the handle closes, also when the process dies, as flock does.
func flockNB(f *os.File) (held bool, err error) {
	const all = ^uint32(0)
	err = windows.LockFileEx(windows.Handle(f.Fd()),
		windows.LOCKFILE_EXCLUSIVE_LOCK|windows.LOCKFILE_FAIL_IMMEDIATELY, 0, all, all, new(windows.Overlapped))
	if errors.Is(err, windows.ERROR_LOCK_VIOLATION) || errors.Is(err, windows.ERROR_IO_PENDING) {
		return true, nil
	}
	return false, err
}

// syncDir does nothing: Windows cannot open a folder for FlushFileBuffers,
// and NTFS journals a rename itself (restic's local backend does the same).
func syncDir(string) error { return nil }
