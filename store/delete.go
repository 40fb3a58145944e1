package store

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
)

// Delete removes everything trail keeps for id: the log, the payload folder,
// the transcript, the record, the temp-file journal and the lock file. Missing pieces are
// fine; it wraps ErrNotFound when there was no record, log or payload
// folder. The lock file does not count, since a caller holding the lock (as
// it should while deleting) has just created it.
//
// The log and payloads go before the record, and the lock last, so a
// failure half-way leaves a session that is still listed and can be deleted
// again, never an orphaned log hidden from list.
func (s *FS) Delete(id string) error {
	if err := ValidateID(id); err != nil {
		return fmt.Errorf("delete session: %w", err)
	}
	// A link, FIFO or folder where one of the session's files belongs is
	// refused before anything goes: deleting half a session and failing
	// on the rest would leave a record without its log.
	for _, p := range []string{s.RecordPath(id), s.LogPath(id), s.TranscriptPath(id), s.TempJournalPath(id), s.LockPath(id)} {
		if st, err := os.Lstat(p); err == nil && !st.Mode().IsRegular() {
			return fmt.Errorf("delete session %s: %w", id, &NotRegularError{Path: p, Kind: FileKind(st.Mode())})
		}
	}
	found := false
	for _, p := range []struct {
		path     string
		all      bool // a folder
		evidence bool // its presence means the session existed
	}{
		{s.LogPath(id), false, true},
		{s.PayloadDir(id), true, true},
		{s.TranscriptPath(id), false, false},
		{s.RecordPath(id), false, true},
		{s.TempJournalPath(id), false, false},
		{s.LockPath(id), false, false},
	} {
		existed, err := removePath(p.path, p.all)
		if err != nil {
			return fmt.Errorf("delete session %s: %w", id, err)
		}
		found = found || existed && p.evidence
	}
	if !found {
		return fmt.Errorf("delete session %s: %w", id, ErrNotFound)
	}
	return nil
}

func removePath(path string, all bool) (existed bool, err error) {
	if all {
		if _, err := os.Lstat(path); errors.Is(err, fs.ErrNotExist) {
			return false, nil
		}
		return true, os.RemoveAll(path)
	}
	err = os.Remove(path)
	if errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	return err == nil, err
}
