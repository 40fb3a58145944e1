package logfmt

import (
	"bufio"
	"bytes"
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
//   - No line-length cap (bufio.Scanner stops at 64 KiB; a provider_request
//     line of a long conversation is far longer). A line that fits the
//     buffer is returned in place, without a copy; only longer lines are
//     assembled in a side buffer, so memory is bounded by the longest line.
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
	br    *bufio.Reader
	long  []byte // assembles lines longer than the buffer
	num   int    // lines consumed so far
	index int    // non-blank lines returned so far
	done  bool
	// pipe, when set, reads inner in another goroutine (reader_piped.go).
	pipe  *pipe
	inner *Reader
}

// bufPool keeps read buffers between logs: validate-log reads many, and a
// fresh megabyte per log would be most of the cost of a small one.
var bufPool = sync.Pool{New: func() any { return bufio.NewReaderSize(nil, readerBufSize) }}

// NewReader reads the log from r. Release gives its buffer back.
func NewReader(r io.Reader) *Reader {
	br := bufPool.Get().(*bufio.Reader)
	br.Reset(r)
	rd := &Reader{br: br}
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
	if r.br != nil {
		r.br.Reset(nil)
		bufPool.Put(r.br)
		r.br, r.long = nil, nil
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
// The slice points into the read buffer when the line fits in it.
func (r *Reader) readLine() ([]byte, bool, error) {
	b, err := r.br.ReadSlice('\n')
	if err == nil {
		return b[:len(b)-1], true, nil
	}
	if errors.Is(err, bufio.ErrBufferFull) {
		if cap(r.long) > maxKeptLong {
			r.long = nil
		}
		r.long = append(r.long[:0], b...)
		for {
			b, err = r.br.ReadSlice('\n')
			r.long = append(r.long, b...)
			switch {
			case err == nil:
				return r.long[:len(r.long)-1], true, nil
			case errors.Is(err, bufio.ErrBufferFull):
				continue
			case errors.Is(err, io.EOF):
				return r.long, false, nil
			default:
				return nil, false, err
			}
		}
	}
	if errors.Is(err, io.EOF) {
		return b, false, nil
	}
	return nil, false, err
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
