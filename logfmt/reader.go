package logfmt

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"sync"
)

// The reader is the one way trail reads a log: replay and validate-log both
// sit on it. Rules it keeps:
//
//   - Lines may be far longer than bufio.Scanner's 64 KiB (a provider_request
//     line of a long conversation), up to maxLineLen. A line that fits the
//     buffer is returned in place, without a copy; only longer lines are
//     assembled in a side buffer, so memory is bounded by the longest line.
//     A line over maxLineLen is not assembled: its first bytes are kept
//     and the rest is read through the buffer and dropped up to the next
//     "\n", so a line with no end (a device, a runaway writer) costs
//     maxLineLen at most, never all memory. It comes back marked too long.
//   - Every line is checked with gjson.ValidBytes before any field is read,
//     and its nesting is bounded first: gjson validates recursively and a
//     goroutine stack overflow cannot be recovered.
//   - A last line without "\n" that is not a JSON object is a torn write
//     (a killed process, a full disk): it is returned marked Torn, and the
//     caller warns instead of failing.
//   - Line numbers count every "\n", blank lines included, so they match
//     what an editor shows; Index counts only non-blank lines, like the
//     entry index of Robota's validator.

// readerBufSize is the read buffer: large enough that the syscalls cost
// nothing next to the parsing, small enough to keep RSS low.
const readerBufSize = 1 << 20

// maxKeptLong caps the side buffer kept between long lines.
const maxKeptLong = 8 << 20

// maxLineLen is the longest line read. trail's own lines stay far below
// it (every value over 32 KiB is an external payload), but Robota logs
// every request whole, one line; the providers refuse requests over
// 32 MB, and escaped inside a line those bytes can grow, so twice that
// leaves room for every request a provider took.
const maxLineLen = 64 << 20

// tooLongPrefix is what is kept of a line over the cap: enough to find
// the envelope and keys trail writes first (validate_broken.go).
const tooLongPrefix = 64 << 10

// Line is one non-blank line of a log.
type Line struct {
	Num   int    // 1-based line number in the file
	Index int    // 0-based position among the non-blank lines
	Bytes []byte // the line without "\n"; valid until the next call to Next
	// Object reports that Bytes is exactly one JSON object.
	Object bool
	// Torn reports a last line without "\n" that is not a JSON object.
	Torn bool
	// tooDeep reports that the line nests deeper than maxDepth.
	tooDeep bool
	// mayRef: the line may hold a payload reference (mayHoldRef), found
	// while it was validated.
	mayRef bool
	// tooLong is the length of a line over the reader's cap (lineCap),
	// of which Bytes holds only the start; 0 for every other line.
	tooLong int64
	lineCap int
}

// Problem says why a line is not a JSON object, for reports. It costs a
// parse, so it is only computed on demand.
func (l Line) Problem() string {
	if l.Object {
		return ""
	}
	if l.tooDeep {
		return "nesting deeper than 10000"
	}
	if l.tooLong > 0 {
		return fmt.Sprintf("%d bytes long, over the %d-byte line limit", l.tooLong, l.lineCap)
	}
	var raw json.RawMessage
	err := json.Unmarshal(l.Bytes, &raw)
	var se *json.SyntaxError
	switch {
	case errors.As(err, &se):
		return fmt.Sprintf("%s at offset %d", se.Error(), se.Offset)
	case err != nil:
		return err.Error()
	}
	switch c := l.Bytes[skipSpace(l.Bytes, 0)]; c {
	case '[':
		return "a JSON array, not an object"
	case '"':
		return "a JSON string, not an object"
	default:
		return "a JSON scalar, not an object"
	}
}

// Reader reads a JSONL log line by line.
type Reader struct {
	br      *bufio.Reader
	long    []byte   // assembles lines longer than the buffer
	parts   [][]byte // the pieces of such a line as they are read
	num     int      // lines consumed so far
	index   int      // non-blank lines returned so far
	done    bool
	maxLine int   // the cap on a line's length
	over    int64 // the length of the line just read when over maxLine
	// pump, when set, reads a source that may block (reader_cancel.go).
	pump *pump
	// pipe, when set, reads inner in another goroutine (reader_piped.go).
	pipe  *pipe
	inner *Reader
}

// bufPool keeps read buffers between logs: validate-log reads many, and a
// fresh megabyte per log would be most of the cost of a small one.
var bufPool = sync.Pool{New: func() any { return bufio.NewReaderSize(nil, readerBufSize) }}

// NewReader reads the log from r. Release gives its buffer back.
func NewReader(r io.Reader) *Reader {
	return newReader(nil, r, 0)
}

// newReader reads r under ctx (nil: never stopped; once done, Next
// returns ctx.Err()), lines over maxLine bytes (0: maxLineLen) marked too
// long.
func newReader(ctx context.Context, r io.Reader, maxLine int) *Reader {
	if maxLine <= 0 {
		maxLine = maxLineLen
	}
	src, pump := cancelable(ctx, r)
	br := bufPool.Get().(*bufio.Reader)
	br.Reset(src)
	rd := &Reader{br: br, maxLine: maxLine, pump: pump}
	if piped(r) {
		return &Reader{pipe: startPipe(rd), inner: rd}
	}
	return rd
}

// Release returns the reader's buffer for reuse; the reader and every
// line it returned are unusable afterwards.
func (r *Reader) Release() {
	if r.pipe != nil {
		r.pipe.close()
		r.inner.Release()
		r.pipe, r.inner = nil, nil
		return
	}
	if r.pump != nil {
		r.pump.close()
		r.pump = nil
	}
	if r.br != nil {
		r.br.Reset(nil)
		bufPool.Put(r.br)
		r.br, r.long, r.parts = nil, nil, nil
	}
}

