package store

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
)

// AdoptLog copies the log of session id from src, a log kept outside the
// home (a bug report, another machine's logs), to logs/<id>.jsonl, with
// its payload folder (<id>.payloads beside src, the only place payloads
// are read from), so that the home holds the session's history as if its
// own steps had written it: `replay ID` and `validate-log ID` read it, and
// the next step appends to it. Payloads are copied first, so the home's
// log never names a payload the home lacks; only regular files are, each
// written atomically under lk. A log the home already has is an error,
// never replaced.
func (s *FS) AdoptLog(lk *Lock, id, src string) error {
	dst := s.LogPath(id)
	if _, err := os.Lstat(dst); err == nil {
		return fmt.Errorf("the home has a log of session %s already (%s)", id, dst)
	}
	if err := s.EnsureLayout(); err != nil {
		return err
	}
	from := filepath.Join(filepath.Dir(src), id+".payloads")
	entries, err := os.ReadDir(from)
	switch {
	case errors.Is(err, fs.ErrNotExist):
	case err != nil:
		return fmt.Errorf("read %s: %w", from, err)
	default:
		to := filepath.Join(s.LogsDir(), id+".payloads")
		if err := mkdirPrivate(to); err != nil {
			return fmt.Errorf("create %s: %w", to, err)
		}
		for _, e := range entries {
			if e.Type().IsRegular() {
				if err := copyFileAtomic(filepath.Join(from, e.Name()), filepath.Join(to, e.Name()), lk); err != nil {
					return err
				}
			}
		}
	}
	return copyFileAtomic(src, dst, lk)
}

// copyFileAtomic copies src, which must be a regular file (a link to one
// is the user's own way of naming it), to dst.
func copyFileAtomic(src, dst string, lk *Lock) error {
	f, _, err := OpenUserFile(src)
	if err != nil {
		return err
	}
	defer f.Close()
	return writeAtomic(dst, 0o600, lk, func(w io.Writer) error {
		_, err := io.Copy(w, f)
		return err
	})
}

// SameFile reports whether paths a and b name one existing file.
func SameFile(a, b string) bool {
	fa, err := os.Stat(a)
	if err != nil {
		return false
	}
	fb, err := os.Stat(b)
	return err == nil && os.SameFile(fa, fb)
}
