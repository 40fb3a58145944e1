package logfmt

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/tidwall/gjson"
)

// Reading payload files. A log is untrusted input: its references may name
// any path. The rules, checked before a byte of the file is read:
//
//   - relativePath is relative, has no "." or ".." segment and no NUL, and
//     names a file under <log dir>/<sessionId>.payloads/ (the only place the
//     writer puts payloads);
//   - no component is a symlink: the folders on the way must resolve
//     (EvalSymlinks, once per folder) to themselves under the log folder's
//     own resolved path, and the file itself is checked with Lstat;
//   - it is a regular file whose size is the reference's byteLength (a FIFO
//     or a device is never opened);
//   - it is opened with O_NOFOLLOW|O_NONBLOCK and must still be the file
//     that was checked (os.SameFile), closing the race with a swap.
//
// Then its sha256 and its JSON are checked.

// Payload issue codes (SPEC 7.2).
const (
	CodePayloadReferenceInvalid = "PAYLOAD_REFERENCE_INVALID"
	CodePayloadNotFound         = "PAYLOAD_NOT_FOUND"
	CodePayloadOutsideRoot      = "PAYLOAD_OUTSIDE_ROOT"
	CodePayloadByteLength       = "PAYLOAD_BYTE_LENGTH_MISMATCH"
	CodePayloadSHA256           = "PAYLOAD_SHA256_MISMATCH"
	CodePayloadInvalidJSON      = "PAYLOAD_INVALID_JSON"
)

// PayloadError is a payload reference that cannot be used, with the issue
// code validation reports for it.
type PayloadError struct {
	Code    string
	Message string
}

func (e *PayloadError) Error() string { return e.Message }

// maxRefDepth bounds references inside payload files inside payload files
// (Robota's resolver stops at 32 too).
const maxRefDepth = 32

// inMemoryPayload is the largest payload validation reads whole; a bigger
// one is hashed and parsed as a stream so memory stays bounded. (A
// variable so tests can reach the streaming path with small files.)
var inMemoryPayload int64 = 16 << 20

// maxPayloadCache bounds the remembered check results of one log.
const maxPayloadCache = 4096

// openPayload opens a payload file; tests replace it to count opens.
var openPayload = openNoFollow

// payloadReader checks and reads the payload files of one log.
type payloadReader struct {
	dir       string // the log's folder
	sessionID string // the log's session: payloads live in <dir>/<sessionID>.payloads
	realDir   string
	realErr   error
	realDone  bool
	checked   map[PayloadRef]*PayloadError // results of whole-file checks
	folders   map[string]string            // payload folders checked: "" when fine, else why not

	// kept holds the content of the payloads of the line being checked
	// (forget drops them at the next): validate-log checks a line's
	// payloads, then reads its message's role and adds the message to the
	// request digest from them, and reading and hashing each file again
	// for those was a fifth of its time.
	kept      map[PayloadRef][]byte
	keptBytes int
}

// keptBudget bounds the bytes kept for load; past it they all go.
const keptBudget = 8 << 20

func newPayloadReader(dir string) *payloadReader {
	return &payloadReader{dir: dir, checked: make(map[PayloadRef]*PayloadError), folders: make(map[string]string)}
}

func outsideRoot(ref PayloadRef, why string) *PayloadError {
	return &PayloadError{CodePayloadOutsideRoot, fmt.Sprintf("External payload path escapes its base directory: %s (%s).", ref.RelativePath, why)}
}

func notFound(ref PayloadRef, why string) *PayloadError {
	if why == "" {
		return &PayloadError{CodePayloadNotFound, fmt.Sprintf("External payload was not found: %s.", ref.RelativePath)}
	}
	return &PayloadError{CodePayloadNotFound, fmt.Sprintf("External payload could not be read: %s (%s).", ref.RelativePath, why)}
}

