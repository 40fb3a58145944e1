package tools

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"

	"trail/core/permission"
	"trail/store"
)

// resolvePath turns a path the model gave into an absolute path inside one
// of the session's working directories: its cwd, and the folders of
// --add-dir and permissions.additionalDirectories (Env.Dirs). A relative
// path is relative to cwd. The check is made on canonical paths (symlinks
// resolved), so a link inside a folder that points out of it does not lead
// out.
func resolvePath(env Env, p string) (string, *Result) {
	if p == "" {
		r := fail("path is empty")
		return "", &r
	}
	abs := p
	if !filepath.IsAbs(abs) {
		abs = filepath.Join(env.Cwd, abs)
	}
	abs = filepath.Clean(abs)
	if _, err := os.Stat(abs); errors.Is(err, syscall.ELOOP) {
		// not outside: nowhere (a link that leads back to itself)
		r := fail("Too many levels of symbolic links: %s", store.QuoteInput(p))
		return "", &r
	}
	if !env.reaches(abs) {
		r := fail("Access denied: %s is outside the working directories (the session's folder; --add-dir or permissions.additionalDirectories add others)", store.QuoteInput(p))
		return "", &r
	}
	return abs, nil
}

// reaches reports whether abs, once symlinks are resolved, is inside one
// of the working directories.
func (env Env) reaches(abs string) bool {
	if within(env.Cwd, abs) {
		return true
	}
	for _, d := range env.Dirs {
		if within(d, abs) {
			return true
		}
	}
	return false
}

// writeTarget is the file a write to abs (a resolvePath result) changes:
// its canonical path, so a write to a symlink reaches the file the link
// names and the link stays a link. That is also the path the permission
// rules judged. A link to nothing is refused, not followed: where it
// points was never checked (it may name a place outside the working
// directory), and replacing it with a plain file would lose the user's
// link. shown is the path as the model wrote it; cwd is the working directory.
func writeTarget(cwd, abs, shown string) (string, *Result) {
	target, err := permission.CanonicalPath(abs)
	if err != nil {
		r := fail("Cannot resolve %s: %v", shown, err)
		return "", &r
	}
	// CanonicalPath resolved every link that leads somewhere; the first
	// part of target that exists is a link only if it leads nowhere.
	for p := target; ; p = filepath.Dir(p) {
		fi, err := os.Lstat(p)
		if err == nil {
			if fi.Mode()&fs.ModeSymlink != 0 {
				dest, _ := os.Readlink(p)
				if ccwd, err := permission.CanonicalPath(cwd); err == nil {
					p = display(ccwd, p)
				}
				r := fail("Cannot write %s: %s is a symbolic link to %s, which does not exist. Write to the target's path itself, or remove the link first", shown, p, dest)
				return "", &r
			}
			break
		}
		if filepath.Dir(p) == p {
			break
		}
	}
	return target, nil
}

// within reports whether target, once symlinks are resolved, is root or below it.
func within(root, target string) bool {
	croot, err := permission.CanonicalPath(root)
	if err != nil {
		return false
	}
	ctarget, err := permission.CanonicalPath(target)
	if err != nil {
		return false
	}
	rel, err := filepath.Rel(croot, ctarget)
	if err != nil {
		return false
	}
	return rel == "." || (rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)))
}

// readDenied reports whether a Read deny rule keeps the file at abs from
// the model: the searching tools skip it (Claude Code's best effort).
func readDenied(env Env, abs string) bool {
	return env.ReadDenied != nil && env.ReadDenied(abs)
}

// display is how a path is shown back to the model: relative to cwd when inside it.
func display(cwd, abs string) string {
	rel, err := filepath.Rel(cwd, abs)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return abs
	}
	return rel
}
