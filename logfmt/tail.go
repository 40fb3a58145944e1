package logfmt

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"strconv"

	"github.com/tidwall/gjson"
)

// Opening a log for append must cost the same for a 1 KB and a 1 GB file,
// so only the end is read: the last complete line's seq says where to go on.
// Only a log without seq (Robota's) is counted through once.
//
// The end of a log can be torn: a process killed mid-write, or a full disk,
// leaves bytes after the last "\n". If those bytes are a whole JSON object
// only the newline is missing and it is added; otherwise they are cut off,
// since appending after them would glue the next line to garbage.

// tailChunk is the first read from the end; lines are small because big
// values live in payload files, so one read nearly always suffices.
const tailChunk = 64 << 10

// recoverTail repairs a torn end of the log open in f (read-write, append)
// and returns the seq of the next line. It reads and cuts through the
// descriptor the writer will append to, never by path again, so what it
// repairs is the file that was checked to be a regular one.
func recoverTail(f *os.File) (int64, error) {
	info, err := f.Stat()
	if err != nil {
		return 0, err
	}
	size := info.Size()
	if size == 0 {
		return 0, nil
	}
	nl, err := lastNewline(f, size)
	if err != nil {
		return 0, fmt.Errorf("read tail: %w", err)
	}
	end := nl + 1 // just past the last complete line
	var last []byte
	if end < size {
		torn := make([]byte, size-end)
		if _, err := f.ReadAt(torn, end); err != nil {
			return 0, fmt.Errorf("read tail: %w", err)
		}
		if isObjectLine(torn) {
			if _, err := f.Write([]byte{'\n'}); err != nil {
				return 0, fmt.Errorf("end last line: %w", err)
			}
			last, end = torn, size+1
		} else if err := f.Truncate(end); err != nil {
			return 0, fmt.Errorf("cut torn line: %w", err)
		}
	}
	if last == nil {
		if last, err = lastLine(f, end); err != nil {
			return 0, fmt.Errorf("read tail: %w", err)
		}
	}
	if last == nil {
		return 0, nil
	}
	if seq, ok := lineSeq(last); ok {
		return seq + 1, nil
	}
	n, err := countLines(io.NewSectionReader(f, 0, end))
	if err != nil {
		return 0, fmt.Errorf("count lines: %w", err)
	}
	return n, nil
}

// isObjectLine reports whether b (a line without its "\n") is one JSON object.
func isObjectLine(b []byte) bool {
	i := skipSpace(b, 0)
	return i < len(b) && b[i] == '{' && gjson.ValidBytes(b)
}

// lineSeq reads a non-negative integer "seq" from a line.
func lineSeq(line []byte) (int64, bool) {
	if !isObjectLine(line) {
		return 0, false
	}
	v := gjson.GetBytes(line, KeySeq)
	if v.Type != gjson.Number {
		return 0, false
	}
	n, err := strconv.ParseInt(v.Raw, 10, 64)
	if err != nil || n < 0 || n == math.MaxInt64 {
		return 0, false
	}
	return n, true
}

// lastNewline returns the offset of the last "\n" in the first size bytes,
// or -1 when there is none.
func lastNewline(r io.ReaderAt, size int64) (int64, error) {
	buf := make([]byte, min(size, tailChunk))
	for pos := size; pos > 0; {
		off := max(0, pos-int64(len(buf)))
		chunk := buf[:pos-off]
		if _, err := r.ReadAt(chunk, off); err != nil {
			return 0, err
		}
		if i := bytes.LastIndexByte(chunk, '\n'); i >= 0 {
			return off + int64(i), nil
		}
		pos = off
	}
	return -1, nil
}

// lastLine returns the last non-blank line among the complete lines in the
// first end bytes (end is 0 or just past a "\n"), without its "\n".
func lastLine(r io.ReaderAt, end int64) ([]byte, error) {
	for chunk := int64(tailChunk); end > 0; chunk *= 2 {
		off := max(0, end-chunk)
		buf := make([]byte, end-off)
		if _, err := r.ReadAt(buf, off); err != nil {
			return nil, err
		}
		// buf[stop-1] is always the "\n" that ends the line being looked at.
		for stop := len(buf); stop > 0; {
			nl := bytes.LastIndexByte(buf[:stop-1], '\n')
			if nl < 0 && off > 0 {
				break // the line starts before this chunk: read more
			}
			if line := buf[nl+1 : stop-1]; !isBlank(line) {
				return line, nil
			}
			stop = nl + 1
		}
		if off == 0 {
			return nil, nil
		}
	}
	return nil, nil
}

// countLines counts the non-blank lines of r, streaming.
func countLines(r io.Reader) (int64, error) {
	buf := make([]byte, 256<<10)
	var n int64
	content := false // the current line has something besides blanks
	for {
		k, err := r.Read(buf)
		chunk := buf[:k]
		for len(chunk) > 0 {
			i := bytes.IndexByte(chunk, '\n')
			seg := chunk
			if i >= 0 {
				seg = chunk[:i]
			}
			content = content || !isBlank(seg)
			if i < 0 {
				break
			}
			if content {
				n++
			}
			content = false
			chunk = chunk[i+1:]
		}
		if errors.Is(err, io.EOF) {
			if content {
				n++
			}
			return n, nil
		}
		if err != nil {
			return n, err
		}
	}
}

func isBlank(b []byte) bool {
	return skipSpace(b, 0) == len(b)
}
