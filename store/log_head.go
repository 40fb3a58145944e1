package store

import (
	"bytes"
	"io"
	"os"

	"github.com/tidwall/gjson"
)

// logHeadWindow is what is read of a log for the head of a session that
// has no record: its session_init line (the system prompt inside it is
// usually a few hundred bytes) and the pre_run that follows.
const logHeadWindow = 64 << 10

// fillFromLog gives a session that has only its log (a first step still
// on its first provider call, or one killed before its first save) what
// its log says of it: the name, cwd, creation time, provider and first
// prompt a record would hold. Without them `list` showed an empty row
// (and --here hid it), and `resume NAME` said no session had that name.
// What the window does not hold stays unknown.
func fillFromLog(h *Head, path string) {
	f, err := os.Open(path)
	if err != nil {
		return
	}
	defer f.Close()
	if fi, err := f.Stat(); err == nil {
		h.UpdatedAt = fi.ModTime().UTC().Format("2006-01-02T15:04:05.000Z")
	}
	buf := make([]byte, logHeadWindow)
	n, err := io.ReadFull(f, buf)
	if err != nil && err != io.ErrUnexpectedEOF && err != io.EOF {
		return
	}
	for _, line := range bytes.Split(buf[:n], []byte("\n")) {
		if !gjson.ValidBytes(line) {
			continue // the window's cut, or a torn line
		}
		switch gjson.GetBytes(line, "event").Str {
		case "session_init":
			v := gjson.GetManyBytes(line, "name", "title", "cwd", "createdAt", "timestamp", "provider", "model")
			if h.Name == "" {
				h.Name = v[0].Str
			}
			if h.Title == "" {
				h.Title = v[1].Str
			}
			if h.Cwd == "" {
				h.Cwd = v[2].Str
			}
			if h.CreatedAt == "" {
				h.CreatedAt = v[3].Str
				if h.CreatedAt == "" {
					h.CreatedAt = v[4].Str
				}
			}
			if h.Provider == nil && v[5].Str != "" {
				h.Provider = &ProviderRef{Name: v[5].Str, Model: v[6].Str}
			}
		case "pre_run":
			if h.FirstPrompt == "" {
				h.FirstPrompt = gjson.GetBytes(line, "input").Str
			}
		}
	}
}
