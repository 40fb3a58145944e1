package tools

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strconv"
	"strings"
	"syscall"

	"trail/core/chat"
	"trail/logfmt"
)

const editDescription = "Performs exact string replacements in files.\n\noldString must exactly match the file's current content, including whitespace and indentation — reading the file first (e.g. with a file-read tool) is the reliable way to copy exact text.\n\nThe edit will FAIL if oldString is not unique in the file. Either provide more surrounding context to make it unique, or use replaceAll to change every instance."

// Edit replaces text in a file: exactly one occurrence unless replaceAll.
type Edit struct{}

func (Edit) Schema() chat.ToolSchema {
	return schema("Edit", editDescription,
		param{name: "filePath", typ: "string", desc: "The path of the file to modify, relative to the working directory or absolute", required: true},
		param{name: "oldString", typ: "string", desc: "The text to replace (must be an exact match of existing content)", required: true},
		param{name: "newString", typ: "string", desc: "The text to replace it with (must be different from oldString)", required: true},
		param{name: "replaceAll", typ: "boolean", desc: "Replace all occurrences of oldString (default: false). Useful for renaming variables"},
	)
}

type editArgs struct {
	FilePath   string  `json:"filePath"`
	OldString  *string `json:"oldString"`
	NewString  *string `json:"newString"`
	ReplaceAll bool    `json:"replaceAll"`
}

func (Edit) Run(_ context.Context, raw json.RawMessage, env Env) Result {
	var a editArgs
	if r := decodeArgs("Edit", raw, &a); r != nil {
		return *r
	}
	switch {
	case a.FilePath == "":
		return missing("Edit", "filePath")
	case a.OldString == nil:
		return missing("Edit", "oldString")
	case a.NewString == nil:
		return missing("Edit", "newString")
	case *a.OldString == "":
		return fail("oldString must not be empty: use the Write tool to create a file")
	case *a.OldString == *a.NewString:
		return fail("newString must be different from oldString")
	}
	path, denied := resolvePath(env, a.FilePath)
	if denied != nil {
		return *denied
	}
	target, r := writeTarget(env.Cwd, path, a.FilePath)
	if r != nil {
		return *r
	}
	data, order, r := readForEdit(target, a.FilePath)
	if r != nil {
		return *r
	}
	content, old, repl := string(data), *a.OldString, *a.NewString
	count := strings.Count(content, old)
	if count == 0 && strings.Contains(old, "\n") && strings.Contains(content, "\r\n") {
		// A file with CRLF line ends, text quoted with LF ones (as models
		// write it): match and write in the file's own line ends.
		old, repl = toCRLF(old), toCRLF(repl)
		count = strings.Count(content, old)
	} else if count > 0 && crlfOnly(content) && strings.Contains(repl, "\n") {
		repl = toCRLF(repl) // new lines keep the file's line ends
	}
	at := -1 // where numbered lines say the text is
	if count == 0 && !a.ReplaceAll {
		// Lines copied from Read's output with their numbers ("  12\tfoo"):
		// taken only where those very lines hold the rest, so tab-separated
		// data that merely looks numbered (an id column) is never matched
		// somewhere else.
		if o, from, ok := stripLineNumbers(old); ok {
			if off, ok := lineOffset(content, from); ok && wholeLinesAt(content, off, o) {
				old, at, count = o, off, 1
				if r, rfrom, ok := stripLineNumbers(repl); ok && rfrom == from {
					repl = r
				}
			}
		}
	}
	if count == 0 {
		return fail("oldString not found in file: %s", a.FilePath)
	}
	if count > 1 && !a.ReplaceAll {
		return fail("oldString is not unique in file (found %d occurrences). Provide more context to make it unique, or use replaceAll:true.", count)
	}
	first := strings.Index(content, old)
	if at >= 0 {
		first = at
	}
	var updated string
	if a.ReplaceAll {
		updated = strings.ReplaceAll(content, old, repl)
	} else {
		updated = content[:first] + repl + content[first+len(old):]
		count = 1
	}
	out := []byte(updated)
	if order != nil {
		out = encodeUTF16(updated, order) // as it was
	}
	if err := writeFileAtomic(target, out, env.NoteTemp); err != nil {
		return fail("%s", err.Error())
	}
	res := ok(fmt.Sprintf("Replaced %d occurrence(s) in %s", count, a.FilePath))
	res.Seen = wrote(target, out)
	res.Extra = []ResultField{{Key: "startLine", Value: strings.Count(content[:first], "\n") + 1}}
	res.Response = logfmt.Object{
		logfmt.F("filePath", path),
		logfmt.F("oldString", *a.OldString),
		logfmt.F("newString", *a.NewString),
		logfmt.F("originalFile", content),
		logfmt.F("structuredPatch", structuredPatch(content, updated)),
		logfmt.F("userModified", false),
		logfmt.F("replaceAll", a.ReplaceAll),
	}
	return res
}

