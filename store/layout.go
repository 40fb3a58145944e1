package store

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"sync"
	"syscall"
	"time"
)

// FS is the on-disk session store rooted at $TRAIL_HOME.
type FS struct {
	Home string
	// OnWait, when set, is called once when Lock finds the session held
	// and is about to wait for it (wait > 0): a wait of up to --wait in
	// silence looked like a hang.
	// what is "session <id>", or "the home's names lock".
	OnWait func(what string, wait time.Duration)

	mu     sync.Mutex
	held   map[string]*Lock // the locks this process holds, by session id
	strays []string         // what the last IDs found in sessions/ that is no record (Strays)

	// NoHome, when set, is the error for a Home that does not exist and
	// must not be made (its parent is a user's home folder that does not
	// exist either): EnsureLayout returns it instead of creating folders.
	NoHome error
}

// New returns the store rooted at home. Nothing is created until a write.
func New(home string) *FS { return &FS{Home: home} }

// SessionsDir holds <id>.json records and their <id>.lock files.
func (s *FS) SessionsDir() string { return filepath.Join(s.Home, "sessions") }

// LogsDir holds <id>.jsonl event logs and <id>.payloads folders.
func (s *FS) LogsDir() string { return filepath.Join(s.Home, "logs") }

// The path helpers below do not validate id: they are pure string
// builders. Every method that touches a file validates first.

// RecordPath is sessions/<id>.json.
func (s *FS) RecordPath(id string) string { return filepath.Join(s.SessionsDir(), id+".json") }

// LockPath is sessions/<id>.lock.
func (s *FS) LockPath(id string) string { return filepath.Join(s.SessionsDir(), id+".lock") }

// LogPath is logs/<id>.jsonl.
func (s *FS) LogPath(id string) string { return filepath.Join(s.LogsDir(), id+".jsonl") }

// PayloadDir is logs/<id>.payloads.
func (s *FS) PayloadDir(id string) string { return filepath.Join(s.LogsDir(), id+".payloads") }

// EnsureLayout creates Home, sessions and logs with mode 0700. Folders that
// already exist keep their mode: the user may have chosen a looser one on
// purpose (a shared Robota folder, say), and chmod-ing it would surprise.
func (s *FS) EnsureLayout() error {
	if s.NoHome != nil {
		if _, err := os.Stat(s.Home); errors.Is(err, fs.ErrNotExist) {
			return s.NoHome
		}
	}
	for _, dir := range []string{s.Home, s.SessionsDir(), s.LogsDir()} {
		if err := mkdirPrivate(dir); err != nil {
			return &LayoutError{Dir: dir, Home: s.Home, Err: err}
		}
	}
	return nil
}

// LayoutError is a folder of the home that could not be made: most often
// a HOME this user cannot write (docker run --user 1234 gives HOME=/).
type LayoutError struct {
	Dir, Home string
	Err       error
}

func (e *LayoutError) Error() string {
	return "cannot make trail's folder " + e.Dir + ": " + unwrapPath(e.Err).Error()
}
func (e *LayoutError) Unwrap() error { return e.Err }

// Hint says how to go on: the home is the user's to choose.
func (e *LayoutError) Hint() string {
	if errors.Is(e.Err, fs.ErrPermission) || errors.Is(e.Err, syscall.EROFS) {
		return "set TRAIL_HOME (or --home) to a folder this user can write; trail's home is " + e.Home
	}
	return "check the folder, or set TRAIL_HOME (or --home) to another"
}

// unwrapPath drops a *PathError's op and path, which the message says.
func unwrapPath(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

func mkdirPrivate(dir string) error {
	err := os.Mkdir(dir, 0o700)
	if errors.Is(err, fs.ErrNotExist) {
		// Parents are missing ($TRAIL_HOME=~/new/place): create them the
		// same way, then retry.
		if err := os.MkdirAll(filepath.Dir(dir), 0o700); err != nil {
			return err
		}
		err = os.Mkdir(dir, 0o700)
	}
	switch {
	case err == nil:
		// Mkdir honours the umask; a umask like 0277 would leave us a
		// folder we cannot write into.
		return os.Chmod(dir, 0o700)
	case errors.Is(err, fs.ErrExist):
		st, serr := os.Stat(dir)
		if serr != nil {
			return serr
		}
		if !st.IsDir() {
			return errors.New("exists and is not a directory")
		}
		return nil
	default:
		return err
	}
}
