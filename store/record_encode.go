package store

import (
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"unicode/utf8"
)

// Encode returns the record as written to disk: a two-space-indented JSON
// object, the typed header first (SPEC 3.2 order; id, cwd, createdAt and
// updatedAt always, the rest when set), then Fields in order, then messages
// and history (always, [] when empty), and a final newline.
//
// Every raw value (Fields, Messages, History) is validated and re-indented
// to its depth; only whitespace between tokens changes, never a string,
// number or key order inside it. Nothing is HTML-escaped.
func (r *Record) Encode() ([]byte, error) {
	size := 256
	for _, f := range r.Fields {
		size += len(f.Key) + len(f.Value) + 8
	}
	for _, m := range r.Messages {
		size += len(m) + len(m)/8 + 8
	}
	for _, h := range r.History {
		size += len(h) + len(h)/8 + 8
	}
	e := encoder{b: make([]byte, 0, size)}
	if err := r.encode(&e); err != nil {
		return nil, err
	}
	return e.b, nil
}

// encodeTo writes Encode's bytes to w a part at a time. Save encodes
// straight into the temp file: holding a long session's whole encoding
// first would fault in a second copy of the record, which costs more than
// encoding it.
func (r *Record) encodeTo(w io.Writer) error {
	e := encoder{b: make([]byte, 0, flushAt+flushAt/4), w: w}
	if err := r.encode(&e); err != nil {
		return err
	}
	return e.write()
}

func (r *Record) encode(e *encoder) error {
	e.b = append(e.b, '{')
	for _, k := range headerKeys {
		if err := r.encodeHeader(e, k); err != nil {
			return err
		}
	}
	for _, f := range r.Fields {
		if isHeaderKey(f.Key) || f.Key == "messages" || f.Key == "history" {
			continue // written at its place above, or below
		}
		if err := e.raw(f.Key, f.Value); err != nil {
			return err
		}
	}
	if err := e.array("messages", r.Messages, r.decodedMessages); err != nil {
		return err
	}
	if err := e.array("history", r.History, r.decodedHistory); err != nil {
		return err
	}
	e.b = append(e.b, "\n}\n"...)
	return nil
}

func (r *Record) encodeHeader(e *encoder, key string) error {
	var s string
	switch key {
	case "id":
		s = r.ID
	case "name":
		s = r.Name
	case "cwd":
		s = r.Cwd
	case "createdAt":
		s = r.CreatedAt
	case "updatedAt":
		s = r.UpdatedAt
	case "status":
		s = r.Status
	case "stopReason":
		s = r.StopReason
	case "title":
		s = r.Title
	case "parentSessionId":
		s = r.ParentSessionID
	case "version":
		if r.Version != 0 {
			e.key(key)
			e.b = strconv.AppendInt(e.b, int64(r.Version), 10)
			return nil
		}
	case "messageCount":
		if r.MessageCount != 0 {
			e.key(key)
			e.b = strconv.AppendInt(e.b, int64(r.MessageCount), 10)
			return nil
		}
	case "messageCountAt":
		// The updatedAt the count is true for: another program (Robota)
		// saving the record keeps trail's header keys but not the count,
		// and changes updatedAt, so list sees a count gone stale and
		// counts the messages itself. A count that is not this record's
		// gets no stamp.
		if (r.MessageCount != 0 || r.hadMessageCount) && r.MessageCount == len(r.Messages) && r.UpdatedAt != "" {
			e.key(key)
			e.b = appendString(e.b, r.UpdatedAt)
		}
		return nil
	case "provider":
		if p := r.Provider; p != nil {
			c := appendString([]byte(`{"name":`), p.Name)
			for _, m := range [...]struct{ k, v string }{{"model", p.Model}, {"baseUrl", p.BaseURL}, {"script", p.Script}, {"cassette", p.Cassette}} {
				if m.v != "" {
					c = append(appendString(append(c, ','), m.k), ':')
					c = appendString(c, m.v)
				}
			}
			return e.raw(key, append(c, '}'))
		}
	case "usage":
		if u := r.Usage; u != nil {
			return e.raw(key, encodeUsage(u))
		}
	}
	if s != "" {
		e.key(key)
		e.b = appendString(e.b, s)
		return nil
	}
	// Not set by trail: write what the file had, if anything.
	if raw, ok := r.Fields.Get(key); ok {
		return e.raw(key, raw)
	}
	switch {
	case key == "id" || key == "cwd" || key == "createdAt" || key == "updatedAt":
		e.key(key)
		e.b = append(e.b, `""`...)
	case key == "messageCount" && r.hadMessageCount:
		e.key(key)
		e.b = append(e.b, '0')
	}
	return nil
}

// encoder writes the members of the top-level object.
type encoder struct {
	b []byte
	n int       // members written
	w io.Writer // when set, b is written out each time it passes flushAt
}

