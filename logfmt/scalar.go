package logfmt

import (
	"errors"
	"math"
	"strconv"
	"unicode/utf8"
)

// Scalars are written byte for byte as encoding/json writes them with
// SetEscapeHTML(false), so lines written here and records written with
// encoding/json elsewhere in trail agree on every string and number.

const hexDigits = "0123456789abcdef"

// safeASCII reports whether an ASCII byte may stand unescaped in a JSON
// string.
func safeASCII(b byte) bool { return b >= 0x20 && b != '"' && b != '\\' }

// appendString appends s as a JSON string: control characters, '"' and '\'
// escaped, invalid UTF-8 replaced by U+FFFD, and <, >, & and U+2028/U+2029
// left alone, as JavaScript's JSON.stringify leaves them: the same value
// gets the same bytes, payload file and digest in trail's log as in
// Robota's.
func appendString[S ~string | ~[]byte](dst []byte, s S) []byte {
	dst = append(dst, '"')
	start := 0
	for i := 0; i < len(s); {
		b := s[i]
		if b < utf8.RuneSelf {
			if safeASCII(b) {
				i++
				continue
			}
			dst = append(dst, s[start:i]...)
			switch b {
			case '\\', '"':
				dst = append(dst, '\\', b)
			case '\b':
				dst = append(dst, '\\', 'b')
			case '\f':
				dst = append(dst, '\\', 'f')
			case '\n':
				dst = append(dst, '\\', 'n')
			case '\r':
				dst = append(dst, '\\', 'r')
			case '\t':
				dst = append(dst, '\\', 't')
			default:
				dst = append(dst, '\\', 'u', '0', '0', hexDigits[b>>4], hexDigits[b&0xF])
			}
			i++
			start = i
			continue
		}
		end := min(i+utf8.UTFMax, len(s))
		c, size := utf8.DecodeRuneInString(string(s[i:end]))
		switch {
		case c == utf8.RuneError && size == 1:
			dst = append(dst, s[start:i]...)
			dst = append(dst, `\ufffd`...)
		default:
			i += size
			continue
		}
		i += size
		start = i
	}
	dst = append(dst, s[start:]...)
	return append(dst, '"')
}

var errNonFinite = errors.New("unsupported float value (NaN or Inf)")

// appendFloat writes f in the shortest form that reads back as the same
// float of the given size, switching to exponent form where encoding/json does.
func appendFloat(dst []byte, f float64, bits int) ([]byte, error) {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return dst, errNonFinite
	}
	format := byte('f')
	if abs := math.Abs(f); abs != 0 {
		if bits == 64 && (abs < 1e-6 || abs >= 1e21) ||
			bits == 32 && (float32(abs) < 1e-6 || float32(abs) >= 1e21) {
			format = 'e'
		}
	}
	dst = strconv.AppendFloat(dst, f, format, -1, bits)
	if format == 'e' {
		// "1e-07" -> "1e-7", as encoding/json (and JavaScript) write it.
		n := len(dst)
		if n >= 4 && dst[n-4] == 'e' && dst[n-3] == '-' && dst[n-2] == '0' {
			dst[n-2] = dst[n-1]
			dst = dst[:n-1]
		}
	}
	return dst, nil
}

// validNumber reports whether s is a JSON number; json.Number accepts any
// string, and a line must never carry a bare word in a number's place.
func validNumber(s string) bool {
	i := 0
	if i < len(s) && s[i] == '-' {
		i++
	}
	switch {
	case i == len(s):
		return false
	case s[i] == '0':
		i++
	case s[i] >= '1' && s[i] <= '9':
		for i < len(s) && isDigit(s[i]) {
			i++
		}
	default:
		return false
	}
	if i < len(s) && s[i] == '.' {
		i++
		if i == len(s) || !isDigit(s[i]) {
			return false
		}
		for i < len(s) && isDigit(s[i]) {
			i++
		}
	}
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		i++
		if i < len(s) && (s[i] == '+' || s[i] == '-') {
			i++
		}
		if i == len(s) || !isDigit(s[i]) {
			return false
		}
		for i < len(s) && isDigit(s[i]) {
			i++
		}
	}
	return i == len(s)
}

func isDigit(b byte) bool { return b >= '0' && b <= '9' }