// readForEdit reads the file Edit changes, in UTF-8, and the byte order
// of a UTF-16 file (utf16.go). Only a regular file is read: a FIFO would
// block the tool (and the step) until someone writes to it, so it is
// opened without blocking and refused.
func readForEdit(path, shown string) ([]byte, byteOrder, *Result) {
	refuse := func(format string, args ...any) ([]byte, byteOrder, *Result) {
		r := fail(format, args...)
		return nil, nil, &r
	}
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if errors.Is(err, fs.ErrNotExist) {
		return refuse("File not found: %s", shown)
	}
	if err != nil {
		return refuse("%s", err.Error())
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil || !fi.Mode().IsRegular() {
		return refuse("Path is not a file: %s", shown)
	}
	// Read in one piece of the size the file says (plus room to see it grew):
	// io.ReadAll's doubling copied a 45 MB file some twenty times.
	buf := bytes.NewBuffer(make([]byte, 0, fi.Size()+512))
	if _, err = buf.ReadFrom(f); err != nil {
		return refuse("%s", err.Error())
	}
	data := buf.Bytes()
	if order := utf16Order(data); order != nil {
		return decodeUTF16(data, order), order, nil
	}
	if isBinary(data) {
		// as Read refuses it: the model cannot have seen what it would change
		return refuse("Binary file not supported: %s", shown)
	}
	return data, nil, nil
}

// crlfOnly reports whether every line end of s is CRLF.
func crlfOnly(s string) bool {
	n := strings.Count(s, "\n")
	return n > 0 && strings.Count(s, "\r\n") == n
}

// toCRLF turns s's LF line ends into CRLF, leaving CRLF ones as they are.
func toCRLF(s string) string {
	return strings.ReplaceAll(strings.ReplaceAll(s, "\r\n", "\n"), "\n", "\r\n")
}

// stripLineNumbers removes Read's line numbers from text copied from its
// output, and gives the first one; ok is false unless every line carries
// one and they count up one by one.
func stripLineNumbers(text string) (string, int, bool) {
	lines := strings.Split(text, "\n")
	first := 0
	for i, l := range lines {
		n := strings.TrimLeft(l, " ")
		digits := len(n) - len(strings.TrimLeft(n, "0123456789"))
		if digits == 0 || digits >= len(n) || n[digits] != '\t' {
			return text, 0, false
		}
		num, err := strconv.Atoi(n[:digits])
		if err != nil || (i > 0 && num != first+i) {
			return text, 0, false
		}
		if i == 0 {
			first = num
		}
		lines[i] = n[digits+1:]
	}
	return strings.Join(lines, "\n"), first, true
}

// wholeLinesAt reports whether text is whole lines of content from off:
// it ends where a line does, as lines copied from Read's output do (a
// prefix of a numbered line is no copy of it).
func wholeLinesAt(content string, off int, text string) bool {
	if !strings.HasPrefix(content[off:], text) {
		return false
	}
	rest := content[off+len(text):]
	return rest == "" || rest[0] == '\n' || strings.HasPrefix(rest, "\r\n")
}

// lineOffset is the byte offset where line n (1-based) of content starts.
func lineOffset(content string, n int) (int, bool) {
	off := 0
	for line := 1; line < n; line++ {
		i := strings.IndexByte(content[off:], '\n')
		if i < 0 {
			return 0, false
		}
		off += i + 1
	}
	return off, n >= 1
}
