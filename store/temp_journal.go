package store

// The temp-file journal, sessions/<id>.tmpfiles: the paths of the temp files
// a step's tools create outside the home (a Write beside the file it
// replaces), each written here before the file itself exists. A step killed
// between creating one and renaming it leaves its path here, and the next
// holder of the session lock removes it. Appends and sweeps happen under the
// session lock only.
//
// Format: one JSON string per line (a path may hold a newline). A torn last
// line, the trace of a kill in the middle of an append, is skipped: the
// file it was about to name had not been created yet.

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
)

// TempJournalPath is sessions/<id>.tmpfiles.
func (s *FS) TempJournalPath(id string) string {
	return filepath.Join(s.SessionsDir(), id+".tmpfiles")
}

// maxTempJournal bounds what a sweep reads: a journal is a few lines per
// written file, and a damaged or planted huge one must not fill memory.
const maxTempJournal = 64 << 20

// NoteTempFile appends path to id's journal and makes the line durable
// before returning, so the caller may create the file next.
func (s *FS) NoteTempFile(id, path string) error {
	if err := ValidateID(id); err != nil {
		return fmt.Errorf("journal temp file: %w", err)
	}
	line, err := json.Marshal(path)
	if err != nil {
		return err
	}
	jp := s.TempJournalPath(id)
	// O_NOFOLLOW: a journal replaced by a link must not make trail append
	// to a file elsewhere.
	f, err := openFile(jp, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
	if isLinkRefused(err) {
		return &TempJournalError{Path: jp, Err: errSymlinkJournal}
	}
	if err != nil {
		return fmt.Errorf("journal temp file in %s: %w", jp, err)
	}
	ownerReadWrite(f)
	if err := checkRegular(f, jp); err != nil {
		_ = f.Close()
		return err
	}
	// One write per line: concurrent tools of a round append whole lines.
	if _, err := f.Write(append(line, '\n')); err != nil {
		_ = f.Close()
		return fmt.Errorf("journal temp file in %s: %w", jp, err)
	}
	if err := f.Sync(); err != nil {
		_ = f.Close()
		return fmt.Errorf("journal temp file in %s: %w", jp, err)
	}
	return f.Close()
}

// SweepTempFiles hands every path in id's journal to remove, then deletes
// the journal. remove decides what may go (the store does not know whose
// names these are); its errors are not fatal, since a leftover the user
// can delete is no reason to stop a step. A journal that is a symlink or
// not a regular file is an error naming it, and is left alone.
func (s *FS) SweepTempFiles(id string, remove func(path string)) error {
	if err := ValidateID(id); err != nil {
		return fmt.Errorf("sweep temp files: %w", err)
	}
	jp := s.TempJournalPath(id)
	f, err := openFile(jp, os.O_RDONLY, 0)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil
	case isLinkRefused(err):
		return &TempJournalError{Path: jp, Err: errSymlinkJournal}
	case err != nil:
		return fmt.Errorf("sweep temp files: %w", err)
	}
	if err := checkRegular(f, jp); err != nil {
		_ = f.Close()
		return err
	}
	paths, err := readTempJournal(io.LimitReader(f, maxTempJournal))
	_ = f.Close()
	if err != nil {
		return fmt.Errorf("sweep temp files: read %s: %w", jp, err)
	}
	for _, p := range paths {
		remove(p)
	}
	if err := os.Remove(jp); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("sweep temp files: %w", err)
	}
	return nil
}

// TempJournalError is a journal trail refuses to use: a symlink or a file
// that is not regular is never followed, read or written (exit 7).
type TempJournalError struct {
	Path string
	Err  error
}

func (e *TempJournalError) Error() string {
	return e.Path + ": the temp-file journal " + e.Err.Error()
}
func (e *TempJournalError) Unwrap() error { return e.Err }

// The journal errors read after "the temp-file journal".
var (
	errSymlinkJournal    = errors.New("is a symlink; trail never follows links in its home")
	errNotRegularJournal = errors.New("is not a regular file")
)

func checkRegular(f *os.File, path string) error {
	st, err := f.Stat()
	if err != nil {
		return err
	}
	switch {
	case st.Mode()&fs.ModeSymlink != 0: // Windows opens the link itself
		return &TempJournalError{Path: path, Err: errSymlinkJournal}
	case !st.Mode().IsRegular():
		return &TempJournalError{Path: path, Err: errNotRegularJournal}
	}
	return nil
}

// readTempJournal returns the paths of whole, well-formed lines.
func readTempJournal(r io.Reader) ([]string, error) {
	br := bufio.NewReader(r)
	var paths []string
	for {
		line, err := br.ReadBytes('\n')
		if len(line) > 0 && line[len(line)-1] == '\n' {
			var p string
			if json.Unmarshal(bytes.TrimSpace(line), &p) == nil && p != "" {
				paths = append(paths, p)
			}
		}
		if errors.Is(err, io.EOF) {
			return paths, nil
		}
		if err != nil {
			return paths, err
		}
	}
}
