package logfmt

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"syscall"
)

// External payloads (SPEC 7.1): a value whose compact JSON is over the
// threshold lives in <log dir>/<sessionId>.payloads/<sha256>.json and the
// line carries a reference to it. The file name is the hash of the content,
// so a file is written once and never changed: an existing file is left
// alone, and a new one appears whole (written under a temporary name, then
// linked into place) so no reader ever sees half a payload.

// DefaultPayloadThreshold is the size, in bytes of compact JSON, above which
// a value is moved to a payload file.
const DefaultPayloadThreshold = 32768

// PayloadDirSuffix follows the session id in the payload folder's name.
const PayloadDirSuffix = ".payloads"

type payloadStore struct {
	dir       string // <log dir>/<sessionId>.payloads
	relPrefix []byte // `"<sessionId>.payloads/` as JSON, without the closing quote
	threshold int

	known   map[[sha256.Size]byte]struct{} // present on disk: skip the stat
	pending []string                       // written since the last sync
	dirNew  bool                           // created since the last sync: its entry needs an fsync
}

func newPayloadStore(logPath, sessionID string, threshold int) *payloadStore {
	rel := appendString(nil, sessionID+PayloadDirSuffix+"/")
	return &payloadStore{
		dir:       filepath.Join(filepath.Dir(logPath), sessionID+PayloadDirSuffix),
		relPrefix: rel[:len(rel)-1],
		threshold: threshold,
		known:     make(map[[sha256.Size]byte]struct{}),
	}
}

// store makes sure a payload file holding exactly data exists and returns
// its hash. It does not fsync; sync does, before the log is synced.
func (p *payloadStore) store(data []byte) ([sha256.Size]byte, error) {
	sum := sha256.Sum256(data)
	if _, ok := p.known[sum]; ok {
		return sum, nil
	}
	name := hex.EncodeToString(sum[:]) + ".json"
	final := filepath.Join(p.dir, name)
	switch st, err := os.Lstat(final); {
	case err == nil && !st.Mode().IsRegular():
		return sum, &NotRegularError{Path: final, Kind: fileKind(st.Mode()), Want: "a regular file"}
	case err == nil:
		p.known[sum] = struct{}{}
		return sum, nil
	case !errors.Is(err, fs.ErrNotExist):
		return sum, fmt.Errorf("stat payload %s: %w", final, err)
	}
	if err := p.makeDir(); err != nil {
		return sum, err
	}
	if err := writeNewFile(p.dir, final, data); err != nil {
		return sum, fmt.Errorf("write payload %s: %w", final, err)
	}
	p.known[sum] = struct{}{}
	p.pending = append(p.pending, final)
	return sum, nil
}

func (p *payloadStore) makeDir() error {
	err := os.Mkdir(p.dir, 0o700)
	switch {
	case err == nil:
		p.dirNew = true
		// Mkdir honours the umask: under 0277 the folder could not take
		// the payload files
		if err := os.Chmod(p.dir, 0o700); err != nil {
			return fmt.Errorf("create payload folder: %w", err)
		}
	case !errors.Is(err, fs.ErrExist):
		return fmt.Errorf("create payload folder: %w", err)
	}
	// Whatever is there (checked at open, but a step is long) must be
	// the folder itself: a link would put payload files outside the home.
	return checkFolder(p.dir)
}

// writeNewFile creates final with data unless it already exists. Linking a
// finished temporary file, unlike renaming it, never replaces a file that
// appeared in the meantime.
func writeNewFile(dir, final string, data []byte) (err error) {
	tmp, err := os.CreateTemp(dir, ".tmp-*.json")
	if err != nil {
		return err
	}
	_ = tmp.Chmod(0o600) // whatever the umask (SPEC 3.1)
	defer func() {
		// After a link the temporary name is a second name to drop; after
		// a rename it is gone and Remove fails harmlessly.
		_ = os.Remove(tmp.Name())
	}()
	if _, err := tmp.Write(data); err != nil {
		_ = tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	err = os.Link(tmp.Name(), final)
	if err == nil || errors.Is(err, fs.ErrExist) {
		return nil
	}
	// Some file systems have no hard links.
	if _, statErr := os.Lstat(final); statErr == nil {
		return nil
	}
	return os.Rename(tmp.Name(), final)
}

// sync makes the payload files written since the last call durable, so a
// synced line never points at a file a power cut could lose.
func (p *payloadStore) sync() error {
	for _, path := range p.pending {
		if err := syncFile(path); err != nil {
			return fmt.Errorf("sync payload %s: %w", path, err)
		}
	}
	if len(p.pending) > 0 {
		if err := syncDir(p.dir); err != nil {
			return fmt.Errorf("sync payload folder: %w", err)
		}
		p.pending = p.pending[:0]
	}
	if p.dirNew {
		if err := syncDir(filepath.Dir(p.dir)); err != nil {
			return fmt.Errorf("sync log folder: %w", err)
		}
		p.dirNew = false
	}
	return nil
}

// appendRef appends the reference object that replaces a payload in a line.
// Key order is part of the format.
func (p *payloadStore) appendRef(dst []byte, sum [sha256.Size]byte, n int) []byte {
	dst = append(dst, `{"kind":"external-payload","encoding":"json","sha256":"`...)
	dst = hex.AppendEncode(dst, sum[:])
	dst = append(dst, `","byteLength":`...)
	dst = strconv.AppendInt(dst, int64(n), 10)
	dst = append(dst, `,"relativePath":`...)
	dst = append(dst, p.relPrefix...)
	dst = hex.AppendEncode(dst, sum[:])
	return append(dst, `.json"}`...)
}

func syncFile(path string) error {
	f, err := openNoFollow(path) // fsync needs no write access
	if err != nil {
		return err
	}
	err = f.Sync()
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// syncDir makes a folder's entries durable. Windows cannot fsync a folder,
// and some file systems refuse to; neither is worth failing a write for.
func syncDir(dir string) error {
	if runtime.GOOS == "windows" {
		return nil
	}
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	if err := d.Sync(); err != nil && !errors.Is(err, syscall.EINVAL) && !errors.Is(err, errors.ErrUnsupported) {
		return err
	}
	return nil
}
