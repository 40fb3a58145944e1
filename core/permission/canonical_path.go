package permission

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
)

// CanonicalPath resolves the symlinks of the longest existing prefix of p
// and appends the rest, so a file about to be created is judged by where
// its folder really is. The tools confine paths with it and the permission
// rules match with it: both must see the same file.
func CanonicalPath(p string) (string, error) {
	p = filepath.Clean(p)
	var rest []string
	for {
		real, err := filepath.EvalSymlinks(p)
		if err == nil {
			for i := len(rest) - 1; i >= 0; i-- {
				real = filepath.Join(real, rest[i])
			}
			return real, nil
		}
		if !errors.Is(err, fs.ErrNotExist) && !errors.Is(err, os.ErrInvalid) && !errors.Is(err, syscall.ENOTDIR) {
			return "", err
		}
		parent := filepath.Dir(p)
		if parent == p {
			return "", err
		}
		rest = append(rest, filepath.Base(p))
		p = parent
	}
}
