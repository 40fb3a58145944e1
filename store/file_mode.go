package store

import "os"

// ownerReadWrite gives a file trail made the mode SPEC 3.1 says (0600)
// whatever the umask: under umask 277 a record was made 0400 and the next
// step could not open its lock. Folders get 0700 the same way (layout.go).
// A file another user owns (a shared home) keeps its mode: the call fails
// and that is no error of the step's.
func ownerReadWrite(f *os.File) { _ = f.Chmod(0o600) }
