package store

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
)

// Delete removes everything trail keeps for id: the log, the payload folder,
// the transcript, the temp files a killed save left (trail's and Robota's,
// see delete_leftovers.go), the record, the temp-file journal and the lock
// file. Missing pieces are fine; it wraps ErrNotFound when there was no
// record, log or payload folder. The lock file does not count, since a
// caller holding the lock (as it should while deleting) has just created it.
//
// The log, payloads and leftovers go before the record, and the lock last, so a
// failure half-way leaves a session that is still listed and can be deleted
// again, never an orphaned log hidden from list.
func (s *FS) Delete(id string) error {
	if err := ValidateID(id); err != nil {
		return fmt.Errorf("delete session: %w", err)
	}
	// A link, FIFO or folder where one of the session's files belongs is
	// refused before anything goes: deleting half a session and failing
	// on the rest would leave a record without its log.
	leftovers, err := s.leftoverTemps(id)
	if err != nil {
		return fmt.Errorf("delete session %s: %w", id, err)
	}
	for _, p := range append([]string{s.RecordPath(id), s.LogPath(id), s.TranscriptPath(id), s.TempJournalPath(id), s.LockPath(id)}, leftovers...) {
		if st, err := os.Lstat(p); err == nil && !st.Mode().IsRegular() {
			return fmt.Errorf("delete session %s: %w", id, &NotRegularError{Path: p, Kind: FileKind(st.Mode())})
		}
	}
	type piece struct {
		path     string
		all      bool // a folder
		evidence bool // its presence means the session existed
	}
	pieces := []piece{
		{s.LogPath(id), false, true},
		{s.PayloadDir(id), true, true},
		{s.TranscriptPath(id), false, false},
	}
	for _, p := range leftovers {
		pieces = append(pieces, piece{p, false, false})
	}
	pieces = append(pieces,
		piece{s.RecordPath(id), false, true},
		piece{s.TempJournalPath(id), false, false},
		piece{s.LockPath(id), false, false},
	)
	found := false
	for _, p := range pieces {
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
