package tools

import (
	"context"
	"encoding/json"
	"fmt"

	"trail/core/chat"
)

const writeDescription = "Writes a file to the local filesystem. This will overwrite an existing file if one exists.\n\nPrefer the Edit tool for modifying existing files — it only sends the changed text. Use this tool to create new files or for complete rewrites.\n\nParent directories are created automatically when missing."

// Write creates or replaces a file.
type Write struct{}

func (Write) Schema() chat.ToolSchema {
	return schema("Write", writeDescription,
		param{name: "filePath", typ: "string", desc: "The absolute path to the file to write", required: true},
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
	path, denied := resolvePath(env.Cwd, a.FilePath)
	if denied != nil {
		return *denied
	}
	target, r := writeTarget(env.Cwd, path, a.FilePath)
	if r != nil {
		return *r
	}
	if err := writeFileAtomic(target, []byte(*a.Content), env.NoteTemp); err != nil {
		return fail("%s", err.Error())
	}
	return ok(fmt.Sprintf("Written %d bytes to %s", len(*a.Content), a.FilePath))
}
