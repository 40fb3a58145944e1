package tools

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"

	"trail/core/chat"
	"trail/logfmt"
)

const readDefaultLimit = 2000

const readDescription = "Reads a file from the local filesystem.\n\nBy default, reads up to 2000 lines from the beginning of the file. You can optionally specify offset and limit for partial reads.\n\nResults are returned using cat -n format, with line numbers starting at 1.\n\nThe file_path parameter must be an absolute path, not a relative path."

// Read returns a file with line numbers (cat -n style).
type Read struct{}

func (Read) Schema() chat.ToolSchema {
	return schema("Read", readDescription,
		param{name: "filePath", typ: "string", desc: "The absolute path to the file to read", required: true},
		param{name: "offset", typ: "number", desc: "The line number to start reading from (1-based). Only provide if the file is too large to read at once"},
		param{name: "limit", typ: "number", desc: fmt.Sprintf("The number of lines to read (default: %d). Only provide if the file is too large to read at once", readDefaultLimit)},
	)
}

type readArgs struct {
	FilePath string   `json:"filePath"`
	Offset   *float64 `json:"offset"`
	Limit    *float64 `json:"limit"`
}

func (Read) Run(_ context.Context, raw json.RawMessage, env Env) Result {
	var a readArgs
	if r := decodeArgs("Read", raw, &a); r != nil {
		return *r
	}
	if a.FilePath == "" {
		return missing("Read", "filePath")
	}
	path, denied := resolvePath(env, a.FilePath)
	if denied != nil {
		return *denied
	}
	fi, err := os.Stat(path)
	if err != nil {
		return fail("File not found: %s", a.FilePath)
	}
	if !fi.Mode().IsRegular() {
		return fail("Path is not a file: %s", a.FilePath)
	}
	f, err := os.Open(path)
	if err != nil {
		return fail("%s", err.Error())
	}
	defer f.Close()
	start, limit := count(a.Offset, 1), count(a.Limit, readDefaultLimit)
	br := bufio.NewReaderSize(f, 64<<10)
	if head, err := br.Peek(8192); (err == nil || err == io.EOF) && isBinary(head) {
		return fail("Binary file not supported: %s", a.FilePath)
	}
	sel, total, err := readLines(br, start, limit)
	if err != nil {
		return fail("%s", err.Error())
	}
	res := ok(formatRead(a.FilePath, sel, total, start))
	res.Seen = &FileSeen{Path: path, ModTime: fi.ModTime(), Size: fi.Size()}
	if real := seen(path); real != nil {
		res.Seen.Path = real.Path
	}
	res.Response = logfmt.Object{
		logfmt.F("type", "text"),
		logfmt.F("file", logfmt.Object{
			logfmt.F("filePath", path),
			logfmt.F("content", strings.Join(sel, "\n")),
			logfmt.F("numLines", len(sel)),
			logfmt.F("startLine", start),
			logfmt.F("totalLines", total),
		}),
	}
	return res
}

// isBinary: a NUL byte in the first 8 KiB (Robota's heuristic).
func isBinary(data []byte) bool {
	return bytes.IndexByte(data[:min(len(data), 8192)], 0) >= 0
}

// readLines returns lines start..start+limit-1 (1-based) and the number of
// lines, keeping only the selected ones in memory: reading the top of a
// multi-gigabyte log must not load all of it. Lines are what splitting on
// "\n" gives, without the empty one after a final newline.
func readLines(br *bufio.Reader, start, limit int) (sel []string, total int, err error) {
	var cur []byte
	started := false // the current line has bytes
	for {
		chunk, err := br.ReadSlice('\n')
		keep := total+1 >= start && total+1-start < limit
		if keep {
			cur = append(cur, chunk...)
		}
		started = started || len(chunk) > 0
		if err == bufio.ErrBufferFull {
			continue
		}
		if err != nil && err != io.EOF {
			return nil, 0, err
		}
		if started {
			total++
			if keep {
				sel = append(sel, strings.TrimSuffix(string(cur), "\n"))
			}
			cur, started = cur[:0], false
		}
		if err == io.EOF {
			return sel, total, nil
		}
	}
}

func formatRead(name string, sel []string, total, start int) string {
	var b strings.Builder
	if len(sel) < total {
		fmt.Fprintf(&b, "[File: %s (lines %d-%d of %d)]\n", name, start, start+len(sel)-1, total)
	} else {
		fmt.Fprintf(&b, "[File: %s (%d lines)]\n", name, total)
	}
	width := len(fmt.Sprint(start + len(sel) - 1))
	for i, line := range sel {
		if i > 0 {
			b.WriteByte('\n')
		}
		fmt.Fprintf(&b, "%*d\t%s", width, start+i, line)
	}
	return b.String()
}
