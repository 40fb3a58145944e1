package core

// Temp files of the tools in the user's folders. A Write replaces a file
// through a temp file beside it, named ToolTempName(base); a SIGKILL between
// creating it and renaming it would leave it in the user's project for good.
// So the path is journaled under the session lock before the file is
// created (ToolEnv.NoteTemp), and whoever takes the lock next removes the
// leftovers (SweepToolTemps). The sweep removes only what the journal names,
// only if its name has the temp form, only a regular file, and only through
// folders that are still no symlinks: a journal line must never delete a
// user's file, nor follow a link planted since.

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"strconv"

	"trail/core/errs"
	"trail/store"
)

// maxTempBase keeps ".<base>.tmp-<20 digits>" within a 255-byte file name
// for any base that is itself a valid name.
const maxTempBase = 200

// ToolTempName is a fresh temp file name for replacing the file named base:
// ".<base>.tmp-<random digits>", hidden, and recognisable by the sweep.
func ToolTempName(base string) string {
	if len(base) > maxTempBase {
		base = base[:maxTempBase]
	}
	return "." + base + ".tmp-" + strconv.FormatUint(rand.Uint64(), 10)
}

var toolTempNameRE = regexp.MustCompile(`^\..+\.tmp-[0-9]+$`)

// isToolTempName reports whether name has ToolTempName's form.
func isToolTempName(name string) bool {
	return toolTempNameRE.MatchString(name)
}

// SweepToolTemps removes the temp files a killed step's tools left behind
// for session id. The caller holds the session lock.
func SweepToolTemps(st Store, id string) error {
	err := st.SweepTempFiles(id, removeToolTemp)
	var bad *store.TempJournalError
	if errors.As(err, &bad) {
		return &errs.InvalidDataError{Path: bad.Path, Err: fmt.Errorf("the temp-file journal %w", bad.Err), Fix: "remove it; trail makes a new one when a tool needs it"}
	}
	return err
}

// removeToolTemp removes one journaled temp file if it is still ours.
func removeToolTemp(p string) {
	if !filepath.IsAbs(p) || filepath.Clean(p) != p || !isToolTempName(filepath.Base(p)) {
		return
	}
	// The journal names canonical paths; a folder that resolves elsewhere
	// now was replaced by a link, and a link is not followed.
	dir := filepath.Dir(p)
	if real, err := filepath.EvalSymlinks(dir); err != nil || real != dir {
		return
	}
	if fi, err := os.Lstat(p); err != nil || !fi.Mode().IsRegular() {
		return
	}
	_ = os.Remove(p)
}

// noteToolTemp journals a tool's temp file for this step's session.
func (s *session) noteToolTemp(path string) error {
	s.notedTemps.Store(true)
	return s.e.Store.NoteTempFile(s.rec.ID, path)
}
