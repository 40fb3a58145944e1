package store

import (
	"errors"
	"fmt"
)

// appendIndent appends src, a JSON value, to dst in the layout Encode uses
// everywhere: two-space indent, "key": value, empty containers as {} and [].
// depth is the indent level of the line the value starts on. trusted says
// src came out of Decode, so gjson has validated it and string bodies need
// only their end found, not every byte checked.
//
// Why not json.Indent: it runs the encoding/json scanner over every byte,
// which made Save of a 10,000-message record too slow, and it refuses
// nesting deeper than 10,000. This is one pass that copies string bodies in
// bulk, validates as it goes (so a bad SetRaw value cannot produce a broken
// record), uses no recursion, and stops indenting past maxIndent levels so
// the output of a deeply nested value cannot blow up quadratically.
func appendIndent(dst, src []byte, depth int, trusted bool) ([]byte, error) {
	var stack []byte // open containers, '{' or '['
	i := 0
	var err error
	for {
		// A value starts at i.
		i = skipSpace(src, i)
		if i >= len(src) {
			return dst, errEnd
		}
		switch c := src[i]; c {
		case '{', '[':
			in := depth + len(stack) + 1 // the level of its content
			ind := indentOf(in, in)
			j := skipSpace(src, i+1)
			if j < len(src) && src[j] == c+2 { // '{'+2 is '}', '['+2 is ']'
				dst = append(dst, c, c+2)
				i = j + 1
				break
			}
			stack = append(stack, c)
			dst = append(dst, c)
			dst = append(dst, ind...)
			i = j
			if c == '{' {
				if dst, i, err = appendKey(dst, src, i, trusted); err != nil {
					return dst, err
				}
			}
			continue
		case '"':
			j, err := endString(src, i, trusted)
			if err != nil {
				return dst, err
			}
			dst = append(dst, src[i:j]...)
			i = j
		case 't', 'f', 'n':
			lit := literalAt(src, i)
			if lit == "" {
				return dst, syntaxAt(i)
			}
			dst = append(dst, lit...)
			i += len(lit)
		default:
			j := scanNumber(src, i)
			if j == i {
				return dst, syntaxAt(i)
			}
			dst = append(dst, src[i:j]...)
			i = j
		}
		// After a value: close containers until a comma opens the next one.
		for {
			if len(stack) == 0 {
				if i = skipSpace(src, i); i != len(src) {
					return dst, syntaxAt(i)
				}
				return dst, nil
			}
			in := depth + len(stack)
			closing := indentOf(in-1, in)
			if i = skipSpace(src, i); i >= len(src) {
				return dst, errEnd
			}
			top := stack[len(stack)-1]
			if src[i] == top+2 {
				dst = append(dst, closing...)
				dst = append(dst, src[i])
				stack = stack[:len(stack)-1]
				i++
				continue
			}
			if src[i] != ',' {
				return dst, syntaxAt(i)
			}
			ind := indentOf(in, in)
			dst = append(dst, ',')
			dst = append(dst, ind...)
			i = skipSpace(src, i+1)
			if top == '{' {
				if dst, i, err = appendKey(dst, src, i, trusted); err != nil {
					return dst, err
				}
			}
			break
		}
	}
}

// maxIndent is the deepest level that still gets its own lines; deeper
// content is written on one line.
const maxIndent = 32

// newlineSpaces is a line break and 2*maxIndent spaces, written out: a
// constant costs nothing at start-up (TestNewlineSpaces checks it).
const newlineSpaces = "\n" + "                                " + "                                "

// indentOf is the line break and indentation before a line at level inside
// a container whose content is at level content: none past maxIndent.
func indentOf(level, content int) string {
	if content > maxIndent {
		return ""
	}
	return newlineSpaces[:1+2*level]
}

var errEnd = errors.New("unexpected end of JSON value")

func syntaxAt(i int) error { return fmt.Errorf("invalid JSON value at byte %d", i) }

func skipSpace(src []byte, i int) int {
	for i < len(src) && isSpace[src[i]] {
		i++
	}
	return i
}

var isSpace = [256]bool{' ': true, '\n': true, '\t': true, '\r': true}

func appendKey(dst, src []byte, i int, trusted bool) ([]byte, int, error) {
	i = skipSpace(src, i)
	if i >= len(src) || src[i] != '"' {
		return dst, i, syntaxAt(i)
	}
	j, err := endString(src, i, trusted)
	if err != nil {
		return dst, i, err
	}
	dst = append(dst, src[i:j]...)
	i = skipSpace(src, j)
	if i >= len(src) || src[i] != ':' {
		return dst, i, syntaxAt(i)
	}
	return append(dst, ':', ' '), i + 1, nil
}

func endString(src []byte, i int, trusted bool) (int, error) {
	if trusted {
		return endOfString(src, i), nil
	}
	return scanString(src, i)
}

// scanString returns the index just past the string starting at src[i]
// (a '"'), checking escapes and rejecting raw control characters.
func scanString(src []byte, i int) (int, error) {
	j := i + 1
	for j < len(src) {
		c := src[j]
		if c >= 0x20 && c != '"' && c != '\\' {
			j++
			continue
		}
		switch {
		case c == '"':
			return j + 1, nil
		case c < 0x20:
			return 0, syntaxAt(j)
		}
		// A backslash.
		if j+1 >= len(src) {
			return 0, errEnd
		}
		switch src[j+1] {
		case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
			j += 2
		case 'u':
			if j+6 > len(src) {
				return 0, errEnd
			}
			for _, h := range src[j+2 : j+6] {
				if !isHex(h) {
					return 0, syntaxAt(j)
				}
			}
			j += 6
		default:
			return 0, syntaxAt(j)
		}
	}
	return 0, errEnd
}

func isHex(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F'
}

func literalAt(src []byte, i int) string {
	for _, lit := range [...]string{"true", "false", "null"} {
		if len(src)-i >= len(lit) && string(src[i:i+len(lit)]) == lit {
			return lit
		}
	}
	return ""
}

// scanNumber returns the index past the JSON number at src[i], or i when
// there is none: -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?
func scanNumber(src []byte, i int) int {
	j := i
	if j < len(src) && src[j] == '-' {
		j++
	}
	switch {
	case j < len(src) && src[j] == '0':
		j++
	case j < len(src) && src[j] >= '1' && src[j] <= '9':
		j = digits(src, j)
	default:
		return i
	}
	if j < len(src) && src[j] == '.' {
		k := digits(src, j+1)
		if k == j+1 {
			return i
		}
		j = k
	}
	if j < len(src) && (src[j] == 'e' || src[j] == 'E') {
		j++
		if j < len(src) && (src[j] == '+' || src[j] == '-') {
			j++
		}
		k := digits(src, j)
		if k == j {
			return i
		}
		j = k
	}
	return j
}

func digits(src []byte, j int) int {
	for j < len(src) && src[j] >= '0' && src[j] <= '9' {
		j++
	}
	return j
}
