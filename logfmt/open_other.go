//go:build !unix

package logfmt

import "os"

// openNoFollow opens a payload for reading. Without O_NOFOLLOW the Lstat
// and SameFile checks around it are the only guard.
func openNoFollow(path string) (*os.File, error) {
	return os.Open(path)
}
