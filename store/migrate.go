package store

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/google/uuid"
	"github.com/tidwall/gjson"
)

// MigrateOptions configures MigrateHistory.
type MigrateOptions struct {
	Dir    string        // records folder; SessionsDir when empty
	DryRun bool          // count what would change, write nothing, take no lock
	Backup bool          // keep the original bytes as <id>.json.bak
	Wait   time.Duration // how long to wait for each session's lock
	NewID  func() string // ids for messages without one; UUIDv7 when nil
	// Ctx ends the waits for locks early (a signal); nil never does. Once
	// it is done no further record is touched and MigrateHistory returns
	// its error with the report so far.
	Ctx context.Context
}

// MigrateReport counts the records seen; Migrated+Skipped+Failed == Total.
// Busy counts the failures that are sessions locked by a running step:
// nothing is wrong with them, they can be migrated once it ends.
type MigrateReport struct {
	Migrated, Skipped, Failed, Total, Busy int
	Failures                               []MigrateFailure
}

// MigrateFailure names a record that could not be migrated and why.
type MigrateFailure struct {
	Path string
	Err  error
}

// MigrateHistory fills the history of every record whose history is missing
// or empty and whose messages are not (SPEC 1.10, 8), writing each one
// atomically under its session lock. A record that does not parse, or whose
// file name is not a valid id, is a failure and is not touched. Running it
// again migrates nothing. The error is for a folder that cannot be read.
func (s *FS) MigrateHistory(opts MigrateOptions) (MigrateReport, error) {
	var rep MigrateReport
	dir := opts.Dir
	if dir == "" {
		dir = s.SessionsDir()
	}
	if opts.NewID == nil {
		opts.NewID = newUUID
	}
	if opts.Ctx == nil {
		opts.Ctx = context.Background()
	}
	entries, err := os.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) && opts.Dir == "" {
		return rep, nil // no sessions yet
	}
	if err != nil {
		return rep, fmt.Errorf("migrate history: %w", err)
	}
	for _, e := range entries {
		name := e.Name()
		if !strings.HasSuffix(name, ".json") || e.IsDir() {
			continue
		}
		if err := opts.Ctx.Err(); err != nil {
			return rep, err
		}
		rep.Total++
		path := filepath.Join(dir, name)
		if !e.Type().IsRegular() {
			// A FIFO would block the read, and rewriting a symlink would
			// turn it into a file: neither is a record to migrate.
			rep.Failed++
			rep.Failures = append(rep.Failures, MigrateFailure{Path: path, Err: fmt.Errorf("migrate %s: not a regular file", path)})
			continue
		}
		migrated, err := s.migrateOne(dir, name, opts)
		switch {
		case errors.Is(err, context.Canceled):
			rep.Total--
			return rep, err
		case errors.Is(err, fs.ErrNotExist):
			rep.Skipped++ // deleted since the folder was read: nothing to migrate
		case err != nil:
			rep.Failed++
			rep.Failures = append(rep.Failures, MigrateFailure{Path: path, Err: err})
			if errors.As(err, new(*BusyError)) {
				rep.Busy++
			}
		case migrated:
			rep.Migrated++
		default:
			rep.Skipped++
		}
	}
	return rep, nil
}

func newUUID() string {
	if id, err := uuid.NewV7(); err == nil {
		return id.String()
	}
	return uuid.NewString()
}

