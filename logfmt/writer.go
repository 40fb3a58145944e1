package logfmt

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// Options configure a Writer.
type Options struct {
	// SessionID goes into every line's envelope and names the payload
	// folder; it must be usable as a file name.
	SessionID string
	// Secrets are exact strings to scrub wherever they appear (the API
	// keys in use, and whatever else the caller knows to be secret).
	// Strings shorter than 8 bytes are ignored.
	Secrets []string
	// Now stamps lines; nil means time.Now.
	Now func() time.Time
	// PayloadThreshold is the compact JSON size, in bytes, above which a
	// value moves to a payload file; 0 or less means 32768.
	PayloadThreshold int
}

// Writer appends lines to one session's log. It is not safe for concurrent
// use: the caller holds the session lock, which also keeps other processes
// from appending in between.
type Writer struct {
	path        string
	f           *os.File
	now         func() time.Time
	sessionJSON []byte // the session id as a JSON string, written on every line
	enc         encoder
	payloads    *payloadStore
	seq         int64
	buf         []byte // scratch for one line, reused so a line costs no allocation
	created     bool   // the file is new: its folder entry needs an fsync
	size        int64  // the file's length after the last line written; -1 once unknown
}

// maxKeptBuffer caps the scratch buffer kept between lines, so one huge
// line does not pin its memory for the rest of the session.
const maxKeptBuffer = 1 << 20

// OpenWriter opens the log at path for appending, creating it (0600, and
// its folder 0700) when missing. It repairs a torn last line and continues
// seq from the last complete line. A log or payload folder that is a
// symbolic link or a special file is a *NotRegularError: nothing is read,
// cut or appended through it.
func OpenWriter(path string, opts Options) (*Writer, error) {
	if err := checkSessionID(opts.SessionID); err != nil {
		return nil, fmt.Errorf("open log %s: %w", path, err)
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return nil, fmt.Errorf("open log %s: create folder: %w", path, err)
	}
	payloads := newPayloadStore(path, opts.SessionID, 0)
	// A payload folder that is a link is refused now, before the log is
	// touched, rather than by the first big value mid-step.
	// A *NotRegularError names its path already.
	if err := checkFolder(payloads.dir); err != nil {
		return nil, err
	}
	f, created, err := openLogFile(path)
	var nr *NotRegularError
	if errors.As(err, &nr) {
		return nil, err
	}
	if err != nil {
		return nil, fmt.Errorf("open log %s: %w", path, err)
	}
	seq, err := recoverTail(f)
	if err != nil {
		_ = f.Close()
		return nil, fmt.Errorf("open log %s: %w", path, err)
	}
	info, err := f.Stat()
	if err != nil {
		_ = f.Close()
		return nil, fmt.Errorf("open log %s: %w", path, err)
	}
	payloads.threshold = opts.PayloadThreshold
	if payloads.threshold <= 0 {
		payloads.threshold = DefaultPayloadThreshold
	}
	now := opts.Now
	if now == nil {
		now = time.Now
	}
	w := &Writer{
		path:        path,
		f:           f,
		now:         now,
		sessionJSON: appendString(nil, opts.SessionID),
		payloads:    payloads,
		seq:         seq,
		buf:         make([]byte, 0, 4096),
		created:     created,
		size:        info.Size(),
	}
	w.enc = encoder{red: newRedactor(opts.Secrets), ext: w.payloads}
	return w, nil
}

// checkSessionID refuses ids that would put the payload folder somewhere
// other than next to the log.
func checkSessionID(id string) error {
	switch {
	case id == "":
		return errors.New("empty session id")
	case id == "." || id == ".." || strings.ContainsAny(id, "/\\\x00"):
		return fmt.Errorf("session id %q is not a file name", id)
	}
	return nil
}

