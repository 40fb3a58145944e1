package core

import (
	"encoding/json"
	"strconv"
	"sync"
	"time"

	"github.com/tidwall/gjson"

	"trail/core/chat"
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
	b, err := logfmt.Marshal(logfmt.Object{logfmt.F("file", logfmt.Object{
		logfmt.F("path", f.Path),
		logfmt.F("mtimeNs", strconv.FormatInt(f.ModTime.UnixNano(), 10)),
		logfmt.F("size", f.Size),
	})})
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
	if f == nil {
		return
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
// the round running, else the conversation's latest.
func (s *session) lastSeen(round *roundSeen, path string) (tools.FileSeen, bool) {
	if f, ok := round.get(path); ok {
		return f, true
	}
	for i := len(s.messages) - 1; i >= 0; i-- {
		m := &s.messages[i]
		if m.Role != chat.RoleTool || len(m.Metadata) == 0 {
			continue
		}
		f := gjson.GetBytes(m.Metadata, "file")
		if f.Get("path").Str != path {
			continue
		}
		ns, err := strconv.ParseInt(f.Get("mtimeNs").Str, 10, 64)
		if err != nil {
			return tools.FileSeen{}, false
		}
		return tools.FileSeen{Path: path, ModTime: time.Unix(0, ns), Size: f.Get("size").Int()}, true
	}
	return tools.FileSeen{}, false
}
