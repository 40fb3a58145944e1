package commands

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"sort"
	"strings"

	"trail/core"
	"trail/core/errs"
	"trail/store"
)

// logTarget is a log named on the command line.
type logTarget struct {
	Path string // the log file
	ID   string // the session, when named by id; "" for a path
}

// resolveLog finds the log an argument names, for replay and validate-log:
//
//   - something that looks like a path (a separator, or a .jsonl suffix) is
//     a path;
//   - an id whose log exists is that log, whether or not its record does
//     (a lost or corrupt record is exactly when replay is needed);
//   - otherwise the argument is resolved like every session reference
//     (SPEC 1.2: unique prefix, name), falling back to a unique prefix of
//     the log files, and to a file of that name in the current directory.
func resolveLog(st *store.FS, arg string) (logTarget, error) {
	if looksLikePath(arg) {
		return logTarget{Path: arg}, nil
	}
	if store.ValidateID(arg) == nil {
		if isFile(st.LogPath(arg)) {
			return logTarget{Path: st.LogPath(arg), ID: arg}, nil
		}
	}
	id, err := core.ResolveSession(st, core.SessionRef{Ref: arg})
	if err == nil {
		if !isFile(st.LogPath(id)) {
			return logTarget{}, &errs.NotFoundError{What: fmt.Sprintf("session %s has no log (%s)", id, st.LogPath(id)),
				Fix: "it ran with --no-log, or its log was deleted"}
		}
		return logTarget{Path: st.LogPath(id), ID: id}, nil
	}
	var nf *errs.NotFoundError
	if errors.As(err, &nf) && nf.LogOnly != "" && isFile(st.LogPath(nf.LogOnly)) {
		return logTarget{Path: st.LogPath(nf.LogOnly), ID: nf.LogOnly}, nil // its short id or a prefix
	}
	if !core.IsNotFound(err) {
		return logTarget{}, err // ambiguous, or a store that cannot be read
	}
	if store.ValidateID(arg) == nil && len(arg) >= 4 {
		ids, lerr := logIDsWithPrefix(st, arg)
		if lerr != nil {
			return logTarget{}, lerr
		}
		switch len(ids) {
		case 1:
			return logTarget{Path: st.LogPath(ids[0]), ID: ids[0]}, nil
		case 0:
		default:
			amb := &errs.AmbiguousError{Ref: arg}
			for _, id := range ids {
				amb.Candidates = append(amb.Candidates, errs.Candidate{ID: id, ShortID: id})
			}
			return logTarget{}, amb
		}
	}
	if isFile(arg) {
		return logTarget{Path: arg}, nil
	}
	return logTarget{}, &errs.NotFoundError{What: fmt.Sprintf("no session or log file %s", store.QuoteInput(arg)),
		Fix: "give a session id, a unique prefix, a name, or a path to a .jsonl log"}
}

func looksLikePath(arg string) bool {
	return strings.ContainsAny(arg, `/\`) || strings.HasSuffix(arg, ".jsonl") || arg == "." || arg == ".."
}

func isFile(path string) bool {
	fi, err := os.Stat(path)
	return err == nil && !fi.IsDir()
}

// logIDsWithPrefix lists the sessions whose log file name starts with
// prefix, or whose id's random part does (a short id).
func logIDsWithPrefix(st *store.FS, prefix string) ([]string, error) {
	entries, err := os.ReadDir(st.LogsDir())
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("list logs: %w", err)
	}
	var ids []string
	for _, e := range entries {
		id, ok := strings.CutSuffix(e.Name(), ".jsonl")
		if ok && !e.IsDir() && core.MatchesRef(id, prefix) && store.ValidateID(id) == nil {
			ids = append(ids, id)
		}
	}
	sort.Strings(ids)
	return ids, nil
}

// checkLogFile reports a log path that is not a file: a folder is a usage
// error (replay reads one log), anything missing is not found.
func checkLogFile(path string) error {
	fi, err := os.Stat(path)
	switch {
	case err != nil:
		return logNotFound(path)
	case fi.IsDir():
		return errs.Usagef("give one .jsonl log; validate-log takes folders", "%s is a folder, not a log", path)
	}
	return nil
}

// logNotFound is the error for a log path that does not exist.
func logNotFound(path string) error {
	return &errs.NotFoundError{What: fmt.Sprintf("log %s does not exist", path), Fix: "check the path, or name the session by id"}
}
