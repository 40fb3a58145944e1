package core

import (
	"encoding/json"
	"path/filepath"
	"strconv"
	"sync"
	"time"

	"github.com/tidwall/gjson"

	"trail/core/chat"
	"trail/core/permission"
	"trail/core/tools"
	"trail/logfmt"
)

// A file the model read or wrote is kept with that call's result, in the
// tool message's metadata ({"file": {"path", "mtimeNs", "size"}}), so a
// Write in a later step, after a pause or a resume, still knows what the
// model saw (tools.FileSeen). A compaction drops those messages, and with
// them what was seen: the model reads a file again before replacing it.

// fileSeenMetadata is the metadata of a tool message whose call saw f.
func fileSeenMetadata(f *tools.FileSeen) json.RawMessage {
	file := logfmt.Object{logfmt.F("path", f.Path)}
	if f.Nothing {
		file = append(file, logfmt.F("sawNothing", true))
	} else {
		file = append(file, logfmt.F("mtimeNs", strconv.FormatInt(f.ModTime.UnixNano(), 10)), logfmt.F("size", f.Size))
		if f.SHA256 != "" {
			file = append(file, logfmt.F("sha256", f.SHA256))
		}
	}
	b, err := logfmt.Marshal(logfmt.Object{logfmt.F("file", file)})
	if err != nil {
		return nil
	}
	return b
}

// roundSeen holds what the calls of the round running saw, before their
// results join the conversation: a Write after a Read or a Write of the
// same file in one turn.
type roundSeen struct {
	mu    sync.Mutex
	files map[string]tools.FileSeen
}

func (r *roundSeen) note(f *tools.FileSeen) {
	if f == nil || f.Nothing {
		return // a call that showed nothing changes nothing seen
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.files == nil {
		r.files = make(map[string]tools.FileSeen)
	}
	r.files[f.Path] = *f
}

func (r *roundSeen) get(path string) (tools.FileSeen, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	f, ok := r.files[path]
	return f, ok
}

// lastSeen is how the latest call that saw the file at path saw it: one of
// the round running, else the conversation's latest. A call that showed
// none of the file counts for nothing. A call whose result keeps no record
// (a session imported from another agent, or written by an older trail)
// that read or wrote the file gives only the time of that call.
func (s *session) lastSeen(round *roundSeen, path string) (tools.FileSeen, bool) {
	if f, ok := round.get(path); ok {
		return f, true
	}
	var calls map[string]chat.ToolCall // by id, built at the first record-less result
	for i := len(s.messages) - 1; i >= 0; i-- {
		m := &s.messages[i]
		if m.Role != chat.RoleTool {
			continue
		}
		f := gjson.GetBytes(m.Metadata, "file")
		if !f.Exists() && m.Name != "" && m.Name != "Read" && m.Name != "Edit" && m.Name != "Write" {
			continue // a Bash or Grep result: no file seen
		}
		if !f.Exists() {
			if calls == nil {
				calls = s.toolCallsByID()
			}
			if c, ok := calls[m.ToolCallID]; ok && s.namesFile(c, path) && succeeded(m.Content) {
				// when the call was made is all that is known of it
				at, _ := time.Parse(time.RFC3339Nano, m.Timestamp)
				return tools.FileSeen{Path: path, Unknown: true, ModTime: at}, true
			}
			continue
		}
		if f.Get("path").Str != path || f.Get("sawNothing").Bool() {
			continue
		}
		ns, err := strconv.ParseInt(f.Get("mtimeNs").Str, 10, 64)
		if err != nil {
			return tools.FileSeen{}, false
		}
		return tools.FileSeen{Path: path, ModTime: time.Unix(0, ns), Size: f.Get("size").Int(), SHA256: f.Get("sha256").Str}, true
	}
	return tools.FileSeen{}, false
}

func (s *session) toolCallsByID() map[string]chat.ToolCall {
	calls := make(map[string]chat.ToolCall)
	for i := range s.messages {
		for _, c := range s.messages[i].ToolCalls {
			calls[c.ID] = c
		}
	}
	return calls
}

// namesFile reports whether a Read, Edit or Write call named the file at
// the canonical path, in Robota's name or Claude's.
func (s *session) namesFile(c chat.ToolCall, path string) bool {
	switch c.Name {
	case "Read", "Edit", "Write":
	default:
		return false
	}
	args := gjson.Parse(c.Arguments)
	p := args.Get("filePath").Str
	if p == "" {
		p = args.Get("file_path").Str
	}
	if p == "" {
		return false
	}
	if !filepath.IsAbs(p) {
		p = filepath.Join(s.rec.Cwd, p)
	}
	real, err := permission.CanonicalPath(p)
	return err == nil && real == path
}

// succeeded reports whether a tool result says the call worked: Robota's
// {"success": true, ...}, or a result in another agent's plain text.
func succeeded(content string) bool {
	if !gjson.Valid(content) {
		return true
	}
	ok := gjson.Get(content, "success")
	return !ok.Exists() || ok.Bool()
}
