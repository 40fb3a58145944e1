//go:build unix

package tools

import (
	"io/fs"
	"os"
	"syscall"
)

// writable reports why the file at path may not be written by this
// process, as the kernel judges an open for writing (root may write a
// 0444 file, as a shell's > would).
func writable(path string) error {
	if err := syscall.Access(path, 0x2 /* W_OK */); err != nil {
		return &fs.PathError{Op: "write", Path: path, Err: err}
	}
	return nil
}

// ownership is a file's owner, group and number of hard links.
func ownership(fi fs.FileInfo) (uid, gid int, links uint64, ok bool) {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return 0, 0, 0, false
	}
	return int(st.Uid), int(st.Gid), uint64(st.Nlink), true
}

// keepOwner gives the temp file f the owner and group of the file it
// replaces, when they differ from what f got.
func keepOwner(f *os.File, uid, gid int) error {
	fi, err := f.Stat()
	if err != nil {
		return err
	}
	if u, g, _, ok := ownership(fi); ok && u == uid && g == gid {
		return nil
	}
	return f.Chown(uid, gid)
}
