package core

import (
	"sort"
	"strings"

	"trail/store"
)

// Short ids are what people type. New ids are UUIDv7, whose first twelve
// hex digits are the creation time: sessions made in the same minute share
// their first eight characters, so a prefix is no handle. The last twelve
// hex digits are random (google/uuid puts 62 random bits after the
// variant), so a short id is taken from there, git-abbreviation style: the
// first shortMin characters of that random part, more only when another
// session needs them to tell the two apart, at most shortMax. Robota's ids
// are session_<milliseconds>_<base36 random>: every one starts "session_"
// and then the time, so their random part is the last segment. Any other
// id (--session-id, another program's) has no random part; its short id is
// itself when it has 8 characters or fewer, else taken from its start the
// same way.
//
// A short id must name one session however it is looked up, so it is
// unique against everything ResolveSession matches: the random parts of
// the other sessions, the starts of their full ids, and their names. When shortMax
// characters are not enough (two sessions sharing 32 random bits: about
// one pair in a hundred among 10,000 sessions), the short id is the full
// id, which always resolves.
const (
	shortMin = 6
	shortMax = 8
)

// idTail is the part of an id a short id is taken from: a UUID's last
// twelve hex digits, the random segment of a Robota id, or the whole of
// any other id.
func idTail(id string) string {
	if isUUID(id) {
		return id[24:]
	}
	if t, ok := robotaTail(id); ok {
		return t
	}
	return id
}

// robotaTail is the random end of an id of Robota's shape,
// session_<digits>_<lowercase base36> (woojubb/robota create-session.ts:
// `session_${Date.now()}_${Math.random().toString(36).substr(2, 9)}`).
func robotaTail(id string) (string, bool) {
	rest, ok := strings.CutPrefix(id, "session_")
	if !ok {
		return "", false
	}
	ms, tail, ok := strings.Cut(rest, "_")
	if !ok || ms == "" || tail == "" {
		return "", false
	}
	for i := 0; i < len(ms); i++ {
		if ms[i] < '0' || ms[i] > '9' {
			return "", false
		}
	}
	for i := 0; i < len(tail); i++ {
		if c := tail[i]; !('0' <= c && c <= '9' || 'a' <= c && c <= 'z') {
			return "", false
		}
	}
	return tail, true
}

// isUUID reports the 8-4-4-4-12 hex layout.
func isUUID(id string) bool {
	if len(id) != 36 {
		return false
	}
	for i := 0; i < len(id); i++ {
		c := id[i]
		switch i {
		case 8, 13, 18, 23:
			if c != '-' {
				return false
			}
		default:
			if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F') {
				return false
			}
		}
	}
	return true
}

// ShortIDs gives every session its short id (see above), by id. The cost
// is a sort of twice the ids: list calls it on every run.
func ShortIDs(heads []store.Head) map[string]string {
	type key struct {
		s     string
		owner int
	}
	ids := make([]string, len(heads))
	names := make(map[string]int, len(heads)) // name -> sessions holding it
	for i, h := range heads {
		ids[i] = h.ID
		if h.Name != "" {
			names[h.Name]++
		}
	}
	keys := make([]key, 0, 2*len(ids))
	for i, id := range ids {
		keys = append(keys, key{id, i})
		if t := idTail(id); t != id {
			keys = append(keys, key{t, i})
		}
	}
	sort.Slice(keys, func(a, b int) bool { return keys[a].s < keys[b].s })
	pos := make(map[key]int, len(keys))
	for i, k := range keys {
		pos[k] = i
	}
	out := make(map[string]string, len(ids))
	for i, id := range ids {
		t := idTail(id)
		if t == id && len(id) <= shortMax {
			out[id] = id // it fits whole, and a full id always resolves
			continue
		}
		at := pos[key{t, i}]
		// In sorted order the longest common prefix with another
		// session's key is with the nearest such key on either side.
		need := 0
		for j := at - 1; j >= 0; j-- {
			if keys[j].owner != i {
				need = max(need, commonPrefix(t, keys[j].s))
				break
			}
		}
		for j := at + 1; j < len(keys); j++ {
			if keys[j].owner != i {
				need = max(need, commonPrefix(t, keys[j].s))
				break
			}
		}
		n := max(shortMin, need+1)
		for n <= shortMax && n < len(t) && names[t[:n]]-countName(heads[i].Name, t[:n]) > 0 {
			n++ // another session is named so
		}
		switch {
		case n > shortMax || n >= len(t):
			out[id] = id
		default:
			out[id] = t[:n]
		}
	}
	return out
}

func countName(name, s string) int {
	if name == s {
		return 1
	}
	return 0
}

func commonPrefix(a, b string) int {
	n := min(len(a), len(b))
	for i := 0; i < n; i++ {
		if a[i] != b[i] {
			return i
		}
	}
	return n
}

// MatchesRef reports whether ref (at least minPrefix characters) names id
// by a prefix of the id or of its random part.
func MatchesRef(id, ref string) bool {
	if len(ref) < minPrefix {
		return false
	}
	if strings.HasPrefix(id, ref) {
		return true
	}
	t := idTail(id)
	return t != id && strings.HasPrefix(t, ref)
}
