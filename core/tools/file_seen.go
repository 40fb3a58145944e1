package tools

import (
	"os"
	"time"

	"trail/core/permission"
)

// What the model has seen of a file. Write replaces a whole file with what
// the model believes it holds; a file it never read, or one changed on
// disk since it last read or wrote it (a user in an editor, a formatter,
// a git pull), would lose what it did not see. As Claude Code does, Write
// refuses both, and the model reads the file (again) first. Edit needs no
// such check: it changes only text it quotes exactly, as the file holds it
// now.

// FileSeen is a file as a tool last saw it: after Read read it, or after
// Edit or Write wrote it. The engine keeps it with the call's result
// (core: tool message metadata), so it outlives the step.
type FileSeen struct {
	Path    string // canonical: symlinks resolved
	ModTime time.Time
	Size    int64
}

// seen describes the file at path as it is now, for Result.Seen.
func seen(path string) *FileSeen {
	real, err := permission.CanonicalPath(path)
	if err != nil {
		return nil
	}
	fi, err := os.Stat(real)
	if err != nil || !fi.Mode().IsRegular() {
		return nil
	}
	return &FileSeen{Path: real, ModTime: fi.ModTime(), Size: fi.Size()}
}

// Messages Claude-trained models know and act on (Claude Code's words).
const (
	notReadYet    = "File has not been read yet. Read it first before writing to it."
	modifiedSince = "File has been modified since read, either by the user or by a linter. Read it again before attempting to write it."
)

// checkSeen refuses to overwrite an existing file the model has not seen as
// it is now. No check when the engine keeps no record (env.LastSeen nil).
func checkSeen(env Env, target string) *Result {
	if env.LastSeen == nil {
		return nil
	}
	now := seen(target)
	if now == nil {
		return nil // a new file
	}
	last, ok := env.LastSeen(now.Path)
	switch {
	case !ok:
		r := fail(notReadYet)
		return &r
	case !last.ModTime.Equal(now.ModTime) || last.Size != now.Size:
		r := fail(modifiedSince)
		return &r
	}
	return nil
}