// Log appends one line: the envelope, then fields in order, redacted, with
// big values moved to payload files. The line reaches the file with a single
// write, or not at all.
func (w *Writer) Log(event string, fields ...Field) error {
	if w.f == nil {
		return fmt.Errorf("log %s: %w", event, os.ErrClosed)
	}
	if event == "" {
		return errors.New("log: empty event name")
	}
	line, err := w.appendLine(w.buf[:0], event, fields)
	if cap(line) <= maxKeptBuffer {
		w.buf = line[:0]
	}
	if err != nil {
		return fmt.Errorf("log %s: %w", event, err)
	}
	if n, err := w.f.Write(line); err != nil {
		w.untear(n)
		w.size = -1 // the untear may have failed: only the file knows now
		if pe, ok := err.(*os.PathError); ok {
			err = pe.Err // it names the file again: "write /x.jsonl: write /x.jsonl: ..."
		}
		return fmt.Errorf("log %s: write %s: %w", event, w.path, err)
	}
	w.seq++
	if w.size >= 0 {
		w.size += int64(len(line))
	}
	return nil
}

// Encode returns the compact JSON v would be logged as, secrets scrubbed,
// without moving anything to a payload file: what a replay of the line
// gives back for it. A caller compares what it holds with what the log
// says through it.
func (w *Writer) Encode(v any) ([]byte, error) {
	e := encoder{red: w.enc.red}
	return e.value(nil, v)
}

func (w *Writer) appendLine(dst []byte, event string, fields []Field) ([]byte, error) {
	dst = appendEnvelope(dst, w.now(), w.sessionJSON, event, w.seq)
	// The line's own object is the first level: counted, a line the
	// writer accepts is never one the reader refuses as too deep.
	w.enc.depth = 1
	defer func() { w.enc.depth = 0 }()
	for _, f := range fields {
		if isEnvelopeKey(f.Key) {
			return dst, fmt.Errorf("field %q collides with the envelope", f.Key)
		}
		dst = append(dst, ',')
		dst = appendString(dst, f.Key)
		dst = append(dst, ':')
		var err error
		if dst, err = w.enc.field(dst, f.Key, f.Value); err != nil {
			return dst, fmt.Errorf("field %q: %w", f.Key, err)
		}
	}
	return append(dst, '}', '\n'), nil
}

// untear removes the n bytes of a line that was only partly written (a full
// disk), so the next line does not start in the middle of it. Best effort:
// if it fails, the next OpenWriter cuts the torn line instead.
func (w *Writer) untear(n int) {
	if n <= 0 {
		return
	}
	if info, err := w.f.Stat(); err == nil && info.Size() >= int64(n) {
		_ = w.f.Truncate(info.Size() - int64(n))
	}
}

// NextSeq is the seq the next line will carry.
func (w *Writer) NextSeq() int64 { return w.seq }

// Size is the file's length in bytes after the last line this writer
// wrote (or the repaired length at open), so a reader can later start at
// exactly the next line. It is -1 once a failed write left it unknown.
func (w *Writer) Size() int64 { return w.size }

// Path is the log file's path.
func (w *Writer) Path() string { return w.path }

// Sync makes every line written so far durable, payload files first, so a
// durable line never refers to a payload that could still be lost.
func (w *Writer) Sync() error {
	if w.f == nil {
		return fmt.Errorf("sync log %s: %w", w.path, os.ErrClosed)
	}
	if err := w.payloads.sync(); err != nil {
		return fmt.Errorf("sync log %s: %w", w.path, err)
	}
	if err := w.f.Sync(); err != nil {
		return fmt.Errorf("sync log %s: %w", w.path, err)
	}
	if w.created {
		if err := syncDir(filepath.Dir(w.path)); err != nil {
			return fmt.Errorf("sync log %s: folder: %w", w.path, err)
		}
		w.created = false
	}
	return nil
}

// Close closes the file without syncing it (call Sync first when the
// lines must survive a power cut). Closing twice is not an error.
func (w *Writer) Close() error {
	if w.f == nil {
		return nil
	}
	err := w.f.Close()
	w.f = nil
	if err != nil {
		return fmt.Errorf("close log %s: %w", w.path, err)
	}
	return nil
}
