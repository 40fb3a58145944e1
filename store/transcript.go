package store

// The transcript, transcripts/<id>.jsonl: the session's conversation in
// Claude Code's transcript format, the file hooks get as transcript_path
// (scripts written for Claude Code read it line by line). The engine owns
// its content; the store only places it: replaced atomically, or appended
// to with one write, never through a symbolic link, mode 0600, and removed
// with the session.

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
)

// TranscriptsDir holds <id>.jsonl transcripts.
func (s *FS) TranscriptsDir() string { return filepath.Join(s.Home, "transcripts") }

// TranscriptPath is transcripts/<id>.jsonl.
func (s *FS) TranscriptPath(id string) string {
	return filepath.Join(s.TranscriptsDir(), id+".jsonl")
}

// WriteTranscript replaces id's transcript with data.
func (s *FS) WriteTranscript(id string, data []byte) error {
	if err := ValidateID(id); err != nil {
		return fmt.Errorf("write transcript: %w", err)
	}
	if err := mkdirPrivate(s.TranscriptsDir()); err != nil {
		return fmt.Errorf("create %s: %w", s.TranscriptsDir(), err)
	}
	return writeFileAtomic(s.TranscriptPath(id), data, 0o600, s.heldLock(id))
}

// AppendTranscript adds data (whole lines) to the end of id's transcript.
func (s *FS) AppendTranscript(id string, data []byte) error {
	if err := ValidateID(id); err != nil {
		return fmt.Errorf("append transcript: %w", err)
	}
	p := s.TranscriptPath(id)
	f, err := openFile(p, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return s.WriteTranscript(id, data)
		}
		return fmt.Errorf("append transcript: %w", noFollow(p, err))
	}
	if err := checkRegular(f, p); err != nil {
		_ = f.Close()
		return err
	}
	if _, err := f.Write(data); err != nil {
		_ = f.Close()
		return fmt.Errorf("append transcript %s: %w", p, err)
	}
	return f.Close()
}