// flushAt is how many encoded bytes encodeTo holds before writing them.
const flushAt = 256 << 10

// write hands what b holds to w.
func (e *encoder) write() error {
	if e.w == nil || len(e.b) == 0 {
		return nil
	}
	_, err := e.w.Write(e.b)
	e.b = e.b[:0]
	return err
}

func (e *encoder) key(k string) {
	if e.n > 0 {
		e.b = append(e.b, ',')
	}
	e.n++
	e.b = append(e.b, "\n  "...)
	e.b = appendString(e.b, k)
	e.b = append(e.b, ": "...)
}

func (e *encoder) raw(k string, v json.RawMessage) error {
	e.key(k)
	var err error
	if e.b, err = appendIndent(e.b, v, 1, false); err != nil {
		return fmt.Errorf("encode %q: %w", k, err)
	}
	return nil
}

func (e *encoder) array(k string, elems, decoded []json.RawMessage) error {
	e.key(k)
	if e.w == nil {
		var err error
		e.b, err = appendMemberArray(e.b, k, elems, decoded)
		return err
	}
	if len(elems) == 0 {
		e.b = append(e.b, "[]"...)
		return nil
	}
	e.b = append(e.b, '[')
	for i := range elems {
		var err error
		if e.b, err = appendMemberElem(e.b, k, elems, decoded, i); err != nil {
			return err
		}
		if len(e.b) >= flushAt {
			if err := e.write(); err != nil {
				return err
			}
		}
	}
	e.b = append(e.b, "\n  ]"...)
	return nil
}

// appendMemberArray writes the array value of the top-level member k: one
// element a line at depth 2, "[]" when empty. Elements that are still the
// slices decoded holds skip the byte-by-byte check (see Record).
func appendMemberArray(b []byte, k string, elems, decoded []json.RawMessage) ([]byte, error) {
	if len(elems) == 0 {
		return append(b, "[]"...), nil
	}
	b = append(b, '[')
	for i := range elems {
		var err error
		if b, err = appendMemberElem(b, k, elems, decoded, i); err != nil {
			return b, err
		}
	}
	return append(b, "\n  ]"...), nil
}

// appendMemberElem writes element i of appendMemberArray's array.
func appendMemberElem(b []byte, k string, elems, decoded []json.RawMessage, i int) ([]byte, error) {
	if i > 0 {
		b = append(b, ',')
	}
	b = append(b, "\n    "...)
	v := elems[i]
	trusted := i < len(decoded) && sameBytes(v, decoded[i])
	b, err := appendIndent(b, v, 2, trusted)
	if err != nil {
		return b, fmt.Errorf("encode %s[%d]: %w", k, i, err)
	}
	return b, nil
}

// sameBytes reports whether a and b are the same slice of the same array.
func sameBytes(a, b []byte) bool {
	return len(a) == len(b) && len(a) > 0 && &a[0] == &b[0]
}

const hexDigits = "0123456789abcdef"

// appendString writes s as a JSON string the way encoding/json does with
// HTML escaping off, except that bytes which are not UTF-8 are copied as
// they are (encoding/json would write U+FFFD): a key or value read from a
// record must come back byte for byte. U+2028/2029 are written raw, as
// JavaScript's JSON.stringify writes them (Robota's records have them so).
func appendString(b []byte, s string) []byte {
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' {
				i++
				continue
			}
			b = append(b, s[start:i]...)
			switch c {
			case '"', '\\':
				b = append(b, '\\', c)
			case '\b': // short forms, as JSON.stringify and encoding/json (Go 1.22+) write them
				b = append(b, '\\', 'b')
			case '\f':
				b = append(b, '\\', 'f')
			case '\n':
				b = append(b, '\\', 'n')
			case '\r':
				b = append(b, '\\', 'r')
			case '\t':
				b = append(b, '\\', 't')
			default:
				b = append(b, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xf])
			}
			i++
			start = i
			continue
		}
		_, size := utf8.DecodeRuneInString(s[i:])
		i += size
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}

// encodeUsage writes usage with its optional members only when set.
func encodeUsage(u *Usage) []byte {
	b := fmt.Appendf(nil, `{"inputTokens":%d,"outputTokens":%d`, u.InputTokens, u.OutputTokens)
	if u.CacheReadInputTokens != 0 {
		b = fmt.Appendf(b, `,"cacheReadInputTokens":%d`, u.CacheReadInputTokens)
	}
	if u.CacheCreationInputTokens != 0 {
		b = fmt.Appendf(b, `,"cacheCreationInputTokens":%d`, u.CacheCreationInputTokens)
	}
	if u.CostUSD != nil {
		b = append(b, `,"costUSD":`...)
		b = strconv.AppendFloat(b, *u.CostUSD, 'f', -1, 64)
	}
	return append(b, '}')
}
