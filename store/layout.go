package store

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sync"
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
			return fmt.Errorf("create %s: %w", dir, err)
		}
	}
	return nil
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
