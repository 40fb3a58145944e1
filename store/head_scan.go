package store

import (
	"bytes"
	"errors"
	"fmt"
	"io"

	"github.com/tidwall/gjson"
)

// A record of fullCheckLimit bytes or more that is not in trail's layout (a
// Robota record puts its messages before the keys trail reads, and has no
// messageCount) is scanned, not read whole: one pass in scanChunk pieces
// that counts the messages and keeps the top-level members list shows. A
// 100 MB record costs a 64 KiB buffer, not 100 MB and its parse.
//
// The scan checks the brackets and strings, not every number and literal:
// a record cut short or with a stray byte between members is corrupt, one
// with a misspelt literal deep inside a message is caught by resume's load.
const (
	scanChunk = 64 << 10
	// scanKeep caps what the scan keeps of a member's value (a header
	// field) or of the first user message (for its prompt).
	scanKeep = 256 << 10
	// scanDepth is as deep as a record may nest (checkRecord's limit).
	scanDepth = 10000
)

// headScan is the scanner's state between chunks.
type headScan struct {
	h      *Head
	stack  []byte // '{' or '[' per open container
	inStr  bool
	bs     int  // backslashes just before the current position, in a string
	want   byte // at depth 1: 'k' a key or '}', 'K' a key, ':' the colon, 'v' a value, ',' a comma or '}'
	key    []byte
	keyOK  bool // key is being kept (not too long)
	member int  // what the value of the current top-level member is: see member*
	kept   []byte
	keep   bool // bytes of the current value or element go to kept
	elemAt bool // inside messages: the next value is an element
	count  int  // messages seen
	msgs   bool // the record has a messages member
	prompt bool // still looking for the first user prompt
	done   bool // the top-level object closed
	err    error
	off    int64 // offset of the chunk in the file
}

const (
	memberOther    = iota
	memberHeader   // a header key: its value is kept and set
	memberMessages // "messages": its elements are counted
	memberHistory  // "history": must be an array
)

// fromScan fills h by scanning the record in f in constant memory.
func (h Head) fromScan(f io.ReaderAt) Head { return h.scanChunks(f, scanChunk) }

// scanChunks is fromScan reading chunk bytes at a time.
func (h Head) scanChunks(f io.ReaderAt, chunk int) Head {
	s := &headScan{h: &h, prompt: true}
	buf := make([]byte, chunk)
	for off := int64(0); ; {
		n, err := f.ReadAt(buf, off)
		if n > 0 {
			s.off = off
			s.chunk(buf[:n])
			if s.err != nil {
				return h.corrupt(s.err)
			}
			off += int64(n)
		}
		if errors.Is(err, io.EOF) || (err == nil && n == 0) {
			break
		}
		if err != nil {
			return h.corrupt(err)
		}
	}
	if !s.done {
		return h.corrupt(&CorruptError{Path: h.Path, Offset: h.Size, Err: errors.New("record is cut short")})
	}
	if s.msgs {
		h.MessageCount = s.count
	}
	if h.Title != "" {
		h.FirstPrompt = ""
	}
	return h
}

func (s *headScan) fail(i int, format string, args ...any) {
	s.err = &CorruptError{Path: s.h.Path, Offset: s.off + int64(i), Err: fmt.Errorf(format, args...)}
}

// chunk scans c, the file's bytes from s.off.
func (s *headScan) chunk(c []byte) {
	from := -1 // start of the bytes of c not yet added to kept
	if s.keep {
		from = 0
	}
	for i := 0; i < len(c); {
		if s.inStr {
			i = s.inString(c, i)
			if !s.inStr {
				from = s.valueDone(c, i, from)
			}
			continue
		}
		b := c[i]
		switch b {
		case ' ', '\t', '\r', '\n':
			i++
			continue
		}
		if s.done {
			s.fail(i, "unexpected %q after the record", b)
			return
		}
		switch len(s.stack) {
		case 0:
			if b != '{' {
				s.fail(i, "record is not a JSON object")
				return
			}
			s.stack = append(s.stack, '{')
			s.want = 'k'
			i++
			continue
		case 1:
			// The top level: key, colon, value, comma. want 'K' is a key
			// after a comma, which a '}' may not replace.
			scalar := !isStructural(b)
			switch {
			case (s.want == 'k' || s.want == 'K') && b == '"':
				s.key, s.keyOK = s.key[:0], true
				s.want = ':'
			case s.want == ':' && b == ':':
				s.want = 'v'
				s.member = memberOf(s.key, s.keyOK)
				i++
				continue
			case (s.want == 'k' || s.want == ',') && b == '}':
				from = s.finishScalar(c, i, from)
				s.stack, s.done = s.stack[:0], true
				i++
				continue
			case s.want == ',' && b == ',':
				from = s.finishScalar(c, i, from)
				s.want = 'K'
				i++
				continue
			case s.want == ',' && scalar:
				// The rest of a number or literal.
			case s.want == 'v':
				s.want = ','
				switch s.member {
				case memberMessages, memberHistory:
					if b != '[' {
						s.fail(i, "%q is not an array", s.key)
						return
					}
					s.msgs = s.msgs || s.member == memberMessages
					s.elemAt = true
				case memberHeader:
					s.keep, s.kept, from = true, s.kept[:0], i
				}
			default:
				s.fail(i, "unexpected %q in the record's top level", b)
				return
			}
		case 2:
			if s.member != memberMessages {
				break
			}
			switch {
			case b == ']' && s.elemAt && s.count > 0:
				s.fail(i, "unexpected ']' after ','")
				return
			case b == ']':
			case b == ',' && !s.elemAt:
				s.elemAt = true
				i++
				continue
			case s.elemAt:
				s.elemAt = false
				s.count++
				if s.prompt && b == '{' {
					s.keep, s.kept, from = true, s.kept[:0], i
				}
			case isStructural(b):
				s.fail(i, "expected ',' or ']' between messages")
				return
			}
		}
		switch b {
		case '"':
			s.inStr, s.bs = true, 0
			i++
			continue
		case '{', '[':
			if len(s.stack) >= scanDepth {
				s.fail(i, "nesting deeper than %d", scanDepth)
				return
			}
			s.stack = append(s.stack, b)
		case '}', ']':
			if open := s.stack[len(s.stack)-1]; (b == '}') != (open == '{') {
				s.fail(i, "unexpected %q", b)
				return
			}
			s.stack = s.stack[:len(s.stack)-1]
		}
		i++
		if b == '}' || b == ']' {
			from = s.valueDone(c, i, from)
		}
	}
	if s.keep && from >= 0 {
		s.keepBytes(c[from:])
	}
}

