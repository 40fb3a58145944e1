package core

// Temp files of the tools in the user's folders. A Write replaces a file
// through a temp file beside it, named tools.TempName(base); a SIGKILL between
// creating it and renaming it would leave it in the user's project for good.
// So the path is journaled under the session lock before the file is
// created (tools.Env.NoteTemp), and whoever takes the lock next removes the
// leftovers (SweepToolTemps). The sweep removes only what the journal names,
// only if its name has the temp form, only a regular file, and only through
// folders that are still no symlinks: a journal line must never delete a
// user's file, nor follow a link planted since.

import (
	"errors"
	"fmt"

	"trail/core/errs"
	"trail/core/tools"
	"trail/store"
)

// SweepToolTemps removes the temp files a killed step's tools left behind
// for session id. The caller holds the session lock.
func SweepToolTemps(st Store, id string) error {
	err := st.SweepTempFiles(id, tools.RemoveLeftover)
	var bad *store.TempJournalError
	if errors.As(err, &bad) {
		return &errs.InvalidDataError{Path: bad.Path, Err: fmt.Errorf("the temp-file journal %w", bad.Err), Fix: "remove it; trail makes a new one when a tool needs it"}
	}
	return err
}

// noteToolTemp journals a tool's temp file for this step's session.
func (s *session) noteToolTemp(path string) error {
	s.notedTemps.Store(true)
	return s.e.Store.NoteTempFile(s.rec.ID, path)
}
