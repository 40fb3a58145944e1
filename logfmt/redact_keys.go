package logfmt

import (
	"bytes"
	"unicode/utf8"

	"trail/lazy"
)

// Sensitive key names (SPEC 7.1): the value under a key that is,
// case-insensitively and as a whole, one of api[-_]?key, authorization,
// access[-_]?token, refresh[-_]?token, secret, password, x[-_]?api[-_]?key
// becomes "[REDACTED]", whatever its type.

// sensitiveKeyRE is the rule as written; sensitiveKey answers the same
// question without it, and falls back to it for non-ASCII keys.
// It is compiled on first use: most runs never meet a key that needs it.
var sensitiveKeyRE = lazy.Regexp{Expr: `(?i)^(?:api[-_]?key|authorization|access[-_]?token|refresh[-_]?token|secret|password|x[-_]?api[-_]?key)$`}

// sensitiveRawKey checks the body of a key token as written in raw JSON.
func (r *redactor) sensitiveRawKey(body []byte) bool {
	if bytes.IndexByte(body, '\\') >= 0 {
		return sensitiveKey(unquote(body))
	}
	return sensitiveKey(body)
}

// Longest keys the rule accepts, in bytes: all ASCII, and with the
// non-ASCII runes that fold to ASCII letters (K, U+212A for k; ſ, U+017F
// for s) in place of every k and s ("acceſſ_toKen").
const (
	maxSensitiveASCII = len("refresh_token")
	maxSensitiveBytes = len("acce\u017f\u017f_to\u212aen")
)

// sensitiveKey reports whether k matches sensitiveKeyRE, without running it
// for the ASCII keys that make up nearly every log.
func sensitiveKey[S ~string | ~[]byte](k S) bool {
	n := len(k)
	if n < len("secret") || n > maxSensitiveBytes {
		return false
	}
	var low [maxSensitiveBytes]byte
	for i := range n {
		c := k[i]
		if c >= utf8.RuneSelf {
			return sensitiveKeyRE.Get().MatchString(string(k))
		}
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		low[i] = c
	}
	if n > maxSensitiveASCII {
		return false
	}
	s := low[:n]
	switch string(s) {
	case "authorization", "secret", "password":
		return true
	}
	if s[0] == 'x' {
		s = s[1:]
		if s[0] == '-' || s[0] == '_' {
			s = s[1:]
		}
		return joined(s, "api", "key")
	}
	return joined(s, "api", "key") || joined(s, "access", "token") || joined(s, "refresh", "token")
}

// joined reports whether s is a+b, a+"-"+b or a+"_"+b.
func joined(s []byte, a, b string) bool {
	if len(s) < len(a)+len(b) || len(s) > len(a)+len(b)+1 || string(s[:len(a)]) != a {
		return false
	}
	rest := s[len(a):]
	if len(rest) > len(b) {
		if rest[0] != '-' && rest[0] != '_' {
			return false
		}
		rest = rest[1:]
	}
	return string(rest) == b
}

// mayHoldSensitiveKey reports whether raw JSON b may have an object key
// the redaction rule matches. It reads only the strings written before a
// ':', which is where every key stands, so words inside values ("monkey",
// "tokens") cost nothing. A key it cannot read plainly (an escaped quote in
// it) counts as suspect; a ':' inside a value at worst adds a needless walk.
func mayHoldSensitiveKey(b []byte) bool {
	for i := 0; i < len(b); {
		j := bytes.IndexByte(b[i:], ':')
		if j < 0 {
			return false
		}
		colon := i + j
		i = colon + 1
		end := colon - 1
		for end >= 0 && isSpace(b[end]) {
			end--
		}
		if end < 0 || b[end] != '"' {
			continue
		}
		start := bytes.LastIndexByte(b[:end], '"')
		if start < 0 || (start > 0 && b[start-1] == '\\') {
			return true
		}
		body := b[start+1 : end]
		if bytes.IndexByte(body, '\\') >= 0 {
			if sensitiveKey(unquote(body)) {
				return true
			}
		} else if sensitiveKey(body) {
			return true
		}
	}
	return false
}
