package tools

import (
	"crypto/sha256"
	"encoding/hex"
	"io"
	"os"
	"syscall"
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
	// SHA256 is the hex digest of the whole content, when the call saw all
	// of it (a Read of every line, uncut, or what Edit or Write wrote): a
	// file touched since (touch, a sed -i that changed nothing, git stash
	// and pop) but holding the same bytes is still the one seen.
	SHA256 string
	// Nothing: the call named the file but showed none of it (an offset
	// past its end). It counts for nothing.
	Nothing bool
	// Unknown: a call of a session written before what was seen was kept
	// (imported, or by an older trail) read or wrote the file, at ModTime
	// (zero when not known). A file changed after that time was changed
	// since, as Claude Code judges it; else it is taken as seen.
	Unknown bool
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

// wrote is seen for a file just written with data.
func wrote(path string, data []byte) *FileSeen {
	f := seen(path)
	if f != nil && int64(len(data)) == f.Size {
		sum := sha256.Sum256(data)
		f.SHA256 = hex.EncodeToString(sum[:])
	}
	return f
}

// fileSHA256 is the hex digest of the file at path, "" when unreadable.
func fileSHA256(path string) string {
	// not blocking, and only a regular file: what was checked a moment ago
	// may have been swapped for a FIFO
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return ""
	}
	defer f.Close()
	if fi, err := f.Stat(); err != nil || !fi.Mode().IsRegular() {
		return ""
	}
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return ""
	}
	return hex.EncodeToString(h.Sum(nil))
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
	case last.Unknown && (last.ModTime.IsZero() || !now.ModTime.After(last.ModTime)):
		return nil
	case last.Unknown:
		r := fail(modifiedSince)
		return &r
	case last.ModTime.Equal(now.ModTime) && last.Size == now.Size:
		return nil
	case last.SHA256 != "" && last.Size == now.Size && fileSHA256(now.Path) == last.SHA256:
		return nil // touched, the same bytes
	}
	r := fail(modifiedSince)
	return &r
}
