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
	return hasMarker(b) || bytes.Contains(b, []byte(`\u`))
}

// hasMarker is bytes.Contains(b, refKind), searching from the '-': the
// search runs on the needle's first byte, and '"' is the commonest byte
// of a log line while '-' is rare.
func hasMarker(b []byte) bool {
	const tail = `-payload"`
	const head = len(`"external`)
	for off := 0; ; {
		i := bytes.Index(b[off:], []byte(tail))
		if i < 0 {
			return false
		}
		i += off
		if i >= head && string(b[i-head:i]) == `"external` {
			return true
		}
		off = i + 1
	}
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
	eachMemberRaw(b, func(key, val []byte) bool { return visit(unquote(key), val) })
}

// eachMemberRaw is eachMember with the key as it is written, between its
// quotes (escapes not decoded), so scans that look at every member do not
// allocate a string per key.
func eachMemberRaw(b []byte, visit func(key, val []byte) bool) {
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
		key := b[i+1 : kEnd-1]
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

// keyIs compares a raw key with a name, decoding it only when it has escapes.
func keyIs(raw []byte, name string) bool {
	if bytes.IndexByte(raw, '\\') < 0 {
		return string(raw) == name
	}
	return unquote(raw) == name
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
	eachMemberRaw(b, func(key, val []byte) bool {
		if keyIs(key, "kind") {
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

// findRefs returns every reference object in the valid JSON value b,
// outermost first, without looking inside one. prefix names b itself in
// paths. Only values that contain the marker are entered, so a line with
// one reference among many messages costs about one pass over it; when b
// has no plain marker (the caller found a \u escape that could spell one)
// every value is entered. The depth is the value's nesting, which the
// line reader has already bounded.
func findRefs(b []byte, prefix string) []refHit {
	var path []string
	if prefix != "" {
		path = append(path, prefix)
	}
	var hits []refHit
	w := refWalker{path: path, all: !hasMarker(b)}
	w.walk(b, 0, &hits)
	return hits
}

type refWalker struct {
	path []string
	all  bool // enter every value, not only those holding the marker
}

func (w *refWalker) enter(val []byte) bool {
	if c := val[0]; c != '{' && c != '[' {
		return false
	}
	return w.all || hasMarker(val)
}

func (w *refWalker) walk(b []byte, base int, hits *[]refHit) {
	i := skipSpace(b, 0)
	if i >= len(b) {
		return
	}
	switch b[i] {
	case '{':
		mark := len(*hits)
		isRef := false
		eachMemberRaw(b, func(key, val []byte) bool {
			if keyIs(key, "kind") && stringIs(val, "external-payload") {
				isRef = true
				return false
			}
			if w.enter(val) {
				w.path = append(w.path, unquote(key))
				w.walk(val, base+offsetIn(b, val), hits)
				w.path = w.path[:len(w.path)-1]
			}
			return true
		})
		if isRef {
			// A reference is never looked into: drop what was found
			// inside it before its kind came up.
			*hits = (*hits)[:mark]
			ref, why := parseRef(b)
			*hits = append(*hits, refHit{start: base + i, end: base + len(bytes.TrimRight(b, " \t\r\n")), path: joinPath(w.path), ref: ref, invalid: why})
		}
	case '[':
		eachElement(b, func(n int, val []byte) bool {
			if w.enter(val) {
				w.path = append(w.path, "["+strconv.Itoa(n)+"]")
				w.walk(val, base+offsetIn(b, val), hits)
				w.path = w.path[:len(w.path)-1]
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
