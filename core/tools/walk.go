package tools

import (
	"io/fs"
	"path/filepath"
)

// skipDir names folders no search descends into (Robota's ignore list).
func skipDir(name string) bool {
	return name == ".git" || name == "node_modules"
}

// walkFiles calls fn for every regular file below root (symlinked folders are
// not followed: a link to / must not turn one search into a disk walk).
// descend, when set, prunes folders by their path relative to root.
func walkFiles(root string, descend func(rel string) bool, fn func(abs, rel string, d fs.DirEntry) error) error {
	return filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if p == root {
				return err
			}
			return nil // unreadable entries are skipped, not fatal
		}
		rel, rerr := filepath.Rel(root, p)
		if rerr != nil {
			return nil
		}
		rel = filepath.ToSlash(rel)
		if d.IsDir() {
			if p == root {
				return nil
			}
			if skipDir(d.Name()) || (descend != nil && !descend(rel)) {
				return filepath.SkipDir
			}
			return nil
		}
		if !d.Type().IsRegular() && d.Type()&fs.ModeSymlink == 0 {
			return nil
		}
		return fn(p, rel, d)
	})
}
