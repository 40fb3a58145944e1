package core

import (
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"

	"trail/core/errs"
	"trail/store"
)

// SessionRef is how a command names a session (SPEC 1.2).
type SessionRef struct {
	Ref    string // full id, unique prefix (>= 4 chars) or exact name
	Last   bool   // most recently updated session of Cwd
	AnyDir bool   // with Last: of any directory
	Cwd    string
}

// minPrefix is the shortest id prefix accepted, like a git hash.
const minPrefix = 4

// ResolveSession turns a reference into a session id. A reference that looks
// like a path is refused before any file is touched.
func ResolveSession(st Store, ref SessionRef) (string, error) {
	if ref.Last {
		return resolveLast(st, ref)
	}
	r := ref.Ref
	if r == "" {
		return "", errs.Usagef("name a session by id, prefix or name, or pass --last", "no session given")
	}
	if strings.ContainsAny(r, "/\\\x00") || r == "." || r == ".." {
		return "", &errs.UsageError{Msg: "invalid session id " + store.QuoteInput(r), Fix: "session ids are letters, digits, '.', '_' and '-'; see trail list"}
	}
	validID := store.ValidateID(r) == nil
	if validID {
		ok, err := st.Exists(r)
		if err != nil {
			return "", err
		}
		if ok {
			return r, nil
		}
	}
	heads, err := st.ListHeads()
	if err != nil {
		return "", err
	}
	var byPrefix, byName []string
	for _, h := range heads {
		if validID && len(r) >= minPrefix && strings.HasPrefix(h.ID, r) {
			byPrefix = append(byPrefix, h.ID)
		}
		if !h.Corrupt && h.Name == r {
			byName = append(byName, h.ID)
		}
	}
	// A name and an id prefix that point at different sessions are as
	// ambiguous as two prefixes: "review" may name one session and start
	// the id "review-2" of another, and taking either silently would step
	// the wrong one.
	matches := byPrefix
	for _, id := range byName {
		if !slices.Contains(matches, id) {
			matches = append(matches, id)
		}
	}
	switch len(matches) {
	case 0:
		return "", &errs.NotFoundError{What: fmt.Sprintf("session %s not found", store.QuoteInput(r)), Fix: "see trail list for the stored sessions"}
	case 1:
		return matches[0], nil
	}
	sort.Strings(matches)
	return "", &errs.AmbiguousError{Ref: r, Candidates: matches}
}

func resolveLast(st Store, ref SessionRef) (string, error) {
	heads, err := st.ListHeads()
	if err != nil {
		return "", err
	}
	best := -1
	for i, h := range heads {
		if h.Corrupt || (!ref.AnyDir && h.Cwd != ref.Cwd) {
			continue
		}
		if best < 0 || h.UpdatedAt > heads[best].UpdatedAt || (h.UpdatedAt == heads[best].UpdatedAt && h.ID > heads[best].ID) {
			best = i
		}
	}
	if best < 0 {
		fix := "pass --any-dir to take the last session of any directory"
		if ref.AnyDir {
			fix = "start one with trail run"
		}
		return "", &errs.NotFoundError{What: "no session found for " + ref.Cwd, Fix: fix}
	}
	return heads[best].ID, nil
}

// IsNotFound reports whether err means a session or file does not exist.
func IsNotFound(err error) bool {
	var nf *errs.NotFoundError
	return errors.As(err, &nf) || errors.Is(err, store.ErrNotFound)
}
