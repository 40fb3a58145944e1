package tools

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"
	"unicode/utf8"

	"trail/core/chat"
	"trail/logfmt"
)

const readDefaultLimit = 2000

const readDescription = "Reads a file from the local filesystem.\n\nBy default, reads up to 2000 lines from the beginning of the file. You can optionally specify offset and limit for partial reads.\n\nResults are returned using cat -n format, with line numbers starting at 1. Lines longer than 2000 characters are cut, and a read stops at the output limit, saying which offset to read on from.\n\nfilePath is relative to the working directory, or absolute.\n\nRead a file before replacing it with Write: Write refuses a file not read, or changed since it was read."

// Read returns a file with line numbers (cat -n style).
type Read struct{}

func (Read) Schema() chat.ToolSchema {
	return schema("Read", readDescription,
		param{name: "filePath", typ: "string", desc: "The path of the file to read, relative to the working directory or absolute", required: true},
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
	head, err := br.Peek(8192)
	order := utf16Order(head)
	if (err == nil || err == io.EOF) && order == nil && isBinary(head) {
		return fail("Binary file not supported: %s", a.FilePath)
	}
	// Only a file small enough to be shown whole (every line, uncut, under
	// the output limit) can get a digest: a big one is not hashed for
	// nothing on every Read. The digest is of the file's bytes, as Write
	// and Edit take theirs.
	rd, sum := br, sha256.New()
	hashed := fi.Size() <= maxOutputChars*utf8.UTFMax
	if hashed || order != nil {
		src := io.Reader(br)
		if hashed {
			src = io.TeeReader(br, sum)
		}
		if order != nil {
			if _, err := io.CopyN(io.Discard, src, 2); err != nil { // the mark
				return fail("%s", err.Error())
			}
			src = newUTF16Reader(src, order)
		}
		rd = bufio.NewReaderSize(src, 64<<10)
	}
	sel, total, err := readLines(rd, start, limit)
	if err != nil {
		return fail("%s", err.Error())
	}
	text, whole := formatRead(a.FilePath, sel, total, start)
	res := ok(text)
	res.Seen = &FileSeen{Path: path, ModTime: fi.ModTime(), Size: fi.Size(), Nothing: len(sel) == 0 && total > 0}
	if real := seen(path); real != nil {
		res.Seen.Path = real.Path
	}
	if whole && hashed {
		res.Seen.SHA256 = hex.EncodeToString(sum.Sum(nil))
	}
	res.Response = logfmt.Object{
		logfmt.F("type", "text"),
		logfmt.F("file", logfmt.Object{
			logfmt.F("filePath", path),
			logfmt.F("content", joinLines(sel)),
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

// maxLineChars is the most of one line Read shows (Claude Code's cut): a
// minified bundle or a one-line dump is one line of megabytes.
const maxLineChars = 2000

// maxLineBytes is what is kept of a line to show maxLineChars of it.
const maxLineBytes = maxLineChars * utf8.UTFMax

// readLine is a line Read shows: its start, and its length in bytes when
// longer than what was kept.
type readLine struct {
	text string
	full int // bytes in the whole line; 0 when text is all of it
}

// readLines returns lines start..start+limit-1 (1-based) and the number of
// lines, keeping only the selected ones in memory, and of each at most
// maxLineBytes: reading the top of a multi-gigabyte log, or a file that is
// one line, must not load all of it. Lines are what splitting on "\n"
// gives, without the empty one after a final newline.
func readLines(br *bufio.Reader, start, limit int) (sel []readLine, total int, err error) {
	var cur []byte
	size := 0
	started := false // the current line has bytes
	for {
		chunk, err := br.ReadSlice('\n')
		keep := total+1 >= start && total+1-start < limit
		if keep && len(cur) < maxLineBytes {
			cur = append(cur, chunk[:min(len(chunk), maxLineBytes-len(cur))]...)
		}
		size += len(chunk)
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
				l := readLine{text: strings.TrimSuffix(string(cur), "\n")}
				if size > len(cur) {
					l.full = size - len(chunk) + len(bytes.TrimSuffix(chunk, []byte("\n")))
				}
				sel = append(sel, l)
			}
			cur, size, started = cur[:0], 0, false
		}
		if err == io.EOF {
			return sel, total, nil
		}
	}
}

// formatRead numbers the lines as cat -n does, each cut at maxLineChars,
// and stops at the last whole line that fits the output limit, saying so
// and where to read on: cut in the middle, the model would get lines it
// is told it has and a fragment without a number.
func formatRead(name string, sel []readLine, total, start int) (text string, whole bool) {
	if len(sel) == 0 && start > 1 && total > 0 {
		return fmt.Sprintf("[File: %s has %d %s; offset %d is past its end]", name, total, plural(total, "line", "lines"), start), false
	}
	whole = start == 1 && len(sel) == total
	width := len(fmt.Sprint(start + len(sel) - 1))
	var body strings.Builder
	chars, shown := 0, 0
	for i, l := range sel {
		line := l.text
		if n := utf8.RuneCountInString(line); n > maxLineChars || l.full > 0 {
			whole = false
			// the whole line's size: in bytes when the rest of it was never
			// read into memory
			size := thousands(n) + " characters"
			if l.full > 0 {
				size = thousands(l.full) + " bytes"
			}
			line = logfmt.RedactCutEnd(firstRunes(line, maxLineChars)) + fmt.Sprintf(" [... line cut at %d characters of %s ...]", maxLineChars, size)
		}
		entry := fmt.Sprintf("%*d\t%s", width, start+i, line)
		if i > 0 && chars+1+utf8.RuneCountInString(entry) > readBudget {
			break
		}
		if i > 0 {
			body.WriteByte('\n')
		}
		body.WriteString(entry)
		chars += 1 + utf8.RuneCountInString(entry)
		shown++
	}
	var b strings.Builder
	switch last := start + shown - 1; {
	case shown < len(sel):
		fmt.Fprintf(&b, "[File: %s (lines %d-%d of %d; the output limit stops here: read on with offset %d)]\n", name, start, last, total, last+1)
	case shown < total:
		fmt.Fprintf(&b, "[File: %s (lines %d-%d of %d)]\n", name, start, last, total)
	default:
		fmt.Fprintf(&b, "[File: %s (%d %s)]\n", name, total, plural(total, "line", "lines"))
	}
	b.WriteString(body.String())
	return b.String(), whole && shown == len(sel)
}

// readBudget is the characters of numbered lines one Read returns, under
// the output limit with room for its header.
const readBudget = maxOutputChars - 500

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// joinLines is the text of the lines read, for hooks' tool_response.
func joinLines(sel []readLine) string {
	texts := make([]string, len(sel))
	for i, l := range sel {
		texts[i] = l.text
	}
	return strings.Join(texts, "\n")
}
