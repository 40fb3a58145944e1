package store

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
)

// writeFileAtomic replaces path with data so that a crash at any instant
// leaves either the old file or the new one (SPEC 3.4): a temp file in the
// same folder (rename is atomic only within one file system), written,
// fsynced and closed, renamed over path, then the folder fsynced so the
// rename itself survives a power cut. The temp file never outlives an
// error; when the process is killed, lk (the session lock, when held) has
// its name, and the next step that takes the lock removes it.
//
// A path that is a symbolic link or not a regular file is refused, never
// replaced: the user's link stays, and nothing outside the home changes.
func writeFileAtomic(path string, data []byte, perm os.FileMode, lk *Lock) error {
	return writeAtomic(path, perm, lk, func(w io.Writer) error {
		_, err := w.Write(data)
		return err
	})
}

// writeAtomic is writeFileAtomic with the content written by write, which
// may fail half-way: the temp file then goes, and path is untouched.
func writeAtomic(path string, perm os.FileMode, lk *Lock, write func(io.Writer) error) (err error) {
	if err := checkReplaceable(path); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	f, tmp, err := createTemp(path, lk)
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	defer func() {
		if err != nil {
			_ = f.Close() // may already be closed; the error is secondary
			_ = os.Remove(tmp)
		}
		_ = lk.noteTemp("") // gone: renamed, or removed just above
	}()
	// createTemp makes 0600 already; chmod anyway in case perm differs.
	if perm != 0o600 {
		if err = f.Chmod(perm); err != nil {
			return fmt.Errorf("write %s: %w", path, err)
		}
	}
	if err = write(f); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err = f.Sync(); err != nil {
		return fmt.Errorf("sync %s: %w", tmp, err)
	}
	if err = f.Close(); err != nil {
		return fmt.Errorf("close %s: %w", tmp, err)
	}
	if err = rename(tmp, path); err != nil {
		return fmt.Errorf("rename %s: %w", tmp, err)
	}
	if err = syncDir(filepath.Dir(path)); err != nil {
		return fmt.Errorf("sync %s: %w", filepath.Dir(path), err)
	}
	return nil
}

// rename is os.Rename; tests replace it to fail a save, or kill the
// process, at the last instant before the record changes.
var rename = os.Rename

// tempInfix joins a file's name and the random digits of its temp files:
// <id>.json.tmp-<digits>, as SPEC 3.4 names them.
const tempInfix = ".tmp-"

// createTemp creates path's temp file, <name>.tmp-<random digits>, 0600,
// failing rather than opening anything already there. The name goes into
// the lock file before the file exists, so a kill at any instant after
// leaves a temp file the next lock holder can find without listing a
// folder of ten thousand sessions.
func createTemp(path string, lk *Lock) (*os.File, string, error) {
	for range 10_000 {
		tmp := path + tempInfix + strconv.FormatUint(uint64(rand.Uint32()), 10)
		if err := lk.noteTemp(filepath.Base(tmp)); err != nil {
			return nil, "", err
		}
		f, err := openFile(tmp, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o600)
		if errors.Is(err, fs.ErrExist) {
			continue
		}
		if err != nil {
			_ = lk.noteTemp("")
			return nil, "", err
		}
		ownerReadWrite(f)
		return f, tmp, nil
	}
	_ = lk.noteTemp("")
	return nil, "", fmt.Errorf("create a temp file for %s: too many name collisions", path)
}
