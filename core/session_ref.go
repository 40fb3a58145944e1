package core

import (
	"cmp"
	"errors"
	"fmt"
	"os"
	"sort"
	"strings"
	"unicode"
	"unicode/utf8"

	"trail/core/errs"
	"trail/store"
)

// SessionRef is how a command names a session (SPEC 1.2).
type SessionRef struct {
	Ref    string // full id, unique prefix (>= 4 chars) of the id or of its short id, or exact name
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
	// A name and an id prefix that point at different sessions are as
	// ambiguous as two prefixes: "review" may name one session and start
	// the id "review-2" of another, and taking either silently would step
	// the wrong one.
	var matches []int
	byName := 0
	for i, h := range heads {
		named := h.Name == r // a session whose record is lost or broken has its log's name
		if named {
			byName++
		}
		if named || validID && (h.ID == r || MatchesRef(h.ID, r)) {
			matches = append(matches, i)
		}
	}
	switch len(matches) {
	case 0:
		if validID {
			if _, err := os.Lstat(st.LogPath(r)); err == nil {
				return "", logOnly(r)
			}
		}
		return "", notFound(r)
	case 1:
		if h := heads[matches[0]]; h.LogOnly && !firstStepRunning(st, h.ID) {
			return "", logOnly(h.ID)
		}
		return heads[matches[0]].ID, nil
	}
	return "", ambiguous(r, heads, matches, byName == len(matches))
}

// firstStepRunning reports whether a session with only its log is a first
// step still running (it holds the lock; its record comes with its save):
// the caller then waits for that step as for any other (--wait), rather
// than being told the record is missing. Where the lock table cannot be
// read, the session is taken as a killed step's.
//
// A first step that ended between the listing and this look (an echo step
// takes milliseconds; parallel jobs meet it often) has its record now, and
// counts as running: the caller finds the session saved.
//
// The lock table misses a holder in another PID namespace (a container
// sharing the home): a session that looks killed gets a second look, at
// its lock itself (store.FS.LockHeld).
func firstStepRunning(st Store, id string) bool {
	locks, ok := st.(interface {
		RunningIDs() (map[string]bool, bool)
		LockHeld(id string) bool
	})
	if ok {
		if running, _ := locks.RunningIDs(); running[id] {
			return true
		}
	}
	if saved, err := st.Exists(id); err == nil && saved {
		return true
	}
	return ok && locks.LockHeld(id)
}

// logOnly is the error for a session with a log and no record: a first
// step killed before its first save, or a Robota session whose record is
// gone. The log holds the session.
func logOnly(id string) error {
	return &errs.NotFoundError{What: fmt.Sprintf("session %s has a log but no record", store.QuoteInput(id)), LogOnly: id,
		Fix: "trail replay " + id + " --write-record rebuilds the record from its log (or trail delete " + id + " removes the log)"}
}

// notFound says what was looked for: a reference that cannot be an id
// (UUIDs are hex digits and dashes) is said to be a name.
func notFound(r string) error {
	what := fmt.Sprintf("session %s not found", store.QuoteInput(r))
	if looksLikeID(r) {
		return &errs.NotFoundError{What: what, Fix: "no session's id or short id starts with it, and no session has that name; see trail list"}
	}
	return &errs.NotFoundError{What: what, Fix: fmt.Sprintf("no session is named %s; see trail list (trail run --name NAME names a session)", store.QuoteInput(r))}
}

func looksLikeID(r string) bool {
	for i := 0; i < len(r); i++ {
		c := r[i]
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F' || c == '-') {
			return false
		}
	}
	return len(r) >= minPrefix
}

// ambiguous lists the matching sessions, newest first, with their short
// ids (unique among all the sessions, so the next try works).
func ambiguous(r string, heads []store.Head, matches []int, byName bool) error {
	short := ShortIDs(heads)
	sort.SliceStable(matches, func(a, b int) bool {
		ha, hb := heads[matches[a]], heads[matches[b]]
		if ha.UpdatedAt != hb.UpdatedAt {
			return ha.UpdatedAt > hb.UpdatedAt
		}
		return ha.ID > hb.ID
	})
	e := &errs.AmbiguousError{Ref: r, ByName: byName, Candidates: make([]errs.Candidate, len(matches))}
	for k, i := range matches {
		h := heads[i]
		label := h.Title
		if label == "" {
			label = h.FirstPrompt
		}
		e.Candidates[k] = errs.Candidate{ID: h.ID, ShortID: short[h.ID], Name: h.Name, UpdatedAt: h.UpdatedAt, Label: label}
	}
	return e
}

