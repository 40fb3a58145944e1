package tools

import (
	"path/filepath"
	"strings"

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
	croot, err := core.CanonicalPath(root)
	if err != nil {
		return false
	}
	ctarget, err := core.CanonicalPath(target)
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
func readDenied(env core.ToolEnv, abs string) bool {
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
