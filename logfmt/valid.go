package logfmt

import (
	"encoding/binary"
	"math/bits"
)

// validLine is gjson.ValidBytes for a log line, the same grammar byte for
// byte (valid_test.go checks the two agree), made for the reader's hot
// path: a loop instead of recursion, string bodies skipped eight bytes at a
// time, and in the same pass the one fact about the line the validator
// needs next, whether it may hold a payload reference (mayHoldRef). On a
// log of short lines gjson's byte-by-byte walk and the separate searches
// for the marker were half the time of validate-log.
//
// The caller bounds the nesting first (isJSONObject), so depth stays
// within maxDepth; the stack of open containers is one bit a level.
func validLine(b []byte) (ok, mayRef bool) {
	var small [4]uint64 // 256 levels before the stack leaves the goroutine's frame
	stack := small[:]
	depth := 0
	i := skipWS(b, 0)
	// want says what may come next: a value, a key (or '}' on an empty
	// object), or after a value a ',' or the container's close.
	const (
		wantValue = iota
		wantKey
		wantKeyOrClose
		wantValueOrClose
		wantCommaOrClose
	)
	want := wantValue
	for {
		if want == wantCommaOrClose && depth == 0 {
			// The top-level value is over: only space may follow.
			return skipWS(b, i) == len(b), mayRef
		}
		if i >= len(b) {
			return false, mayRef
		}
		c := b[i]
		switch want {
		case wantKey, wantKeyOrClose:
			if c == '}' && want == wantKeyOrClose {
				goto closeObject
			}
			if c != '"' {
				return false, mayRef
			}
			j, esc, ok := stringEndValid(b, i+1)
			if !ok {
				return false, mayRef
			}
			mayRef = mayRef || esc || isRefKind(b[i+1:j-1])
			i = skipWS(b, j)
			if i >= len(b) || b[i] != ':' {
				return false, mayRef
			}
			i = skipWS(b, i+1)
			want = wantValue
			continue
		case wantCommaOrClose:
			inObject := stack[(depth-1)>>6]&(1<<((depth-1)&63)) != 0
			switch {
			case c == ',' && inObject:
				i = skipWS(b, i+1)
				want = wantKey
			case c == ',':
				i = skipWS(b, i+1)
				want = wantValue
			case c == '}' && inObject:
				goto closeObject
			case c == ']' && !inObject:
				depth--
				i = skipWS(b, i+1)
				want = wantCommaOrClose
			default:
				return false, mayRef
			}
			continue
		case wantValueOrClose:
			if c == ']' {
				depth--
				i = skipWS(b, i+1)
				want = wantCommaOrClose
				continue
			}
		}
		// A value.
		switch {
		case c == '"':
			j, esc, ok := stringEndValid(b, i+1)
			if !ok {
				return false, mayRef
			}
			mayRef = mayRef || esc || isRefKind(b[i+1:j-1])
			i = j
		case c == '{' || c == '[':
			if depth>>6 >= len(stack) {
				stack = append(stack, 0)
			}
			bit := uint64(1) << (depth & 63)
			if c == '{' {
				stack[depth>>6] |= bit
				want = wantKeyOrClose
			} else {
				stack[depth>>6] &^= bit
				want = wantValueOrClose
			}
			depth++
			i = skipWS(b, i+1)
			continue
		case c == '-' || c >= '0' && c <= '9':
			j, ok := numberEnd(b, i)
			if !ok {
				return false, mayRef
			}
			i = j
		case c == 't':
			if len(b)-i < 4 || string(b[i:i+4]) != "true" {
				return false, mayRef
			}
			i += 4
		case c == 'f':
			if len(b)-i < 5 || string(b[i:i+5]) != "false" {
				return false, mayRef
			}
			i += 5
		case c == 'n':
			if len(b)-i < 4 || string(b[i:i+4]) != "null" {
				return false, mayRef
			}
			i += 4
		default:
			return false, mayRef
		}
		if depth == 0 {
			return skipWS(b, i) == len(b), mayRef
		}
		i = skipWS(b, i)
		want = wantCommaOrClose
		continue
	closeObject:
		depth--
		if depth == 0 {
			return skipWS(b, i+1) == len(b), mayRef
		}
		i = skipWS(b, i+1)
		want = wantCommaOrClose
	}
}

// isRefKind reports whether a string body is the payload marker's kind as
// written (an escaped spelling sets mayRef through its \u escape).
func isRefKind(body []byte) bool {
	return len(body) == len(refKind)-2 && string(body) == string(refKind[1:len(refKind)-1])
}

func skipWS(b []byte, i int) int {
	for i < len(b) {
		switch b[i] {
		case ' ', '\t', '\n', '\r':
			i++
			continue
		}
		break
	}
	return i
}

// stringEndValid returns the index just past the string whose body starts
// at b[i], as gjson accepts strings: no byte below 0x20, escapes from the
// JSON set, \u with four hex digits. esc reports a \u escape.
func stringEndValid(b []byte, i int) (end int, esc, ok bool) {
	const (
		ones  = 0x0101010101010101
		highs = 0x8080808080808080
	)
	for {
		// Eight bytes at a time while none is '"', '\\' or a control byte.
		for len(b)-i >= 8 {
			x := binary.LittleEndian.Uint64(b[i:])
			q := x ^ (ones * '"')
			s := x ^ (ones * '\\')
			special := (((q - ones) &^ q) | ((s - ones) &^ s) | ((x - ones*0x20) &^ x)) & highs
			if special != 0 {
				// The lowest flagged byte is a real one (a borrow can
				// only flag bytes above it): go straight to it.
				i += bits.TrailingZeros64(special) >> 3
				break
			}
			i += 8
		}
		if i >= len(b) {
			return i, esc, false
		}
		c := b[i]
		switch {
		case c == '"':
			return i + 1, esc, true
		case c < 0x20:
			return i, esc, false
		case c == '\\':
			if i+1 >= len(b) {
				return i, esc, false
			}
			switch b[i+1] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				i += 2
			case 'u':
				if len(b)-i < 6 || !isHex(b[i+2]) || !isHex(b[i+3]) || !isHex(b[i+4]) || !isHex(b[i+5]) {
					return i, esc, false
				}
				esc = true
				i += 6
			default:
				return i, esc, false
			}
		default:
			i++
		}
	}
}

// numberEnd returns the index just past the number at b[i], as gjson reads
// one: -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?.
func numberEnd(b []byte, i int) (int, bool) {
	if b[i] == '-' {
		i++
		if i >= len(b) || b[i] < '0' || b[i] > '9' {
			return i, false
		}
	}
	if b[i] == '0' {
		i++
	} else {
		for i < len(b) && b[i] >= '0' && b[i] <= '9' {
			i++
		}
	}
	if i < len(b) && b[i] == '.' {
		i++
		if i >= len(b) || b[i] < '0' || b[i] > '9' {
			return i, false
		}
		for i < len(b) && b[i] >= '0' && b[i] <= '9' {
			i++
		}
	}
	if i < len(b) && (b[i] == 'e' || b[i] == 'E') {
		i++
		if i < len(b) && (b[i] == '+' || b[i] == '-') {
			i++
		}
		if i >= len(b) || b[i] < '0' || b[i] > '9' {
			return i, false
		}
		for i < len(b) && b[i] >= '0' && b[i] <= '9' {
			i++
		}
	}
	return i, true
}

func isHex(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F'
}
