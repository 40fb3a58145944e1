package store

import (
	"fmt"
	"os"
	"path/filepath"
)

// writeFileAtomic replaces path with data so that a crash at any instant
// leaves either the old file or the new one (SPEC 3.4): a temp file in the
// same folder (rename is atomic only within one file system), written,
// fsynced and closed, renamed over path, then the folder fsynced so the
// rename itself survives a power cut. The temp file never outlives an error.
func writeFileAtomic(path string, data []byte, perm os.FileMode) (err error) {
	dir := filepath.Dir(path)
	f, err := os.CreateTemp(dir, filepath.Base(path)+".tmp-*")
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	tmp := f.Name()
	defer func() {
		if err != nil {
			_ = f.Close() // may already be closed; the error is secondary
			_ = os.Remove(tmp)
		}
	}()
	// CreateTemp makes 0600 already; chmod anyway in case perm differs.
	if perm != 0o600 {
		if err = f.Chmod(perm); err != nil {
			return fmt.Errorf("write %s: %w", path, err)
		}
	}
	if _, err = f.Write(data); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err = f.Sync(); err != nil {
		return fmt.Errorf("sync %s: %w", tmp, err)
	}
	if err = f.Close(); err != nil {
		return fmt.Errorf("close %s: %w", tmp, err)
	}
	if err = os.Rename(tmp, path); err != nil {
		return fmt.Errorf("rename %s: %w", tmp, err)
	}
	if err = syncDir(dir); err != nil {
		return fmt.Errorf("sync %s: %w", dir, err)
	}
	return nil
}

// syncDir fsyncs a folder so a rename or create inside it is durable.
func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	if err := d.Sync(); err != nil {
		_ = d.Close()
		return err
	}
	return d.Close()
}