// Next returns the next non-blank line, or io.EOF after the last one.
// Read errors other than the end of input are returned as they are.
func (r *Reader) Next() (Line, error) {
	if r.pipe != nil {
		return r.pipe.nextLine()
	}
	for !r.done {
		b, complete, err := r.readLine()
		if err != nil {
			return Line{}, err
		}
		if len(b) == 0 && !complete {
			r.done = true
			break
		}
		r.num++
		if r.over > 0 {
			l := Line{Num: r.num, Index: r.index, Bytes: b, tooLong: r.over, lineCap: r.maxLine}
			r.index++
			r.done = !complete
			return l, nil
		}
		if isBlank(b) {
			continue
		}
		l := Line{Num: r.num, Index: r.index, Bytes: b}
		r.index++
		l.Object, l.tooDeep, l.mayRef = isJSONObject(b)
		if !complete {
			r.done = true
			l.Torn = !l.Object
			if l.Torn {
				r.index-- // a torn tail is not an entry
			}
		}
		return l, nil
	}
	return Line{}, io.EOF
}

// Entries is the number of non-blank lines returned so far, torn tail not
// counted.
func (r *Reader) Entries() int {
	if r.pipe != nil {
		return r.pipe.entries
	}
	return r.index
}

// readLine returns the next line without its "\n" and whether it had one.
// The slice points into the read buffer when the line fits in it. A line
// over the cap sets r.over and comes back cut to its start.
func (r *Reader) readLine() ([]byte, bool, error) {
	r.over = 0
	b, err := r.br.ReadSlice('\n')
	switch {
	case err == nil:
		return r.capped(b[:len(b)-1]), true, nil
	case errors.Is(err, io.EOF):
		return r.capped(b), false, nil
	case !errors.Is(err, bufio.ErrBufferFull):
		return nil, false, err
	}
	// The pieces are kept apart until the line ends: one over the cap is
	// then dropped having cost the cap, not the growth of one buffer
	// doubling towards it, and one under it is copied once, at its size.
	n := len(b)
	r.parts = append(r.parts[:0], bytes.Clone(b))
	for n <= r.maxLine {
		b, err = r.br.ReadSlice('\n')
		n += len(b)
		r.parts = append(r.parts, bytes.Clone(b))
		switch {
		case err == nil && n-1 > r.maxLine:
			r.over = int64(n - 1)
			return r.lineStart(), true, nil
		case err == nil:
			return r.join(n)[:n-1], true, nil
		case errors.Is(err, io.EOF) && n > r.maxLine:
			r.over = int64(n)
			return r.lineStart(), false, nil
		case errors.Is(err, io.EOF):
			return r.join(n), false, nil
		case !errors.Is(err, bufio.ErrBufferFull):
			r.dropParts()
			return nil, false, err
		}
	}
	return r.skipLine(n)
}

// lineStart is the start of the line in r.parts, kept as the pieces go.
func (r *Reader) lineStart() []byte {
	start := r.parts[0][:min(len(r.parts[0]), tooLongPrefix)]
	r.dropParts()
	return start
}

// join assembles the n bytes of r.parts in r.long.
func (r *Reader) join(n int) []byte {
	if cap(r.long) < n || cap(r.long) > maxKeptLong && n <= maxKeptLong {
		r.long = make([]byte, 0, n)
	}
	r.long = r.long[:0]
	for _, p := range r.parts {
		r.long = append(r.long, p...)
	}
	r.dropParts()
	return r.long
}

// dropParts lets the pieces of a long line go.
func (r *Reader) dropParts() {
	clear(r.parts)
	r.parts = r.parts[:0]
}

// capped returns line, or only its start, r.over set, when it is over the
// cap.
func (r *Reader) capped(line []byte) []byte {
	if len(line) <= r.maxLine {
		return line
	}
	r.over = int64(len(line))
	return line[:min(len(line), tooLongPrefix)]
}

// skipLine drops the rest of a line found over the cap after its first n
// bytes (in r.parts), reading it through the buffer without keeping it,
// and returns the line's start.
func (r *Reader) skipLine(n int) ([]byte, bool, error) {
	start := r.lineStart()
	total := int64(n)
	for {
		b, err := r.br.ReadSlice('\n')
		total += int64(len(b))
		switch {
		case err == nil:
			r.over = total - 1
			return start, true, nil
		case errors.Is(err, bufio.ErrBufferFull):
		case errors.Is(err, io.EOF):
			r.over = total
			return start, false, nil
		default:
			return nil, false, err
		}
	}
}

// isJSONObject reports whether b is one JSON object, whether it was
// refused for nesting too deep, and whether it may hold a payload
// reference. Counting brackets is vectorised and rules out nearly every
// line without the byte-by-byte depth walk.
func isJSONObject(b []byte) (ok, tooDeep, mayRef bool) {
	i := skipSpace(b, 0)
	if i >= len(b) || b[i] != '{' {
		return false, false, false
	}
	if bytes.Count(b, []byte{'{'})+bytes.Count(b, []byte{'['}) > maxDepth && nestingDepth(b) > maxDepth {
		return false, true, false
	}
	ok, mayRef = validLine(b)
	return ok, false, mayRef
}

// FirstSessionID returns the session id of the first line that carries
// one, reading no further.
func FirstSessionID(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	rd := NewReader(f)
	defer rd.Release()
	var e entry
	for {
		l, err := rd.Next()
		if err == io.EOF {
			return "", errors.New("no line carries a session id")
		}
		if err != nil {
			return "", err
		}
		if !l.Object {
			continue
		}
		parseEntry(l.Bytes, &e, 0)
		if isString(e.sessionID) {
			return unquoteToken(e.sessionID), nil
		}
	}
}
