package store

import (
	"os"
	"syscall"
)

// OpenUserFile opens for reading a file the user names outside the home (a
// settings file, a certificate bundle) and refuses what is not a regular
// file before any read can block: O_NONBLOCK keeps the open of a FIFO
// without a writer from waiting, and the fstat after it refuses a FIFO, a
// device (/dev/zero would be read forever) or a folder. Links are followed:
// unlike a file in the home, such a file is the user's to point anywhere.
func OpenUserFile(path string) (*os.File, os.FileInfo, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		// A socket fails the open (ENXIO): say what it is instead.
		if st, serr := os.Stat(path); serr == nil && !st.Mode().IsRegular() {
			return nil, nil, &NotRegularError{Path: path, Kind: FileKind(st.Mode())}
		}
		return nil, nil, err
	}
	return keepRegular(f, path)
}
