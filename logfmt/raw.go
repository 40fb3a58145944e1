package logfmt

import (
	"bytes"
	"errors"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/tidwall/gjson"
)

// Raw JSON (json.RawMessage, a json.Marshaler's output, encoding/json's
// output for other types) is validated, then either copied through
// compacted or, when it may hold a secret or is big enough to hold a
// payload, walked token by token and re-emitted with the same key order.
// The walk never builds a tree: it writes into the line as it reads.

var (
	errInvalidRaw = errors.New("invalid raw json")
	errMalformed  = errors.New("malformed raw json")
)

// raw appends the JSON document b, compacted, redacted and externalized as
// the encoder is configured. A nil document is null, as encoding/json has it.
func (e *encoder) raw(dst, b []byte) ([]byte, error) {
	if b == nil {
		return append(dst, "null"...), nil
	}
	// gjson validates recursively: refuse nesting the walk would refuse
	// anyway before it can cost gigabytes of stack.
	if room := maxDepth - e.depth; bytes.Count(b, []byte{'['})+bytes.Count(b, []byte{'{'}) > room && nestingDepth(b) > room {
		return dst, errTooDeep
	}
	if !gjson.ValidBytes(b) {
		return dst, errInvalidRaw
	}
	if !e.mustWalk(b) {
		return appendCompact(dst, b), nil
	}
	i := skipSpace(b, 0)
	if i >= len(b) {
		return dst, errMalformed
	}
	// The caller settles the value as a whole; rawValue settles only its
	// children, so the top level is not measured twice.
	dst, _, err := e.rawInline(dst, b, i)
	return dst, err
}

// mustWalk reports whether b needs more than a compacting copy. Raw bytes
// no longer than the threshold cannot hold an externalizable value, and
// bytes without any trace of a secret need no redaction.
func (e *encoder) mustWalk(b []byte) bool {
	if e.ext != nil && len(b) > e.ext.threshold {
		return true
	}
	return e.red != nil && e.red.rawSuspect(b)
}

// rawValue appends the value starting at b[i], settles it, and returns the
// index just past it.
func (e *encoder) rawValue(dst, b []byte, i int) ([]byte, int, error) {
	start := len(dst)
	dst, i, err := e.rawInline(dst, b, i)
	if err != nil {
		return dst, i, err
	}
	dst, err = e.settle(dst, start)
	return dst, i, err
}

func (e *encoder) rawInline(dst, b []byte, i int) ([]byte, int, error) {
	switch b[i] {
	case '{':
		return e.rawObject(dst, b, i)
	case '[':
		return e.rawArray(dst, b, i)
	case '"':
		j := stringEnd(b, i)
		if j > len(b) {
			return dst, j, errMalformed
		}
		return e.rawString(dst, b[i:j]), j, nil
	}
	j := literalEnd(b, i)
	if j == i {
		return dst, i, errMalformed
	}
	return append(dst, b[i:j]...), j, nil
}

func (e *encoder) rawObject(dst, b []byte, i int) ([]byte, int, error) {
	if err := e.enter(); err != nil {
		return dst, i, err
	}
	defer func() { e.depth-- }()
	dst = append(dst, '{')
	i++
	for n := 0; ; n++ {
		i = skipSpace(b, i)
		if i < len(b) && b[i] == '}' {
			return append(dst, '}'), i + 1, nil
		}
		if n > 0 {
			if i >= len(b) || b[i] != ',' {
				return dst, i, errMalformed
			}
			i = skipSpace(b, i+1)
			dst = append(dst, ',')
		}
		if i >= len(b) || b[i] != '"' {
			return dst, i, errMalformed
		}
		j := stringEnd(b, i)
		if j > len(b) {
			return dst, i, errMalformed
		}
		key := b[i:j]
		dst = append(dst, key...)
		i = skipSpace(b, j)
		if i >= len(b) || b[i] != ':' {
			return dst, i, errMalformed
		}
		dst = append(dst, ':')
		i = skipSpace(b, i+1)
		if i >= len(b) {
			return dst, i, errMalformed
		}
		var err error
		if e.red != nil && e.red.sensitiveRawKey(key[1:len(key)-1]) {
			dst = append(dst, redactedJSON...)
			e.changed = true
			i, err = skipValue(b, i)
		} else {
			dst, i, err = e.rawValue(dst, b, i)
		}
		if err != nil {
			return dst, i, err
		}
	}
}

func (e *encoder) rawArray(dst, b []byte, i int) ([]byte, int, error) {
	if err := e.enter(); err != nil {
		return dst, i, err
	}
	defer func() { e.depth-- }()
	dst = append(dst, '[')
	i++
	for n := 0; ; n++ {
		i = skipSpace(b, i)
		if i < len(b) && b[i] == ']' {
			return append(dst, ']'), i + 1, nil
		}
		if n > 0 {
			if i >= len(b) || b[i] != ',' {
				return dst, i, errMalformed
			}
			i = skipSpace(b, i+1)
			dst = append(dst, ',')
		}
		if i >= len(b) {
			return dst, i, errMalformed
		}
		var err error
		if dst, i, err = e.rawValue(dst, b, i); err != nil {
			return dst, i, err
		}
	}
}

// rawString appends the string token tok (quotes included) as written,
// unless it holds a secret; then it is decoded, scrubbed and re-encoded.
func (e *encoder) rawString(dst, tok []byte) []byte {
	body := tok[1 : len(tok)-1]
	if e.red == nil || !e.red.rawStringSuspect(body) {
		return append(dst, tok...)
	}
	s := unquote(body)
	clean := e.red.scrub(s)
	if clean == s {
		return append(dst, tok...)
	}
	e.changed = true
	return appendString(dst, clean)
}