// locate turns a reference's path into a file path, refusing anything
// outside the payload folder on the path's text alone.
func (p *payloadReader) locate(ref PayloadRef) ([]string, *PayloadError) {
	rel := ref.RelativePath
	switch {
	case strings.ContainsRune(rel, 0):
		return nil, outsideRoot(ref, "NUL in path")
	case filepath.IsAbs(rel) || strings.HasPrefix(rel, "/") || strings.HasPrefix(rel, `\`) ||
		len(rel) >= 2 && rel[1] == ':':
		return nil, outsideRoot(ref, "absolute path")
	}
	// Robota splits on both separators; so does trail, so a name with a
	// backslash cannot mean one thing here and another there.
	segs := strings.FieldsFunc(rel, func(r rune) bool { return r == '/' || r == '\\' })
	for _, s := range segs {
		if s == ".." || s == "." {
			return nil, outsideRoot(ref, "'"+s+"' in path")
		}
	}
	folder := p.sessionID + PayloadDirSuffix
	if len(segs) < 2 || segs[0] != folder {
		return nil, outsideRoot(ref, "not under "+folder+"/")
	}
	return segs, nil
}

// resolvedDir is the log folder with symlinks resolved, computed once.
func (p *payloadReader) resolvedDir() (string, error) {
	if !p.realDone {
		p.realDir, p.realErr = filepath.EvalSymlinks(p.dir)
		p.realDone = true
	}
	return p.realDir, p.realErr
}

// stat checks everything about the file that can be checked without
// opening it, and returns its path and Lstat result. The folders on the
// way are checked once per log (EvalSymlinks must land where the path
// says), the file itself with Lstat every time.
func (p *payloadReader) stat(ref PayloadRef) (string, os.FileInfo, *PayloadError) {
	segs, perr := p.locate(ref)
	if perr != nil {
		return "", nil, perr
	}
	if perr := p.checkFolder(ref, segs[:len(segs)-1]); perr != nil {
		return "", nil, perr
	}
	path := filepath.Join(append([]string{p.dir}, segs...)...)
	info, err := os.Lstat(path)
	switch {
	case errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENOTDIR):
		return "", nil, notFound(ref, "")
	case err != nil:
		return "", nil, notFound(ref, errText(err))
	case info.Mode()&fs.ModeSymlink != 0:
		return "", nil, outsideRoot(ref, "a symlink")
	case !info.Mode().IsRegular():
		return "", nil, notFound(ref, "not a regular file")
	case info.Size() != ref.ByteLength:
		return "", nil, lengthMismatch(ref, info.Size())
	}
	return path, info, nil
}

// checkFolder makes sure the folders of a payload path resolve to
// themselves under the log folder: no symlink on the way out.
func (p *payloadReader) checkFolder(ref PayloadRef, segs []string) *PayloadError {
	rel := filepath.Join(segs...)
	if why, ok := p.folders[rel]; ok {
		if why == "" {
			return nil
		}
		return p.folderError(ref, why)
	}
	why := ""
	base, err := p.resolvedDir()
	if err == nil {
		var real string
		real, err = filepath.EvalSymlinks(filepath.Join(p.dir, rel))
		if err == nil && real != filepath.Join(base, rel) {
			why = "outside"
		}
	}
	if err != nil {
		why = "missing"
		if !errors.Is(err, fs.ErrNotExist) && !errors.Is(err, syscall.ENOTDIR) {
			why = errText(err)
		}
	}
	p.folders[rel] = why
	if why == "" {
		return nil
	}
	return p.folderError(ref, why)
}

func (p *payloadReader) folderError(ref PayloadRef, why string) *PayloadError {
	switch why {
	case "outside":
		return outsideRoot(ref, "a folder on its path is a symlink")
	case "missing":
		return notFound(ref, "")
	}
	return notFound(ref, why)
}

func lengthMismatch(ref PayloadRef, got int64) *PayloadError {
	return &PayloadError{CodePayloadByteLength, fmt.Sprintf("External payload byte length does not match its reference: %s (reference %d, file %d).", ref.RelativePath, ref.ByteLength, got)}
}

func errText(err error) string {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err.Error()
	}
	return err.Error()
}

// open opens the checked file and makes sure it is still the file stat saw.
func (p *payloadReader) open(ref PayloadRef, path string, info os.FileInfo) (*os.File, *PayloadError) {
	f, err := openPayload(path)
	if err != nil {
		return nil, notFound(ref, errText(err))
	}
	now, err := f.Stat()
	if err != nil || !os.SameFile(info, now) || !now.Mode().IsRegular() || now.Size() != ref.ByteLength {
		_ = f.Close()
		return nil, outsideRoot(ref, "the file changed while it was checked")
	}
	return f, nil
}

// load reads a payload whole and checks it; the content is compact JSON.
func (p *payloadReader) load(ref PayloadRef) ([]byte, *PayloadError) {
	data, ok := p.kept[ref]
	if !ok {
		var perr *PayloadError
		// A payload checked whole before (by an earlier line) is read
		// again for its content, not hashed and parsed again: the same
		// message's payload is named by every later request.
		perr, checked := p.checked[ref]
		if data, perr = p.readChecked(ref, checked && perr == nil); perr != nil {
			return nil, perr
		}
	}
	return appendCompact(data[:0:0], data), nil
}

// forget drops the payloads kept.
func (p *payloadReader) forget() {
	if p.keptBytes > 0 {
		clear(p.kept)
		p.keptBytes = 0
	}
}

// keep holds a checked payload's content for the next load of it.
func (p *payloadReader) keep(ref PayloadRef, data []byte) {
	if len(data) > keptBudget/4 {
		return
	}
	if p.keptBytes+len(data) > keptBudget {
		clear(p.kept)
		p.keptBytes = 0
	}
	if p.kept == nil {
		p.kept = make(map[PayloadRef][]byte)
	}
	if old, ok := p.kept[ref]; ok {
		p.keptBytes -= len(old)
	}
	p.kept[ref] = data
	p.keptBytes += len(data)
}

// read reads a payload whole and checks it, returning its bytes as they are.
func (p *payloadReader) read(ref PayloadRef) ([]byte, *PayloadError) {
	return p.readChecked(ref, false)
}

// readChecked is read, the content's hash and JSON left unchecked when
// checked says they were checked already.
func (p *payloadReader) readChecked(ref PayloadRef, checked bool) ([]byte, *PayloadError) {
	path, info, perr := p.stat(ref)
	if perr != nil {
		return nil, perr
	}
	f, perr := p.open(ref, path, info)
	if perr != nil {
		return nil, perr
	}
	defer f.Close()
	// The open file's size was checked against byteLength; the hash
	// covers exactly the bytes read.
	data := make([]byte, ref.ByteLength)
	if _, err := io.ReadFull(f, data); err != nil {
		return nil, notFound(ref, errText(err))
	}
	if checked {
		return data, nil
	}
	if perr := checkContent(ref, data); perr != nil {
		return nil, perr
	}
	return data, nil
}

func checkContent(ref PayloadRef, data []byte) *PayloadError {
	sum := sha256.Sum256(data)
	if hex.EncodeToString(sum[:]) != ref.SHA256 {
		return shaMismatch(ref)
	}
	if ok, _ := isJSONValue(data); !ok {
		return invalidJSON(ref)
	}
	return nil
}

func shaMismatch(ref PayloadRef) *PayloadError {
	return &PayloadError{CodePayloadSHA256, fmt.Sprintf("External payload sha256 does not match its reference: %s.", ref.RelativePath)}
}

func invalidJSON(ref PayloadRef) *PayloadError {
	return &PayloadError{CodePayloadInvalidJSON, fmt.Sprintf("External payload is not valid JSON: %s.", ref.RelativePath)}
}

// isJSONValue is gjson.ValidBytes behind the same nesting guard as lines.
func isJSONValue(b []byte) (ok, tooDeep bool) {
	if bytes.Count(b, []byte{'{'})+bytes.Count(b, []byte{'['}) > maxDepth && nestingDepth(b) > maxDepth {
		return false, true
	}
	return gjson.ValidBytes(b), false
}

// verify checks a payload without keeping it, remembering the answer, and
// reports problems of the references inside it as well (depth counts the
// payloads already entered). Issues found inside are passed to inner.
func (p *payloadReader) verify(ref PayloadRef, depth int, inner func(hit refHit, perr *PayloadError)) *PayloadError {
	if perr, ok := p.checked[ref]; ok {
		return perr
	}
	perr := p.verifyFile(ref, depth, inner)
	if len(p.checked) >= maxPayloadCache {
		clear(p.checked)
	}
	p.checked[ref] = perr
	return perr
}

func (p *payloadReader) verifyFile(ref PayloadRef, depth int, inner func(hit refHit, perr *PayloadError)) *PayloadError {
	if ref.ByteLength > inMemoryPayload {
		path, info, perr := p.stat(ref)
		if perr != nil {
			return perr
		}
		return p.verifyStream(ref, path, info)
	}
	data, perr := p.read(ref)
	if perr != nil {
		return perr
	}
	p.keep(ref, data)
	if mayHoldRef(data) {
		p.checkRefs(data, "", depth+1, inner)
	}
	return nil
}

// checkRefs verifies every reference inside value, reporting each problem.
func (p *payloadReader) checkRefs(value []byte, prefix string, depth int, report func(hit refHit, perr *PayloadError)) {
	for _, h := range findRefs(value, prefix) {
		switch {
		case h.invalid != "":
			report(h, &PayloadError{CodePayloadReferenceInvalid, invalidRefMessage(h)})
		case depth > maxRefDepth:
			report(h, notFound(h.ref, "payloads nest deeper than 32"))
		default:
			if perr := p.verify(h.ref, depth, report); perr != nil {
				report(h, perr)
			}
		}
	}
}

func invalidRefMessage(h refHit) string {
	where := h.path
	if where == "" {
		where = "the line"
	}
	return fmt.Sprintf("External payload reference is missing required replay fields (%s: %s).", where, h.invalid)
}

// verifyStream checks a payload too big to hold: hashed and tokenized in
// one read. References inside it are not followed.
func (p *payloadReader) verifyStream(ref PayloadRef, path string, info os.FileInfo) *PayloadError {
	f, perr := p.open(ref, path, info)
	if perr != nil {
		return perr
	}
	defer f.Close()
	h := sha256.New()
	n, jsonOK := streamJSON(io.TeeReader(f, h))
	if n != ref.ByteLength {
		return lengthMismatch(ref, n)
	}
	if hex.EncodeToString(h.Sum(nil)) != ref.SHA256 {
		return shaMismatch(ref)
	}
	if !jsonOK {
		return invalidJSON(ref)
	}
	return nil
}

// streamJSON reports whether r holds exactly one JSON value, reading all
// of it (so the tee behind r sees every byte), and how many bytes it read.
func streamJSON(r io.Reader) (int64, bool) {
	cr := &countingReader{r: r}
	dec := json.NewDecoder(cr)
	ok, tokens := true, 0
	depth := 0
	for {
		tok, err := dec.Token()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			ok = false
			break
		}
		tokens++
		switch tok {
		case json.Delim('{'), json.Delim('['):
			depth++
		case json.Delim('}'), json.Delim(']'):
			depth--
		}
		if depth == 0 && dec.More() {
			ok = false // a second value follows the first
			break
		}
	}
	_, _ = io.Copy(io.Discard, cr)
	return cr.n, ok && tokens > 0
}

type countingReader struct {
	r io.Reader
	n int64
}

func (c *countingReader) Read(b []byte) (int, error) {
	n, err := c.r.Read(b)
	c.n += int64(n)
	return n, err
}
