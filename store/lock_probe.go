package store

import "os"

// LockHeld reports whether a process holds id's session lock, by trying
// the lock for an instant. RunningIDs reads the kernel's table instead,
// touching no lock; but that table hides the holders of another PID
// namespace (two containers sharing a home) and is absent where /proc is,
// and then a running step looked killed: validate-log failed its log,
// resume refused its session. So this is the second look, taken only
// where a session looks killed: held that instant, a step starting with
// --wait 0 would be told busy, and a session that looks killed is one no
// step should be starting on. A missing lock file is no step's: it is not
// made.
func (s *FS) LockHeld(id string) bool {
	if ValidateID(id) != nil {
		return false
	}
	f, err := openFile(s.LockPath(id), os.O_RDONLY, 0)
	if err != nil {
		return false
	}
	defer f.Close() // lets go of the lock, if this took it
	held, err := flockNB(f)
	return err == nil && held
}
