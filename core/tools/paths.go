package tools

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"

	"trail/core"
)

// resolvePath turns a path the model gave into an absolute path inside the
// session's working directory. A relative path is relative to cwd. The check
// is made on canonical paths (symlinks resolved), so a link inside the folder
// that points out of it does not lead out.
func resolvePath(cwd, p string) (string, *core.ToolResult) {
	if p == "" {
		r := fail("path is empty")
		return "", &r
	}
	abs := p
	if !filepath.IsAbs(abs) {
		abs = filepath.Join(cwd, abs)
	}
	abs = filepath.Clean(abs)
	if !within(cwd, abs) {
		r := fail("Access denied: %q is outside the working directory", p)
		return "", &r
	}
	return abs, nil
}

// within reports whether target, once symlinks are resolved, is root or below it.
func within(root, target string) bool {
	croot, err := canonical(root)
	if err != nil {
		return false
	}
	ctarget, err := canonical(target)
	if err != nil {
		return false
	}
	rel, err := filepath.Rel(croot, ctarget)
	if err != nil {
		return false
	}
	return rel == "." || (rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)))
}

// canonical resolves the symlinks of the longest existing prefix of p and
// appends the rest, so a file about to be created is judged by where its
// folder really is.
func canonical(p string) (string, error) {
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
		if !errors.Is(err, fs.ErrNotExist) && !errors.Is(err, os.ErrInvalid) && !isNotDir(err) {
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

func isNotDir(err error) bool { return errors.Is(err, syscall.ENOTDIR) }

// display is how a path is shown back to the model: relative to cwd when inside it.
func display(cwd, abs string) string {
	rel, err := filepath.Rel(cwd, abs)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return abs
	}
	return rel
}
