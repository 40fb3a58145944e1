package store

import "path/filepath"

// DirMatcher tells whether a session's cwd is a given folder, however
// either is spelt: a session started through a symlink (/tmp/link) is the
// folder's session from its real path (/tmp/real dir) too, as `pwd -P`,
// Make's $(CURDIR) and CI checkouts mix the two. Equal strings match at
// once; another spelling is resolved once per distinct cwd, so a list of
// ten thousand sessions from a few folders costs a few lookups.
type DirMatcher struct {
	want, real string
	seen       map[string]bool
}

// NewDirMatcher matches the folder dir.
func NewDirMatcher(dir string) *DirMatcher {
	m := &DirMatcher{want: dir, seen: map[string]bool{}}
	if r, err := filepath.EvalSymlinks(dir); err == nil {
		m.real = r
	}
	return m
}

// Match reports whether cwd names the folder.
func (m *DirMatcher) Match(cwd string) bool {
	if cwd == m.want {
		return true
	}
	if m.real == "" || cwd == "" {
		return false
	}
	same, ok := m.seen[cwd]
	if !ok {
		r, err := filepath.EvalSymlinks(cwd)
		same = err == nil && r == m.real
		m.seen[cwd] = same
	}
	return same
}
