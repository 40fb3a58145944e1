package store

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
)

// Load reads and decodes the record for id. A missing record wraps
// ErrNotFound; one that does not parse is a *CorruptError and is left as it
// is. Load takes no lock: a caller that will Save holds Lock first.
//
// The file name is the record's id, as in list: a record copied to a new
// name, or whose "id" member is missing or wrong, loads as id, so that Save
// writes it back to the file it came from and never over another session.
func (s *FS) Load(id string) (*Record, error) {
	if err := ValidateID(id); err != nil {
		return nil, fmt.Errorf("load session: %w", err)
	}
	path := s.RecordPath(id)
	data, err := readRegular(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("load session %s: %w", id, ErrNotFound)
	}
	if err != nil {
		return nil, fmt.Errorf("load session %s: %w", id, err)
	}
	// data is ours: decode in place rather than through Decode's copy.
	if err := checkRecord(data, path); err != nil {
		return nil, fmt.Errorf("load session %s: %w", id, err)
	}
	r, err := decodeValid(data, path)
	if err != nil {
		return nil, fmt.Errorf("load session %s: %w", id, err)
	}
	r.ID = id
	return r, nil
}

// Save atomically writes r to sessions/<r.ID>.json. It does not look at the
// file it replaces: the caller loaded it under the lock, so it is known to
// parse (or not to exist).
func (s *FS) Save(r *Record) error {
	if err := ValidateID(r.ID); err != nil {
		return fmt.Errorf("save session: %w", err)
	}
	if err := s.EnsureLayout(); err != nil {
		return fmt.Errorf("save session %s: %w", r.ID, err)
	}
	if err := writeAtomic(s.RecordPath(r.ID), 0o600, s.heldLock(r.ID), r.encodeTo); err != nil {
		return fmt.Errorf("save session %s: %w", r.ID, err)
	}
	return nil
}

// Exists reports whether a record file exists for id.
func (s *FS) Exists(id string) (bool, error) {
	if err := ValidateID(id); err != nil {
		return false, err
	}
	// Lstat: a link where the record should be is there (and refused by
	// Load), not a free id for a new session to be saved through.
	_, err := os.Lstat(s.RecordPath(id))
	switch {
	case err == nil:
		return true, nil
	case errors.Is(err, fs.ErrNotExist):
		return false, nil
	default:
		return false, fmt.Errorf("stat session %s: %w", id, err)
	}
}
