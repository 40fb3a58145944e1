package tools

import (
	"io/fs"
	"os"
	"path/filepath"
)

// skipDir names folders no search descends into (Robota's ignore list),
// whatever the ignore files say.
func skipDir(name string) bool {
	return name == ".git" || name == "node_modules"
}

// walk is one search's traversal of a folder tree.
type walk struct {
	// descend, when set, prunes folders by their path relative to the root.
	descend func(rel string) bool
	// ignore honours .gitignore, .ignore and .git/info/exclude (ignore_files.go).
	ignore bool
	// above is the ignore stack of the root's parent folders (ignoredStart).
	above ignoreStack
	// skipped counts the files and folders ignore files kept out.
	skipped int
	// unreadable are the folders below the root that could not be listed.
	unreadable []string
}

// files calls fn for every regular file below root, and for every symlink
// to a file (fn decides about those); entries come in lexical order, a
// folder's before its subfolders'. Symlinked folders are not followed: a
// link to / must not turn one search into a disk walk. A root that does
// not exist is an error; a root that is not a folder holds no files.
// Unreadable folders below the root are skipped. An error from fn stops the
// walk and is returned.
func (w *walk) files(root string, fn func(abs, rel string, d fs.DirEntry) error) error {
	fi, err := os.Stat(root)
	if err != nil {
		return err
	}
	if !fi.IsDir() {
		return nil
	}
	return w.dir(root, "", w.above, fn)
}

func (w *walk) dir(abs, rel string, st ignoreStack, fn func(abs, rel string, d fs.DirEntry) error) error {
	ents, err := os.ReadDir(abs)
	if err != nil {
		if rel == "" {
			return err
		}
		w.unreadable = append(w.unreadable, abs)
		return nil
	}
	if w.ignore {
		st = st.enter(abs, func(name string) bool { return hasEntry(ents, name) })
	}
	for _, d := range ents {
		p := filepath.Join(abs, d.Name())
		r := d.Name()
		if rel != "" {
			r = rel + "/" + d.Name()
		}
		if d.IsDir() {
			if skipDir(d.Name()) || (w.descend != nil && !w.descend(r)) {
				continue
			}
			if w.ignore && st.ignored(p, true) {
				w.skipped++
				continue
			}
			if err := w.dir(p, r, st, fn); err != nil {
				return err
			}
			continue
		}
		if !d.Type().IsRegular() && d.Type()&fs.ModeSymlink == 0 {
			continue
		}
		if w.ignore && st.ignored(p, false) {
			w.skipped++
			continue
		}
		if err := fn(p, r, d); err != nil {
			return err
		}
	}
	return nil
}

// hasEntry reports whether a sorted listing holds name.
func hasEntry(ents []fs.DirEntry, name string) bool {
	lo, hi := 0, len(ents)
	for lo < hi {
		m := (lo + hi) / 2
		if ents[m].Name() < name {
			lo = m + 1
		} else {
			hi = m
		}
	}
	return lo < len(ents) && ents[lo].Name() == name
}

// noIgnoreHint is added to an empty result when ignore files kept
// something out, so the model knows where else to look.
const noIgnoreHint = " (.gitignore or .ignore rules skipped some paths; set noIgnore to true to search them too)"

// noIgnoreDesc describes the searches' noIgnore parameter.
const noIgnoreDesc = "Also search files that .gitignore and .ignore files exclude (like rg --no-ignore; .git and node_modules stay skipped). Default: false"
