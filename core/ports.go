package core

import (
	"context"
	"time"

	"trail/logfmt"
	"trail/store"
)

// Store keeps session records (implemented by store.FS).
type Store interface {
	// Load returns the record, store.ErrNotFound, or a *store.CorruptError.
	Load(id string) (*store.Record, error)
	// Save atomically replaces the record.
	Save(r *store.Record) error
	// Exists reports whether a record file exists.
	Exists(id string) (bool, error)
	// Lock takes the session's exclusive lock, waiting up to wait (*store.BusyError after).
	Lock(ctx context.Context, id string, wait time.Duration) (*store.Lock, error)
	// LockNames takes the home's names lock, held while a name is checked
	// and made known (store/names_lock.go).
	LockNames(ctx context.Context, wait time.Duration) (*store.Lock, error)
	// ListHeads returns the header of every record, corrupt ones flagged.
	ListHeads() ([]store.Head, error)
	// NoteTempFile durably journals path, a temp file a tool is about to
	// create outside the home, for the session whose lock the caller holds.
	NoteTempFile(id, path string) error
	// SweepTempFiles hands each journaled path to remove, then forgets them.
	SweepTempFiles(id string, remove func(path string)) error
	// RecordPath and LogPath name a session's files (for hooks and messages).
	RecordPath(id string) string
	LogPath(id string) string
	// TranscriptPath names the session's transcript in Claude Code's
	// format (hooks' transcript_path); WriteTranscript replaces it
	// atomically, AppendTranscript adds whole lines to its end.
	TranscriptPath(id string) string
	WriteTranscript(id string, data []byte) error
	AppendTranscript(id string, data []byte) error
	// AdoptLog copies a log kept outside the home, with its payloads, to
	// the session's log, under the session lock lk.
	AdoptLog(lk *store.Lock, id, src string) error
}

// Logger appends events to one session's JSONL log (implemented by *logfmt.Writer).
type Logger interface {
	// Log appends one line; the data keys are written in order.
	Log(event string, fields ...logfmt.Field) error
	// Sync makes every appended line durable.
	Sync() error
	// NextSeq is the seq of the next line: 0 while the log holds none.
	NextSeq() int64
	// Size is the file's length after the last line appended (or as
	// opened); -1 when a failed write left it unknown.
	Size() int64
	// Path names the file, for reading back what it holds.
	Path() string
	// Encode is the compact JSON v would be logged as (secrets scrubbed),
	// which is what a replay of the log gives back for it.
	Encode(v any) ([]byte, error)
	Close() error
}

// Clock tells the time (injected so goldens never drift).
type Clock interface{ Now() time.Time }

// Terminal asks the person at the keyboard. CanPrompt is false when stdin or
// stderr is not a terminal; Ask is never called then.
type Terminal interface {
	CanPrompt() bool
	// Ask shows question on stderr and returns the trimmed answer line ("" on Enter or end of input).
	Ask(question string) (string, error)
}

// Observer receives the events of a step as they happen, for rendering.
// Event is called on the step's goroutine; it must not block for long.
type Observer interface{ Event(e StepEvent) }

// ObserverFunc adapts a function to Observer.
type ObserverFunc func(StepEvent)

func (f ObserverFunc) Event(e StepEvent) { f(e) }

type nopObserver struct{}

func (nopObserver) Event(StepEvent) {}
