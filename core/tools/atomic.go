package tools

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// writeFileAtomic replaces the file at path (a path writeTarget resolved:
// no symlink in it that exists) with data through a temp file in the same
// folder, so a crash leaves the old file or the new one, never half of it.
// Missing parent folders are created. An existing file keeps its mode (a
// 0755 script stays executable); a new one gets 0644 minus the umask, as
// any editor's new file does.
//
// A file this process may not write is refused, as a shell's > refuses
// it: a new inode renamed over it would make chmod a-w protect nothing.
// The replacement keeps the file's owner and group (root in a container
// editing a bind-mounted project must not leave root's files behind).
// Where a new inode cannot be the same file, the file is written in place
// instead, as editors do (vim's backupcopy=auto): when it has other hard
// links, when its owner cannot be given to the temp file, or when its
// folder takes no new file. In place, a crash mid-write can leave it cut
// short; those files could not be written otherwise.
//
// The temp file is created only after note (when set) has journaled its
// path: a SIGKILL before the rename leaves a file the next step removes.
func writeFileAtomic(path string, data []byte, note func(string) error) (err error) {
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	// The journal names canonical paths (the sweep refuses any that pass
	// through a link), and the rename must land where the check was made.
	if real, err := filepath.EvalSymlinks(dir); err == nil {
		dir = real
	}
	path = filepath.Join(dir, filepath.Base(path))
	defer func() {
		// The model named the file, not the temp file beside it.
		var pe *fs.PathError
		if errors.As(err, &pe) && pe.Path != path && filepath.Dir(pe.Path) == dir {
			err = &fs.PathError{Op: pe.Op, Path: path, Err: pe.Err}
		}
	}()
	perm, existing := fs.FileMode(0o644), false
	uid, gid, owned := 0, 0, false
	if fi, err := os.Lstat(path); err == nil {
		switch {
		case fi.IsDir():
			return errors.New("path is a directory: " + path)
		case !fi.Mode().IsRegular():
			return fmt.Errorf("not a regular file: %s", path)
		}
		perm, existing = fi.Mode().Perm(), true
		if err := writable(path); err != nil {
			return err
		}
		var links uint64
		if uid, gid, links, owned = ownership(fi); owned && links > 1 {
			return writeInPlace(path, data)
		}
	}
	f, tmp, err := createTemp(dir, filepath.Base(path), perm, existing, note)
	if err != nil {
		if existing && errors.Is(err, fs.ErrPermission) {
			return writeInPlace(path, data) // a folder that takes no new file
		}
		return err
	}
	defer func() {
		if err != nil {
			_ = os.Remove(tmp)
		}
	}()
	if _, err = f.Write(data); err != nil {
		f.Close()
		return err
	}
	if existing {
		// Chmod, not the create mode: the umask must not strip bits the
		// file already had.
		if err = f.Chmod(perm); err != nil {
			f.Close()
			return err
		}
		if owned && keepOwner(f, uid, gid) != nil {
			f.Close()
			_ = os.Remove(tmp)
			return writeInPlace(path, data)
		}
	}
	if err = f.Sync(); err != nil {
		f.Close()
		return err
	}
	if err = f.Close(); err != nil {
		return err
	}
	if err = os.Rename(tmp, path); err != nil {
		return err
	}
	syncDir(dir)
	return nil
}

// writeInPlace overwrites an existing file's content, keeping its inode:
// its links, owner and mode stay as they are.
func writeInPlace(path string, data []byte) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_TRUNC, 0)
	if err != nil {
		return err
	}
	if _, err := f.Write(data); err != nil {
		f.Close()
		return err
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// createTemp creates a fresh TempName file in dir, journaled first. A
// new file's temp is created with perm so the umask applies; an existing
// file's is private until chmod-ed to the old mode.
func createTemp(dir, base string, perm fs.FileMode, existing bool, note func(string) error) (*os.File, string, error) {
	create := perm
	if existing {
		create = 0o600
	}
	for range 10 {
		tmp := filepath.Join(dir, TempName(base))
		if note != nil {
			if err := note(tmp); err != nil {
				return nil, "", fmt.Errorf("journal the temp file: %w", err)
			}
		}
		// O_EXCL also fails on a link at tmp (POSIX; Windows opens no link
		// with it), so the new file is never one reached through a link.
		f, err := os.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, create)
		if errors.Is(err, fs.ErrExist) {
			continue
		}
		if err != nil {
			return nil, "", err
		}
		return f, tmp, nil
	}
	return nil, "", errors.New("no free temp file name in " + dir)
}

// syncDir makes the rename durable. Best effort: the data is already
// synced, and a folder that refuses fsync (some network file systems) must
// not fail a write that happened.
func syncDir(dir string) {
	if d, err := os.Open(dir); err == nil {
		_ = d.Sync()
		_ = d.Close()
	}
}
