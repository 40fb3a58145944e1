package wire

import (
	"bytes"
	"errors"
	"io"
)

// SSE parsing follows the WHATWG "event stream interpretation" rules:
// lines end with CRLF, LF or a lone CR; a line starting with ':' is a
// comment; "field: value" loses one leading space of the value; data lines
// are joined with LF; a blank line dispatches the event, unless it had no
// data field. A stream that ends inside an event loses that event (the spec
// says so) and is reported as ErrIncomplete so callers can tell a cut
// stream from a clean end.
//
// One departure: older llama.cpp servers report a failure mid-stream with
// a field the standard does not have, "error: {...}", which a strict
// parser drops, making the failure look like a clean, empty end. An
// "error" field is read as the data of an event named "error", so the
// provider sees it as the failure it is.

// ErrIncomplete is returned when the source ended cleanly inside an event:
// the event is lost. It matches io.ErrUnexpectedEOF.
var ErrIncomplete error = incomplete{}

// incomplete is ErrIncomplete's type: a value, so the error is static data
// rather than built by an init (fmt.Errorf) in every process.
type incomplete struct{}

func (incomplete) Error() string {
	return "the stream ended inside an event: " + io.ErrUnexpectedEOF.Error()
}
func (incomplete) Unwrap() error { return io.ErrUnexpectedEOF }

// Event is one dispatched server-sent event.
type Event struct {
	Name string // the "event:" field; empty means the default "message"
	Data []byte // the data lines joined by "\n"; owned by the caller
	ID   string // the last "id:" field seen
}

// Reader reads events from a stream. Lines may be of any length: the
// buffer grows to hold the longest one.
type Reader struct {
	src     io.Reader
	buf     []byte
	start   int  // first unread byte
	end     int  // end of buffered bytes
	scanned int  // bytes after start already searched for a line end
	skipLF  bool // the last line ended with CR: a leading LF belongs to it
	err     error
	read    int64 // bytes read from src
	begun   bool  // the stream's first bytes were looked at for a BOM
	// OnLine, when set, is called for every line read: comments and blank
	// lines too, the keep-alives servers send while a model works.
	OnLine func()

	name    []byte
	data    []byte
	hasData bool
	id      string
	pending bool // a field was seen since the last dispatch
}

const initialBuffer = 4096

// NewReader returns a Reader over src.
func NewReader(src io.Reader) *Reader {
	return &Reader{src: src, buf: make([]byte, initialBuffer)}
}

// BytesRead is how many bytes have come from the source so far.
func (r *Reader) BytesRead() int64 { return r.read }

// Prime reads until at least one byte is buffered, so a caller can tell a
// response that began from one that never did.
func (r *Reader) Prime() error {
	for r.start == r.end {
		if r.err != nil {
			return r.err
		}
		r.fill()
	}
	return nil
}

// Next returns the next event, io.EOF at a clean end of the stream,
// ErrIncomplete when the stream ends inside an event, or the source's read
// error.
func (r *Reader) Next() (Event, error) {
	for {
		line, err := r.readLine()
		if err != nil {
			if err == io.EOF && (r.pending || r.hasData) {
				err = ErrIncomplete
			}
			return Event{}, err
		}
		if len(line) == 0 {
			if ev, ok := r.dispatch(); ok {
				return ev, nil
			}
			continue
		}
		r.field(line)
	}
}

func (r *Reader) dispatch() (Event, bool) {
	r.pending = false
	if !r.hasData {
		r.name = r.name[:0]
		return Event{}, false
	}
	data := r.data
	if n := len(data); n > 0 && data[n-1] == '\n' {
		data = data[:n-1]
	}
	ev := Event{Name: string(r.name), Data: bytes.Clone(data), ID: r.id}
	if ev.Data == nil {
		ev.Data = []byte{}
	}
	r.name, r.data, r.hasData = r.name[:0], r.data[:0], false
	return ev, true
}

func (r *Reader) field(line []byte) {
	if line[0] == ':' {
		return
	}
	name, value := line, []byte(nil)
	if i := bytes.IndexByte(line, ':'); i >= 0 {
		name, value = line[:i], line[i+1:]
		if len(value) > 0 && value[0] == ' ' {
			value = value[1:]
		}
	}
	switch string(name) {
	case "event":
		r.name = append(r.name[:0], value...)
		r.pending = true
	case "data":
		r.data = append(append(r.data, value...), '\n')
		r.hasData, r.pending = true, true
	case "error":
		r.name = append(r.name[:0], "error"...)
		r.data = append(append(r.data, value...), '\n')
		r.hasData, r.pending = true, true
	case "id":
		if bytes.IndexByte(value, 0) < 0 {
			r.id = string(value)
		}
		r.pending = true
	}
}

// readLine returns the next line without its terminator. The slice is valid
// until the next call.
func (r *Reader) readLine() ([]byte, error) {
	if !r.begun {
		r.skipBOM()
	}
	for {
		if r.skipLF && r.start < r.end {
			if r.buf[r.start] == '\n' {
				r.start++
			}
			r.skipLF = false
			r.scanned = 0
		}
		from := r.start + r.scanned
		if i := bytes.IndexAny(r.buf[from:r.end], "\r\n"); i >= 0 {
			at := from + i
			line := r.buf[r.start:at]
			r.skipLF = r.buf[at] == '\r'
			r.start, r.scanned = at+1, 0
			if r.OnLine != nil {
				r.OnLine()
			}
			return line, nil
		}
		r.scanned = r.end - r.start
		if r.err != nil {
			if r.start < r.end {
				// an unterminated last line: the stream was cut
				r.start, r.scanned = r.end, 0
				if r.err == io.EOF {
					return nil, ErrIncomplete
				}
			}
			return nil, r.err
		}
		r.fill()
	}
}

// skipBOM drops one byte order mark at the stream's start, as the
// standard says a reader must: a gateway that writes its UTF-8 with a BOM
// would otherwise turn the first line's field name into "\ufeffdata",
// and the first chunk of the answer would be lost.
func (r *Reader) skipBOM() {
	bom := []byte{0xEF, 0xBB, 0xBF}
	for r.end-r.start < len(bom) && r.err == nil && bytes.HasPrefix(bom, r.buf[r.start:r.end]) {
		r.fill()
	}
	if bytes.HasPrefix(r.buf[r.start:r.end], bom) {
		r.start += len(bom)
	}
	r.begun = true
}

// fill reads more bytes. Only a full buffer is compacted (when at most half
// of it is unread) or doubled, so however small the reads, each byte is
// copied a bounded number of times on average.
func (r *Reader) fill() {
	if r.end == len(r.buf) {
		pending := r.end - r.start
		buf := r.buf
		if pending > len(r.buf)/2 {
			buf = make([]byte, 2*len(r.buf))
		}
		copy(buf, r.buf[r.start:r.end])
		r.buf, r.start, r.end = buf, 0, pending
	}
	// A reader may return 0, nil; a few tries keep that from spinning.
	for tries := 0; tries < 100; tries++ {
		n, err := r.src.Read(r.buf[r.end:])
		if n < 0 || n > len(r.buf)-r.end {
			r.err = errors.New("sse: invalid read count")
			return
		}
		r.end += n
		r.read += int64(n)
		if err != nil {
			r.err = err
			return
		}
		if n > 0 {
			return
		}
	}
	r.err = io.ErrNoProgress
}