// migrateOne migrates one record file. It decides on an unlocked read
// first, so records that need nothing get no lock file (a foreign --dir
// stays as it was), then reads again under the lock, since another process
// may have saved in between.
func (s *FS) migrateOne(dir, name string, opts MigrateOptions) (migrated bool, err error) {
	path := filepath.Join(dir, name)
	id := strings.TrimSuffix(name, ".json")
	if err := ValidateID(id); err != nil {
		return false, fmt.Errorf("migrate %s: %w", path, err)
	}
	if _, _, need, err := readForMigration(path); err != nil || !need || opts.DryRun {
		return need, err
	}
	lk, err := s.lockAt(opts.Ctx, filepath.Join(dir, id+".lock"), id, opts.Wait)
	if err != nil {
		return false, fmt.Errorf("migrate %s: %w", path, err)
	}
	defer func() {
		if uerr := lk.Unlock(); uerr != nil && err == nil {
			err = uerr
		}
	}()
	r, data, need, err := readForMigration(path)
	if err != nil || !need {
		return false, err
	}
	out, err := withHistory(data, buildHistory(r, opts.NewID), path)
	if err != nil {
		return false, fmt.Errorf("migrate %s: %w", path, err)
	}
	if opts.Backup {
		if err := writeFileAtomic(path+".bak", data, 0o600, lk); err != nil {
			return false, fmt.Errorf("migrate %s: backup: %w", path, err)
		}
	}
	if err := writeFileAtomic(path, out, 0o600, lk); err != nil {
		return false, fmt.Errorf("migrate %s: %w", path, err)
	}
	return true, nil
}

// readForMigration reads a record and reports whether it needs a history.
func readForMigration(path string) (r *Record, data []byte, need bool, err error) {
	data, err = readRegular(path)
	if err != nil {
		return nil, nil, false, fmt.Errorf("migrate %s: %w", path, err)
	}
	if r, err = Decode(data, path); err != nil {
		return nil, nil, false, err
	}
	return r, data, len(r.History) == 0 && len(r.Messages) > 0, nil
}

// withHistory returns the record data with hist as its history and every
// other byte as it was: SPEC 1.10 keeps every other field and the key order,
// and a record another program wrote (Robota puts history right after
// messages) must not come back reordered the way Encode would write it. An
// existing history member gets its value replaced in place; a missing one
// is added after messages. data must be a record Decode accepted.
func withHistory(data []byte, hist []json.RawMessage, path string) ([]byte, error) {
	histAt, histEnd, msgsEnd := -1, -1, -1
	walkObject(data, skipSpace(data, 0), func(key string, off int) (int, bool) {
		end := endOfValue(data, off)
		switch key {
		case "history":
			histAt, histEnd = off, end // the last one is the one Decode keeps
		case "messages":
			msgsEnd = end
		}
		return end, true
	})
	arr, err := appendMemberArray(nil, "history", hist, nil)
	if err != nil {
		return nil, err
	}
	var out []byte
	switch {
	case histAt >= 0:
		out = append(append(append(out, data[:histAt]...), arr...), data[histEnd:]...)
	case msgsEnd >= 0:
		out = append(out, data[:msgsEnd]...)
		out = append(out, ",\n  \"history\": "...)
		out = append(append(out, arr...), data[msgsEnd:]...)
	default:
		return nil, errors.New("the record has no messages")
	}
	// Never write what would not load again.
	if _, err := Decode(out, path); err != nil {
		return nil, err
	}
	return out, nil
}

// buildHistory makes one chat entry per message, the same entry replay
// builds: {id, timestamp, category: "chat", type: role, data: message}.
func buildHistory(r *Record, newID func() string) []json.RawMessage {
	updatedAt := json.RawMessage(appendString(nil, r.UpdatedAt))
	if raw, ok := r.Fields.Get("updatedAt"); r.UpdatedAt == "" && ok {
		updatedAt = raw
	}
	out := make([]json.RawMessage, 0, len(r.Messages))
	for _, msg := range r.Messages {
		m := gjson.ParseBytes(msg)
		b := []byte(`{"id":`)
		if id := m.Get("id"); id.Type == gjson.String && id.Str != "" {
			b = append(b, id.Raw...)
		} else {
			b = appendString(b, newID())
		}
		b = append(b, `,"timestamp":`...)
		if ts := m.Get("timestamp"); ts.Type == gjson.String || ts.Type == gjson.Number {
			b = append(b, ts.Raw...)
		} else {
			b = append(b, updatedAt...)
		}
		b = append(b, `,"category":"chat","type":`...)
		if role := m.Get("role"); role.Exists() {
			b = append(b, role.Raw...)
		} else {
			b = append(b, "null"...)
		}
		b = append(b, `,"data":`...)
		b = append(b, msg...)
		out = append(out, append(b, '}'))
	}
	return out
}
