package store

import "os"

// WriteFile replaces path with data atomically, as a record is saved
// (writeFileAtomic): for files trail writes outside its home (an exported
// session), which no session lock covers. A link or special file at path
// is refused, never replaced.
func WriteFile(path string, data []byte, perm os.FileMode) error {
	return writeFileAtomic(path, data, perm, nil)
}
