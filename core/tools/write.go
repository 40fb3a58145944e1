package tools

import (
	"context"
	"encoding/json"
	"fmt"
	"os"

	"trail/core/chat"
	"trail/logfmt"
)

const writeDescription = "Writes a file to the local filesystem. This will overwrite an existing file if one exists; an existing file must have been read with the Read tool first, and not changed since.\n\nPrefer the Edit tool for modifying existing files — it only sends the changed text. Use this tool to create new files or for complete rewrites.\n\nParent directories are created automatically when missing."

// Write creates or replaces a file.
type Write struct{}

func (Write) Schema() chat.ToolSchema {
	return schema("Write", writeDescription,
		param{name: "filePath", typ: "string", desc: "The path of the file to write, relative to the working directory or absolute", required: true},
		param{name: "content", typ: "string", desc: "The content to write to the file", required: true},
	)
}

type writeArgs struct {
	FilePath string  `json:"filePath"`
	Content  *string `json:"content"`
}

func (Write) Run(_ context.Context, raw json.RawMessage, env Env) Result {
	var a writeArgs
	if r := decodeArgs("Write", raw, &a); r != nil {
		return *r
	}
	if a.FilePath == "" {
		return missing("Write", "filePath")
	}
	if a.Content == nil {
		return missing("Write", "content")
	}
	path, denied := resolvePath(env, a.FilePath)
	if denied != nil {
		return *denied
	}
	target, r := writeTarget(env.Cwd, path, a.FilePath)
	if r != nil {
		return *r
	}
	if r := checkSeen(env, target); r != nil {
		return *r
	}
	original, existed, whole := previousContent(target)
	out := []byte(*a.Content)
	if order := fileUTF16Order(target); order != nil {
		out = encodeUTF16(*a.Content, order) // a UTF-16 file stays one
	}
	if err := writeFileAtomic(target, out, env.NoteTemp); err != nil {
		return fail("%s", err.Error())
	}
	res := ok(fmt.Sprintf("Written %d bytes to %s", len(*a.Content), a.FilePath))
	res.Seen = wrote(target, out)
	kind := "create"
	var orig any // null for a new file, as Claude Code writes it
	if existed {
		kind, orig = "update", original
	}
	res.Response = logfmt.Object{
		logfmt.F("type", kind),
		logfmt.F("filePath", path),
		logfmt.F("content", *a.Content),
		logfmt.F("structuredPatch", writePatch(original, *a.Content, existed && whole)),
		logfmt.F("originalFile", orig),
		logfmt.F("userModified", false),
		// Claude Code's documentation shows success beside filePath;
		// scripts written from it read .tool_response.success.
		logfmt.F("success", true),
	}
	return res
}

// maxOriginal bounds the earlier content a Write hands to hooks as
// originalFile: a rewrite of a huge file is not read twice for them.
const maxOriginal = 1 << 20

// previousContent is what a Write is about to replace: the text (up to
// maxOriginal bytes, else ""), whether a regular file was there, and
// whether the text is all of it.
func previousContent(path string) (text string, existed, whole bool) {
	fi, err := os.Stat(path)
	if err != nil || !fi.Mode().IsRegular() {
		return "", false, false
	}
	if fi.Size() > maxOriginal {
		return "", true, false
	}
	data, _, failed := readForEdit(path, path)
	if failed != nil {
		return "", true, false
	}
	return string(data), true, true
}

// writePatch is a Write's structuredPatch: the change to the file it
// overwrote, [] for a file it created (Claude Code's shape) or one too big
// to have been read.
func writePatch(before, after string, known bool) []any {
	if !known {
		return []any{}
	}
	return structuredPatch(before, after)
}
