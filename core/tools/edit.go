package tools

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strings"

	"trail/core"
)

const editDescription = "Performs exact string replacements in files.\n\noldString must exactly match the file's current content, including whitespace and indentation — reading the file first (e.g. with a file-read tool) is the reliable way to copy exact text.\n\nThe edit will FAIL if old_string is not unique in the file. Either provide more surrounding context to make it unique, or use replace_all to change every instance."

// Edit replaces text in a file: exactly one occurrence unless replaceAll.
type Edit struct{}

func (Edit) Schema() core.ToolSchema {
	return schema("Edit", editDescription,
		param{name: "filePath", typ: "string", desc: "The absolute path to the file to modify", required: true},
		param{name: "oldString", typ: "string", desc: "The text to replace (must be an exact match of existing content)", required: true},
		param{name: "newString", typ: "string", desc: "The text to replace it with (must be different from old_string)", required: true},
		param{name: "replaceAll", typ: "boolean", desc: "Replace all occurrences of old_string (default: false). Useful for renaming variables"},
	)
}

type editArgs struct {
	FilePath   string  `json:"filePath"`
	OldString  *string `json:"oldString"`
	NewString  *string `json:"newString"`
	ReplaceAll bool    `json:"replaceAll"`
}

func (Edit) Run(_ context.Context, raw json.RawMessage, env core.ToolEnv) core.ToolResult {
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
	path, denied := resolvePath(env.Cwd, a.FilePath)
	if denied != nil {
		return *denied
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return fail("File not found: %s", a.FilePath)
	}
	content, old, repl := string(data), *a.OldString, *a.NewString
	count := strings.Count(content, old)
	if count == 0 {
		return fail("oldString not found in file: %s", a.FilePath)
	}
	if count > 1 && !a.ReplaceAll {
		return fail("oldString is not unique in file (found %d occurrences). Provide more context to make it unique, or use replaceAll:true.", count)
	}
	first := strings.Index(content, old)
	var updated string
	if a.ReplaceAll {
		updated = strings.ReplaceAll(content, old, repl)
	} else {
		updated = content[:first] + repl + content[first+len(old):]
		count = 1
	}
	if err := writeFileAtomic(path, []byte(updated)); err != nil {
		return fail("%s", err.Error())
	}
	r := ok(fmt.Sprintf("Replaced %d occurrence(s) in %s", count, a.FilePath))
	r.Extra = []core.ToolResultField{{Key: "startLine", Value: strings.Count(content[:first], "\n") + 1}}
	return r
}
