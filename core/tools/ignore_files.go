package tools

// Which ignore files apply, and in which order (ripgrep's, from its ignore
// crate):
//
//   - .ignore files in the folder of a path and in every folder above it,
//     up to the file system root; the deepest file with a matching rule
//     decides. They apply in and out of git repositories.
//   - .gitignore files the same way, but only inside a git repository (a
//     folder above holds .git) and only up to the repository's top: a
//     parent project's .gitignore does not reach into a nested repository.
//   - .git/info/exclude of that repository, below every .gitignore.
//
// .ignore rules beat .gitignore rules, which beat the exclude file: a
// "!keep.log" in .ignore searches a file .gitignore ignores. A folder an
// ignore file excludes is not entered, so nothing below it can be
// re-included (as in git). Not read: the global core.excludesFile, .rgignore
// and the exclude file of a worktree whose .git is a file.

import (
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"
)

// maxIgnoreFile bounds what one ignore file may cost: a bigger file is not
// read at all (so it hides nothing), as git skips one over its own limit.
const maxIgnoreFile = 1 << 20

// ignoreLevel is what one folder contributes.
type ignoreLevel struct {
	dir     string // absolute, as the walk spells it
	dot     []ignoreRule
	git     []ignoreRule
	exclude []ignoreRule // .git/info/exclude, when .git is a folder here
	hasGit  bool
}

// ignoreStack is the levels from the file system root down to the folder
// being walked. Appending makes a new stack; a parent's is never changed.
type ignoreStack []*ignoreLevel

// enter returns the stack for dir, a child of the stack's last folder (or
// its first folder). present, when set, says which names dir holds, so a
// walk does not try to open files its listing did not show.
func (st ignoreStack) enter(dir string, present func(name string) bool) ignoreStack {
	has := func(name string) bool { return present == nil || present(name) }
	lv := &ignoreLevel{dir: dir}
	if has(".ignore") {
		lv.dot = readIgnoreFile(filepath.Join(dir, ".ignore"))
	}
	if has(".gitignore") {
		lv.git = readIgnoreFile(filepath.Join(dir, ".gitignore"))
	}
	if has(".git") {
		if fi, err := os.Stat(filepath.Join(dir, ".git")); err == nil {
			lv.hasGit = true
			if fi.IsDir() {
				lv.exclude = readIgnoreFile(filepath.Join(dir, ".git", "info", "exclude"))
			}
		}
	}
	if lv.dot == nil && lv.git == nil && !lv.hasGit {
		// Nothing here: share the parent's stack. The level's dir is not
		// needed, since no rule of it matches anything.
		return st
	}
	return append(st[:len(st):len(st)], lv)
}

// ignoredStart builds the stack for a walk that starts at start, below or
// at root (the search folder): every folder above root contributes its
// files, and each folder from root down to start must itself not be
// ignored. It reports false when one is: the walk finds nothing then.
func ignoredStart(root, start string) (ignoreStack, bool) {
	var above []string
	for d := filepath.Dir(root); ; d = filepath.Dir(d) {
		above = append(above, d)
		if filepath.Dir(d) == d {
			break
		}
	}
	var st ignoreStack
	if root != filepath.Dir(root) {
		for i := len(above) - 1; i >= 0; i-- {
			st = st.enter(above[i], nil)
		}
	}
	rel, err := filepath.Rel(root, start)
	if err != nil || rel == "." {
		return st, true
	}
	dir := root
	for _, name := range strings.Split(filepath.ToSlash(rel), "/") {
		st = st.enter(dir, nil)
		dir = filepath.Join(dir, name)
		if st.ignored(dir, true) {
			return st, false
		}
	}
	return st, true
}

// ignored reports whether the stack's rules exclude abs (a file, or a
// folder when isDir).
func (st ignoreStack) ignored(abs string, isDir bool) bool {
	name := filepath.Base(abs)
	for i := len(st) - 1; i >= 0; i-- {
		if m, ign := matchRules(st[i].dot, st[i].dir, abs, name, isDir); m {
			return ign
		}
	}
	inRepo := false
	for _, lv := range st {
		inRepo = inRepo || lv.hasGit
	}
	if !inRepo {
		return false
	}
	for i := len(st) - 1; i >= 0; i-- {
		if m, ign := matchRules(st[i].git, st[i].dir, abs, name, isDir); m {
			return ign
		}
		if st[i].hasGit {
			m, ign := matchRules(st[i].exclude, st[i].dir, abs, name, isDir)
			return m && ign
		}
	}
	return false
}

// matchRules applies one file's rules to abs: the last rule that matches
// decides. matched is false when none does.
func matchRules(rules []ignoreRule, dir, abs, name string, isDir bool) (matched, ignored bool) {
	if len(rules) == 0 {
		return false, false
	}
	rel, ok := relBelow(dir, abs)
	if !ok {
		return false, false
	}
	for i := len(rules) - 1; i >= 0; i-- {
		if rules[i].match(rel, name, isDir) {
			return true, !rules[i].negate
		}
	}
	return false, false
}

// relBelow is abs relative to dir, "/"-separated, when abs is below dir.
func relBelow(dir, abs string) (string, bool) {
	prefix := dir
	if !strings.HasSuffix(prefix, string(filepath.Separator)) {
		prefix += string(filepath.Separator)
	}
	rel, ok := strings.CutPrefix(abs, prefix)
	if !ok || rel == "" {
		return "", false
	}
	return filepath.ToSlash(rel), true
}

// readIgnoreFile reads and compiles an ignore file; a missing, unreadable,
// oversized or non-regular one has no rules. O_NONBLOCK: a FIFO named
// .gitignore must not hang the search.
func readIgnoreFile(path string) []ignoreRule {
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil || !fi.Mode().IsRegular() || fi.Size() > maxIgnoreFile {
		return nil
	}
	data, err := io.ReadAll(io.LimitReader(f, maxIgnoreFile))
	if err != nil {
		return nil
	}
	return parseIgnore(string(data))
}
