package logfmt

import (
	"bytes"
	"math"
	"strconv"
	"strings"
)

// Reading external payload references (SPEC 7.1, 7.2). A reference is any
// object whose "kind" is "external-payload"; it is valid only with exactly
// the five keys the writer puts there, of the right types. Like Robota's
// validator, a reference is never looked into: its own keys are the whole
// story, and what it points at is checked against them.

// refKind is the marker the byte scan looks for before any walk.
var refKind = []byte(`"external-payload"`)

// mayHoldRef reports whether b could contain a reference: the marker, or
// any \u escape (a hostile writer could spell the marker with one). Lines
// without either are never walked.
func mayHoldRef(b []byte) bool {
	return bytes.Contains(b, refKind) || bytes.Contains(b, []byte(`\u`))
}

// PayloadRef is a valid external payload reference.
type PayloadRef struct {
	SHA256       string // 64 lowercase hex digits
	ByteLength   int64
	RelativePath string // relative to the log's folder
}

// maxSafeInteger is JavaScript's Number.MAX_SAFE_INTEGER: Robota's bound on byteLength.
const maxSafeInteger = 1<<53 - 1

// parseRef checks the shape of an object whose kind is "external-payload"
// and says what is wrong when it is not a valid reference.
func parseRef(obj []byte) (PayloadRef, string) {
	var ref PayloadRef
	seen := map[string]bool{}
	why := ""
	eachMember(obj, func(key string, val []byte) bool {
		if seen[key] {
			why = "key " + strconv.Quote(key) + " appears twice"
			return false
		}
		seen[key] = true
		switch key {
		case "kind":
			// Known to be "external-payload": that is how the object was found.
		case "encoding":
			if !stringIs(val, "json") {
				why = `encoding is not "json"`
			}
		case "sha256":
			if s := unquoteToken(val); isString(val) && isLowerHex64(s) {
				ref.SHA256 = s
			} else {
				why = "sha256 is not 64 lowercase hex digits"
			}
		case "byteLength":
			n, ok := safeLength(val)
			if !ok {
				why = "byteLength is not a non-negative integer"
			}
			ref.ByteLength = n
		case "relativePath":
			s := unquoteToken(val)
			if !isString(val) || strings.TrimSpace(s) == "" {
				why = "relativePath is not a non-empty string"
			}
			ref.RelativePath = s
		default:
			why = "unexpected key " + strconv.Quote(key)
		}
		return why == ""
	})
	if why == "" && len(seen) != 5 {
		var missing []string
		for _, k := range [...]string{"encoding", "sha256", "byteLength", "relativePath"} {
			if !seen[k] {
				missing = append(missing, k)
			}
		}
		why = "missing " + strings.Join(missing, ", ")
	}
	return ref, why
}

func isLowerHex64(s string) bool {
	if len(s) != 64 {
		return false
	}
	for i := 0; i < len(s); i++ {
		if c := s[i]; !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f') {
			return false
		}
	}
	return true
}

// safeLength reads a byteLength the way Robota checks it: a number that is
// a non-negative safe integer (so 10, 10.0 and 1e1 are all 10).
func safeLength(tok []byte) (int64, bool) {
	if !isNumber(tok) {
		return 0, false
	}
	f, err := strconv.ParseFloat(string(tok), 64)
	if err != nil || f < 0 || f > maxSafeInteger || f != math.Trunc(f) {
		return 0, false
	}
	return int64(f), true
}

// eachMember calls visit for each member of the valid JSON object b, with
// the decoded key and the raw value, until visit returns false.
func eachMember(b []byte, visit func(key string, val []byte) bool) {
	i := skipSpace(b, 0)
	if i >= len(b) || b[i] != '{' {
		return
	}
	i++
	for {
		i = skipSpace(b, i)
		if i >= len(b) || b[i] != '"' {
			return
		}
		kEnd := stringEnd(b, i)
		if kEnd > len(b) {
			return
		}
		key := unquote(b[i+1 : kEnd-1])
		i = skipSpace(b, skipSpace(b, kEnd)+1)
		if i >= len(b) {
			return
		}
		vEnd, err := skipValue(b, i)
		if err != nil || !visit(key, b[i:vEnd]) {
			return
		}
		i = skipSpace(b, vEnd)
		if i >= len(b) || b[i] != ',' {
			return
		}
		i++
	}
}

// eachElement calls visit for each element of the valid JSON array b.
func eachElement(b []byte, visit func(i int, val []byte) bool) {
	i := skipSpace(b, 0)
	if i >= len(b) || b[i] != '[' {
		return
	}
	i++
	for n := 0; ; n++ {
		i = skipSpace(b, i)
		if i >= len(b) || b[i] == ']' {
			return
		}
		vEnd, err := skipValue(b, i)
		if err != nil || !visit(n, b[i:vEnd]) {
			return
		}
		i = skipSpace(b, vEnd)
		if i >= len(b) || b[i] != ',' {
			return
		}
		i++
	}
}

// isRefObject reports whether the object b has "kind": "external-payload".
func isRefObject(b []byte) bool {
	found := false
	eachMember(b, func(key string, val []byte) bool {
		if key == "kind" {
			found = stringIs(val, "external-payload")
			return false
		}
		return true
	})
	return found
}

// refHit is one reference found in a value: its bytes' span in the value
// and where it sits, as a path like message.content or messages[3].
type refHit struct {
	start, end int
	path       string
	ref        PayloadRef
	invalid    string // why the shape is wrong; "" for a valid reference
}

// findRefs walks the valid JSON value b and calls visit for every
// reference object in it, outermost first, without looking inside one.
// prefix names b itself in paths. The walk's depth is the value's nesting,
// which the line reader has already bounded.
func findRefs(b []byte, prefix string, visit func(refHit)) {
	var path []string
	if prefix != "" {
		path = append(path, prefix)
	}
	walkRefs(b, 0, &path, visit)
}

func walkRefs(b []byte, base int, path *[]string, visit func(refHit)) {
	i := skipSpace(b, 0)
	if i >= len(b) {
		return
	}
	switch b[i] {
	case '{':
		if isRefObject(b) {
			ref, why := parseRef(b)
			visit(refHit{start: base + i, end: base + len(bytes.TrimRight(b, " \t\r\n")), path: joinPath(*path), ref: ref, invalid: why})
			return
		}
		eachMember(b, func(key string, val []byte) bool {
			if c := val[0]; c == '{' || c == '[' {
				*path = append(*path, key)
				walkRefs(val, base+offsetIn(b, val), path, visit)
				*path = (*path)[:len(*path)-1]
			}
			return true
		})
	case '[':
		eachElement(b, func(n int, val []byte) bool {
			if c := val[0]; c == '{' || c == '[' {
				*path = append(*path, "["+strconv.Itoa(n)+"]")
				walkRefs(val, base+offsetIn(b, val), path, visit)
				*path = (*path)[:len(*path)-1]
			}
			return true
		})
	}
}

// offsetIn is the offset of sub inside b (sub is a subslice of b).
func offsetIn(b, sub []byte) int {
	return cap(b) - cap(sub)
}

func joinPath(segs []string) string {
	var sb strings.Builder
	for _, s := range segs {
		if sb.Len() > 0 && !strings.HasPrefix(s, "[") {
			sb.WriteByte('.')
		}
		sb.WriteString(s)
	}
	return sb.String()
}