// checkName refuses a name another session holds (names are unique in a
// home, so a name always names one session), or that would name another
// session by its id: self is the session taking the name. The caller
// holds the home's names lock (claimName), so two steps cannot both pass.
func checkName(st Store, name, self string) error {
	if err := checkNameForm(name); err != nil {
		return err
	}
	heads, err := st.ListHeads()
	if err != nil {
		return err
	}
	short := ShortIDs(heads)
	for _, h := range heads {
		// A session with only its log (a first step running or killed),
		// or a record that does not parse, keeps the name its log gives:
		// its record comes back with it.
		if h.ID == self {
			continue
		}
		if h.Name == name {
			fix := fmt.Sprintf("choose another name, or rename that session first: trail resume %s --name NEW", short[h.ID])
			switch {
			case h.Corrupt && !h.LogOnly:
				fix = fmt.Sprintf("its record does not parse: rebuild it with trail replay %s --write-record, or choose another name", h.ID)
			case h.LogOnly && !firstStepRunning(st, h.ID):
				fix = fmt.Sprintf("it has a log but no record: trail replay %s --write-record rebuilds it, or choose another name", h.ID)
			case h.StopReason == "error":
				// A script retrying `run --name X` after a provider
				// failure meets its own first try: the way on is resume.
				fix = fmt.Sprintf("its last step failed before the answer; to ask again: trail resume %s (no prompt), or choose another name", short[h.ID])
			}
			return errs.Usagef(fix, "the name %s is taken by session %s (%s)", store.QuoteInput(name), short[h.ID], oneLineLabel(h))
		}
		if h.ID == name || store.ValidateID(name) == nil && MatchesRef(h.ID, name) {
			return errs.Usagef("choose a name that is not an id", "the name %s would also name session %s by its id", store.QuoteInput(name), short[h.ID])
		}
	}
	return nil
}

// checkNameForm judges a name by itself, before any file is touched.
func checkNameForm(name string) error {
	if !utf8.ValidString(name) || hidesCharacters(name) || strings.TrimSpace(name) != name {
		// controls, bytes that are no UTF-8 (the record would not be
		// JSON), and the format characters that make one name look like
		// another (bidi overrides, zero-width spaces)
		return errs.Usagef("a name is one line of printable characters", "invalid session name %s", store.QuoteInput(name))
	}
	if strings.HasPrefix(name, "-") {
		// every later use would need "--" before it (trail resume -- -x)
		return errs.Usagef("a name cannot start with -: it would read as an option", "invalid session name %s", store.QuoteInput(name))
	}
	if strings.HasSuffix(name, ".jsonl") {
		// replay and validate-log read such a reference as a log file
		return errs.Usagef("a name cannot end in .jsonl: replay and validate-log would read it as a log file", "invalid session name %s", store.QuoteInput(name))
	}
	if strings.ContainsAny(name, "/\\") || name == "." || name == ".." {
		// ResolveSession refuses a reference that looks like a path
		// before it reads anything: such a name could never be used.
		return errs.Usagef("a name cannot look like a path: no / or \\", "invalid session name %s", store.QuoteInput(name))
	}
	if looksLikeID(name) {
		// every id of this era starts with hex digits: a name such as
		// "01a2" or "beef" would soon also name sessions by their ids
		return errs.Usagef("choose a name that is not an id: one with a letter past f, or a space", "the name %s looks like a session id", store.QuoteInput(name))
	}
	return nil
}