func isStructural(b byte) bool {
	switch b {
	case '{', '}', '[', ']', '"', ',', ':':
		return true
	}
	return false
}

// valueDone is called when a string or container closes just before c[i]:
// if that closed the value being kept, the value is used. It returns the
// new start of kept bytes in c.
func (s *headScan) valueDone(c []byte, i, from int) int {
	if !s.keep {
		return from
	}
	switch {
	case s.member == memberHeader && len(s.stack) == 1:
	case s.member == memberMessages && len(s.stack) == 2:
	default:
		return from
	}
	s.keepBytes(c[from:i])
	if s.keep {
		s.use()
	}
	return -1
}

// finishScalar ends a kept number or literal at the top level, where the
// comma or brace at c[i] shows it is over (it may have begun in the chunk
// before).
func (s *headScan) finishScalar(c []byte, i, from int) int {
	if !s.keep || s.member != memberHeader {
		return from
	}
	s.keepBytes(c[max(from, 0):i])
	if s.keep {
		s.use()
	}
	return -1
}

// keepBytes adds b to the kept value, or gives up on it past scanKeep.
func (s *headScan) keepBytes(b []byte) {
	if len(s.kept)+len(b) > scanKeep {
		s.keep, s.kept = false, s.kept[:0]
		if s.member == memberMessages {
			s.prompt = false // too big to read its prompt: leave it unknown
		}
		return
	}
	s.kept = append(s.kept, b...)
}

// use sets what a kept value says: a header member, or the first user
// message's prompt.
func (s *headScan) use() {
	s.keep = false
	v := bytes.TrimSpace(s.kept)
	if !gjson.ValidBytes(v) {
		return // the load will say what is wrong; list shows what it can
	}
	switch s.member {
	case memberHeader:
		s.h.set(string(s.key), gjson.ParseBytes(v))
	case memberMessages:
		if gjson.GetBytes(v, "role").String() == "user" {
			s.h.FirstPrompt, s.prompt = promptText(gjson.GetBytes(v, "content")), false
		}
	}
}

// inString scans string bytes from c[i] and returns where to go on: past
// the closing quote, or the end of c. Bodies are skipped with IndexByte;
// an escaped quote is one after an odd run of backslashes, which may have
// started in the chunk before.
func (s *headScan) inString(c []byte, i int) int {
	start := i
	for {
		k := bytes.IndexByte(c[i:], '"')
		if k < 0 {
			s.keyBytes(c[start:])
			s.bs = backslashRun(c[i:], s.bs)
			return len(c)
		}
		j := i + k
		if backslashRun(c[i:j], s.bs)%2 == 0 {
			s.keyBytes(c[start:j])
			s.inStr, s.bs = false, 0
			return j + 1
		}
		s.bs = 0
		i = j + 1
	}
}

// keyBytes keeps b when the string is a top-level key being read.
func (s *headScan) keyBytes(b []byte) {
	if s.want != ':' || len(s.stack) != 1 || !s.keyOK {
		return
	}
	if len(s.key)+len(b) > 64 {
		s.keyOK = false // no header key is this long
		return
	}
	s.key = append(s.key, b...)
}

// backslashRun is the number of backslashes at the end of b, carrying the
// run before b when b is all backslashes.
func backslashRun(b []byte, before int) int {
	n := 0
	for p := len(b) - 1; p >= 0 && b[p] == '\\'; p-- {
		n++
	}
	if n == len(b) {
		n += before
	}
	return n
}

// memberOf says what a top-level member's value is to the scan.
func memberOf(key []byte, ok bool) int {
	if !ok {
		return memberOther
	}
	k := string(key)
	if bytes.IndexByte(key, '\\') >= 0 {
		k = gjson.ParseBytes(append(append([]byte{'"'}, key...), '"')).Str
	}
	switch {
	case k == "messages":
		return memberMessages
	case k == "history":
		return memberHistory
	case isHeaderKey(k):
		return memberHeader
	}
	return memberOther
}
