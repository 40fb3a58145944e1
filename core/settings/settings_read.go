package settings

import (
	"bytes"
	"errors"
	"fmt"
	"io"

	"trail/store"
)

// maxSize bounds a settings file. Real ones are a few KB; the bound
// keeps a settings path that names something huge (a log, a disk image)
// from being read whole into memory before the JSON error.
const maxSize = 4 << 20

// readFile reads a settings file that must be a regular file of at
// most maxSize bytes. Settings files are read before anything else
// and from folders the user may not control (./.claude in a cloned
// repository), so a FIFO, a device, a socket or a folder is refused before
// any read can block (store.OpenUserFile). Links are followed: a settings
// file linked from a dotfiles repository is common and harmless, since
// trail only reads it.
func readFile(path string) ([]byte, error) {
	f, st, err := store.OpenUserFile(path)
	var nr *store.NotRegularError
	if errors.As(err, &nr) {
		return nil, fmt.Errorf("it is %s, not a regular file", nr.Kind)
	}
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if st.Size() > maxSize {
		return nil, fmt.Errorf("the file is %d bytes; a settings file may be at most %d", st.Size(), maxSize)
	}
	var buf bytes.Buffer
	buf.Grow(int(st.Size()) + bytes.MinRead)
	// The size may have grown since the fstat: read one byte past the
	// bound to see it.
	if _, err := buf.ReadFrom(io.LimitReader(f, maxSize+1)); err != nil {
		return nil, err
	}
	if buf.Len() > maxSize {
		return nil, fmt.Errorf("the file is over %d bytes; a settings file may be at most %d", maxSize, maxSize)
	}
	// Notepad and PowerShell's Out-File start UTF-8 files with a byte-order
	// mark; the JSON after it is what the user wrote.
	return bytes.TrimPrefix(buf.Bytes(), []byte("\xef\xbb\xbf")), nil
}