func skipSpace(b []byte, i int) int {
	for i < len(b) && isSpace(b[i]) {
		i++
	}
	return i
}

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

// stringEnd returns the index just past the closing quote of the string
// starting at b[i], or len(b)+1 when it is unterminated.
func stringEnd(b []byte, i int) int {
	j := i + 1
	for {
		k := bytes.IndexByte(b[j:], '"')
		if k < 0 {
			return len(b) + 1
		}
		q := j + k
		// A quote is escaped when an odd run of backslashes precedes it.
		n := 0
		for p := q - 1; p > i && b[p] == '\\'; p-- {
			n++
		}
		if n%2 == 0 {
			return q + 1
		}
		j = q + 1
	}
}

// literalEnd returns the index just past the number, true, false or null
// starting at b[i].
func literalEnd(b []byte, i int) int {
	for i < len(b) {
		switch b[i] {
		case ',', '}', ']', ':', '"', '{', '[', ' ', '\t', '\n', '\r':
			return i
		}
		i++
	}
	return i
}

// skipValue returns the index just past the value starting at b[i]. It
// iterates instead of recursing: the value is being thrown away.
func skipValue(b []byte, i int) (int, error) {
	switch b[i] {
	case '"':
		j := stringEnd(b, i)
		if j > len(b) {
			return i, errMalformed
		}
		return j, nil
	case '{', '[':
	default:
		if j := literalEnd(b, i); j > i {
			return j, nil
		}
		return i, errMalformed
	}
	depth := 0
	for i < len(b) {
		switch b[i] {
		case '"':
			i = stringEnd(b, i)
			continue
		case '{', '[':
			depth++
		case '}', ']':
			depth--
			if depth == 0 {
				return i + 1, nil
			}
		}
		i++
	}
	return i, errMalformed
}

// nestingDepth is the deepest bracket nesting of b, strings skipped.
func nestingDepth(b []byte) int {
	depth, deepest := 0, 0
	for i := 0; i < len(b); {
		switch b[i] {
		case '"':
			i = stringEnd(b, i)
			continue
		case '{', '[':
			depth++
			deepest = max(deepest, depth)
		case '}', ']':
			depth--
		}
		i++
	}
	return deepest
}

// appendCompact appends valid JSON b without whitespace outside strings.
// Escapes are kept as written (\u003c stays \u003c).
func appendCompact(dst, b []byte) []byte {
	if bytes.IndexByte(b, ' ') < 0 && bytes.IndexByte(b, '\n') < 0 &&
		bytes.IndexByte(b, '\t') < 0 && bytes.IndexByte(b, '\r') < 0 {
		return append(dst, b...)
	}
	start := 0
	for i := 0; i < len(b); {
		switch c := b[i]; {
		case c == '"':
			i = min(stringEnd(b, i), len(b))
		case isSpace(c):
			dst = append(dst, b[start:i]...)
			i++
			start = i
		default:
			i++
		}
	}
	return append(dst, b[start:]...)
}

// unquote decodes the body of a JSON string as encoding/json does: invalid
// UTF-8 and unpaired surrogates become U+FFFD.
func unquote(s []byte) string {
	if bytes.IndexByte(s, '\\') < 0 && utf8.Valid(s) {
		return string(s)
	}
	out := make([]byte, 0, len(s))
	for i := 0; i < len(s); {
		c := s[i]
		switch {
		case c == '\\' && i+1 < len(s):
			switch s[i+1] {
			case 'b':
				out = append(out, '\b')
			case 'f':
				out = append(out, '\f')
			case 'n':
				out = append(out, '\n')
			case 'r':
				out = append(out, '\r')
			case 't':
				out = append(out, '\t')
			case 'u':
				r := hex4(s[i+2:])
				if r < 0 {
					out = utf8.AppendRune(out, utf8.RuneError)
					i += 2
					continue
				}
				i += 6
				if utf16.IsSurrogate(r) {
					if len(s) >= i+6 && s[i] == '\\' && s[i+1] == 'u' {
						if r2 := utf16.DecodeRune(r, hex4(s[i+2:])); r2 != utf8.RuneError {
							out = utf8.AppendRune(out, r2)
							i += 6
							continue
						}
					}
					r = utf8.RuneError
				}
				out = utf8.AppendRune(out, r)
				continue
			default: // '"', '\\', '/'
				out = append(out, s[i+1])
			}
			i += 2
		case c < utf8.RuneSelf:
			out = append(out, c)
			i++
		default:
			r, size := utf8.DecodeRune(s[i:])
			if r == utf8.RuneError && size == 1 {
				out = utf8.AppendRune(out, utf8.RuneError)
			} else {
				out = append(out, s[i:i+size]...)
			}
			i += size
		}
	}
	return string(out)
}

// hex4 reads four hex digits, or returns -1.
func hex4(s []byte) rune {
	if len(s) < 4 {
		return -1
	}
	var r rune
	for _, c := range s[:4] {
		switch {
		case '0' <= c && c <= '9':
			c -= '0'
		case 'a' <= c && c <= 'f':
			c = c - 'a' + 10
		case 'A' <= c && c <= 'F':
			c = c - 'A' + 10
		default:
			return -1
		}
		r = r<<4 | rune(c)
	}
	return r
}
