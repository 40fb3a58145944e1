package store

import (
	"errors"
	"fmt"
)

var (
	// ErrInvalidID is wrapped by every error about an id that fails ValidateID.
	ErrInvalidID = errors.New("invalid session id")
	// ErrNotFound is wrapped when no record exists for an id.
	ErrNotFound = errors.New("session not found")
	// ErrLogOnly is why a LogOnly head is Corrupt: the session has a log
	// and no record.
	ErrLogOnly = errors.New("the session has a log but no record")
)

// CorruptError is a record that is not valid JSON, not a JSON object, or
// whose "messages" or "history" is present and not an array. Such a record
// is never rewritten by a normal step (SPEC 3.4).
type CorruptError struct {
	Path   string
	Offset int64 // byte offset of the problem in the file
	Err    error
}

func (e *CorruptError) Error() string {
	return fmt.Sprintf("parse record %s: %v at offset %d", e.Path, e.Err, e.Offset)
}

func (e *CorruptError) Unwrap() error { return e.Err }

// BusyError is a session lock not obtained within the wait.
type BusyError struct{ ID string }

func (e *BusyError) Error() string { return busyWhat(e.ID) + " is busy" }

// Names reports whether the lock is the home's names lock, not a session's.
func (e *BusyError) Names() bool { return e.ID == namesLockID }

// namesLockID is the id the home's names lock is taken under.
const namesLockID = ".names"

// busyWhat names what a lock guards: a session, or the home's names.
func busyWhat(id string) string {
	if id == namesLockID {
		return "the home's names lock"
	}
	return "session " + id
}