// checkNewID refuses an id a new session would take (--session-id, or a
// log's when it rebuilds a record) that is another session's name, or
// begins one: the name would then name the new session, or no session at
// all (ambiguous).
func checkNewID(st Store, id string) error {
	if strings.HasSuffix(id, ".jsonl") {
		return errs.Usagef("choose an id that does not end in .jsonl: replay and validate-log would read it as a log file", "invalid session id %s", store.QuoteInput(id))
	}
	heads, err := st.ListHeads()
	if err != nil {
		return err
	}
	short := ShortIDs(heads)
	for _, h := range heads {
		if h.ID == id {
			continue
		}
		if h.Name != "" && (h.Name == id || MatchesRef(id, h.Name)) {
			return errs.Usagef("choose another id, or rename that session first: trail resume "+short[h.ID]+" --name NEW",
				"the id %s would take the name %s of session %s", store.QuoteInput(id), store.QuoteInput(h.Name), short[h.ID])
		}
		if short[h.ID] == id || MatchesRef(h.ID, id) {
			// what list and every message showed for that session, or a
			// prefix of its id, would then name the new one. An id that
			// merely begins as another's short id does (ci-run-1002 beside
			// ci-run-1001, short id ci-run) takes nothing: the short ids
			// grow to tell them apart, as for any two ids trail makes.
			return errs.Usagef("choose another id", "the id %s is how session %s is known (its short id, or the start of its id)", store.QuoteInput(id), short[h.ID])
		}
	}
	return nil
}

// hidesCharacters reports a character a name may not hold, as it could
// make one name look like another or like none: a control, a line or
// paragraph separator, a bidi embedding, override, isolate or mark, an
// invisible space, a soft hyphen or a tag character. The zero-width
// joiners U+200C and U+200D are kept only between two characters past
// ASCII, where emoji sequences and Persian or Indic words need them.
func hidesCharacters(name string) bool {
	runes := []rune(name)
	for i, r := range runes {
		switch {
		case unicode.IsControl(r), r == 0x2028, r == 0x2029:
			return true
		case r >= 0x202a && r <= 0x202e, r >= 0x2066 && r <= 0x2069, r == 0x200e, r == 0x200f, r == 0x061c:
			return true
		case r == 0x200b, r == 0x2060, r == 0xfeff, r == 0x180e, r == 0x00ad, r >= 0xe0000 && r <= 0xe007f:
			return true
		case r == 0x200c || r == 0x200d:
			if i == 0 || i == len(runes)-1 || !joins(runes[i-1]) || !joins(runes[i+1]) {
				return true
			}
		case unicode.IsSpace(r) && r != ' ':
			return true // a no-break, thin or ideographic space looks like a space
		}
	}
	return false
}

// joins reports whether a zero-width joiner beside r can change what is
// drawn: beside an emoji or a mark, or a letter of a script whose letters
// join (Arabic, the Indic scripts); beside a Latin, Greek or Cyrillic
// letter, an ASCII character or a space it only hides.
func joins(r rune) bool {
	switch {
	case r < 0x80, unicode.IsSpace(r):
		return false
	case unicode.IsLetter(r):
		return !unicode.In(r, unicode.Latin, unicode.Greek, unicode.Cyrillic)
	}
	return true
}

// oneLineLabel is a session's title or first prompt, short, for messages.
func oneLineLabel(h store.Head) string {
	label := strings.Join(strings.Fields(cmp.Or(h.Title, h.FirstPrompt, "no prompt yet")), " ")
	if r := []rune(label); len(r) > 40 {
		label = string(r[:39]) + "…"
	}
	return store.QuoteInput(label)
}

func resolveLast(st Store, ref SessionRef) (string, error) {
	heads, err := st.ListHeads()
	if err != nil {
		return "", err
	}
	best := -1
	here := store.NewDirMatcher(ref.Cwd)
	// A session with only its log, or a record that does not parse,
	// counts by its log's time and cwd: the newest may be a first step
	// still running (waited for, as by name), one killed before its
	// first save, or a broken record (each said so, with its repair);
	// passing over it sent the prompt to an older conversation without a
	// word.
	for i, h := range heads {
		if !ref.AnyDir && !here.Match(h.Cwd) {
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
	if h := heads[best]; h.LogOnly && !firstStepRunning(st, h.ID) {
		return "", logOnly(h.ID)
	}
	return heads[best].ID, nil
}

// IsNotFound reports whether err means a session or file does not exist.
func IsNotFound(err error) bool {
	var nf *errs.NotFoundError
	return errors.As(err, &nf) || errors.Is(err, store.ErrNotFound)
}
