package store

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/tidwall/gjson"
)

// headerKeys is the order Encode writes the typed header in (SPEC 3.2).
// list reads only the first few KiB of a record, so these come first.
var headerKeys = [...]string{
	"id", "name", "cwd", "createdAt", "updatedAt", "version", "status",
	"stopReason", "provider", "messageCount", "messageCountAt", "title", "parentSessionId", "usage",
}

func isHeaderKey(k string) bool {
	switch k {
	case "id", "name", "cwd", "createdAt", "updatedAt", "version", "status",
		"stopReason", "provider", "messageCount", "messageCountAt", "title", "parentSessionId", "usage":
		return true
	}
	return false
}

// maxNesting bounds how deep a record may nest. gjson validates
// recursively, and a goroutine stack overflow is fatal rather than a panic
// we could recover, so a hostile file of a million '[' must be refused
// before gjson sees it.
const maxNesting = 100_000

// Decode parses a session record. It returns a *CorruptError for input that
// is not a JSON object, or whose values trail reads have the wrong shape
// (record_shape.go), and never panics. The Record does not alias data.
func Decode(data []byte, path string) (*Record, error) {
	if err := checkRecord(data, path); err != nil {
		return nil, err
	}
	return decodeValid(bytes.Clone(data), path)
}

// checkRecord refuses what must not reach the walkers: input nested too
// deep for gjson's recursive validator, or that is not JSON.
func checkRecord(data []byte, path string) error {
	if off := tooDeep(data); off >= 0 {
		return &CorruptError{Path: path, Offset: off, Err: errors.New("nesting too deep")}
	}
	if !gjson.ValidBytes(data) {
		return syntaxError(data, path)
	}
	return nil
}

// decodeValid decodes data that checkRecord accepted. The raw values slice
// into data, so the caller hands it over.
func decodeValid(data []byte, path string) (*Record, error) {
	start := skipSpace(data, 0)
	if data[start] != '{' {
		return nil, &CorruptError{Path: path, Offset: int64(start), Err: errors.New("record is not a JSON object")}
	}
	r := &Record{}
	fields := fieldIndex{at: map[string]int{}}
	var cerr error
	walkObject(data, start, func(key string, off int) (int, bool) {
		if key == "messages" || key == "history" {
			if data[off] != '[' {
				cerr = &CorruptError{Path: path, Offset: int64(off), Err: fmt.Errorf("%q is not an array", key)}
				return 0, false
			}
			elems := []json.RawMessage{}
			var serr *shapeError
			end := walkArrayAt(data, off, func(eoff, eend int) bool {
				serr = checkElement(data, key, eoff, len(elems))
				elems = append(elems, data[eoff:eend:eend])
				return serr == nil
			})
			if serr != nil {
				cerr = serr.corrupt(path)
				return 0, false
			}
			if key == "messages" {
				r.Messages = elems
			} else {
				r.History = elems
			}
			return end, true
		}
		if serr := checkTopMember(data, key, off); serr != nil {
			cerr = serr.corrupt(path)
			return 0, false
		}
		end := endOfValue(data, off)
		raw := data[off:end:end]
		if isHeaderKey(key) && r.decodeHeader(key, gjson.ParseBytes(raw)) {
			fields.drop(key) // an earlier duplicate kept raw
		} else {
			fields.set(key, raw)
		}
		return end, true
	})
	if cerr != nil {
		return nil, cerr
	}
	r.Fields = fields.result()
	r.decodedMessages, r.decodedHistory = slices.Clone(r.Messages), slices.Clone(r.History)
	return r, nil
}

// syntaxError asks encoding/json where the syntax error is: gjson only says
// yes or no, and the user needs an offset to repair the file.
func syntaxError(data []byte, path string) error {
	var raw json.RawMessage
	err := json.Unmarshal(data, &raw)
	var se *json.SyntaxError
	if errors.As(err, &se) {
		return &CorruptError{Path: path, Offset: se.Offset, Err: se}
	}
	return &CorruptError{Path: path, Err: errors.New("invalid JSON")}
}

// tooDeep returns the offset where data nests deeper than maxNesting, or -1.
// Counting brackets is vectorised and rules out almost every real record
// without the byte-by-byte walk.
func tooDeep(data []byte) int64 {
	if bytes.Count(data, []byte{'['})+bytes.Count(data, []byte{'{'}) <= maxNesting {
		return -1
	}
	depth, inStr := 0, false
	for i := 0; i < len(data); i++ {
		c := data[i]
		if inStr {
			if c == '\\' {
				i++
			} else if c == '"' {
				inStr = false
			}
			continue
		}
		switch c {
		case '"':
			inStr = true
		case '[', '{':
			if depth++; depth > maxNesting {
				return int64(i)
			}
		case ']', '}':
			depth--
		}
	}
	return -1
}

// decodeHeader stores a header member in its typed field and reports
// whether it did. It does not when the value is the zero value or not of the
// typed kind; the caller then keeps the raw value so Encode writes it back.
func (r *Record) decodeHeader(key string, v gjson.Result) (typed bool) {
	var str *string
	switch key {
	case "id":
		str = &r.ID
	case "name":
		str = &r.Name
	case "cwd":
		str = &r.Cwd
	case "createdAt":
		str = &r.CreatedAt
	case "updatedAt":
		str = &r.UpdatedAt
	case "status":
		str = &r.Status
	case "stopReason":
		str = &r.StopReason
	case "title":
		str = &r.Title
	case "parentSessionId":
		str = &r.ParentSessionID
	case "version":
		r.Version = headerInt(v)
		return r.Version != 0
	case "messageCount":
		r.MessageCount = headerInt(v)
		r.hadMessageCount = r.hadMessageCount || v.Type == gjson.Number
		return r.MessageCount != 0
	case "messageCountAt":
		return true // Encode writes it from the record it saves
	case "provider":
		r.Provider = decodeProvider(v)
		return r.Provider != nil
	case "usage":
		r.Usage = decodeUsage(v)
		return r.Usage != nil
	default:
		return false
	}
	*str = ""
	if v.Type == gjson.String {
		*str = strings.Clone(v.Str) // v.Str may point into a larger text
	}
	return *str != ""
}

// headerInt is v as an int; 1.5, 1e3, an overflow or a string give 0.
func headerInt(v gjson.Result) int {
	if v.Type != gjson.Number {
		return 0
	}
	n, _ := strconv.Atoi(v.Raw)
	return n
}

// fieldIndex builds Fields in O(1) per member: a record with a hundred
// thousand keys must not take quadratic time to load.
type fieldIndex struct {
	fields Fields
	at     map[string]int
}

// set stores raw under key; a duplicate replaces the earlier value in its
// place (the last one wins, as in encoding/json).
func (x *fieldIndex) set(key string, raw json.RawMessage) {
	if i, ok := x.at[key]; ok {
		x.fields[i].Value = raw
		return
	}
	x.at[key] = len(x.fields)
	x.fields = append(x.fields, Field{Key: key, Value: raw})
}

// drop forgets key; its slot is removed by result.
func (x *fieldIndex) drop(key string) {
	if i, ok := x.at[key]; ok {
		x.fields[i].Value = nil
		delete(x.at, key)
	}
}

func (x *fieldIndex) result() Fields {
	return slices.DeleteFunc(x.fields, func(f Field) bool { return f.Value == nil })
}

// decodeProvider types a provider object only when Encode would write it
// back with the same meaning: string members name (non-empty), model,
// baseUrl, script, cassette, each at most once, the optional ones non-empty. Anything
// else stays raw so no member is lost.
func decodeProvider(v gjson.Result) *ProviderRef {
	if !v.IsObject() {
		return nil
	}
	p := &ProviderRef{}
	seen := map[string]bool{}
	ok := true
	v.ForEach(func(k, f gjson.Result) bool {
		var dst *string
		switch k.Str {
		case "name":
			dst = &p.Name
		case "model":
			dst = &p.Model
		case "baseUrl":
			dst = &p.BaseURL
		case "script":
			dst = &p.Script
		case "cassette":
			dst = &p.Cassette
		}
		if dst == nil || seen[k.Str] || f.Type != gjson.String || f.Str == "" {
			ok = false
			return false
		}
		seen[k.Str] = true
		*dst = strings.Clone(f.Str)
		return true
	})
	if !ok || p.Name == "" {
		return nil
	}
	return p
}

// decodeUsage types a usage object holding inputTokens and outputTokens
// as integers, and optionally cacheReadInputTokens and
// cacheCreationInputTokens (non-zero integers) and costUSD (a finite
// number), each once: what Encode writes back the same. Anything else
// stays raw.
func decodeUsage(v gjson.Result) *Usage {
	if !v.IsObject() {
		return nil
	}
	u := &Usage{}
	seen := 0
	ok := true
	v.ForEach(func(k, f gjson.Result) bool {
		var dst *int64
		bit := 0
		switch k.Str {
		case "inputTokens":
			dst, bit = &u.InputTokens, 1
		case "outputTokens":
			dst, bit = &u.OutputTokens, 2
		case "cacheReadInputTokens":
			dst, bit = &u.CacheReadInputTokens, 4
		case "cacheCreationInputTokens":
			dst, bit = &u.CacheCreationInputTokens, 8
		case "costUSD":
			bit = 16
		}
		if bit == 0 || seen&bit != 0 || f.Type != gjson.Number {
			ok = false
			return false
		}
		seen |= bit
		if dst == nil {
			c, err := strconv.ParseFloat(f.Raw, 64)
			if err != nil || strconv.FormatFloat(c, 'f', -1, 64) != f.Raw {
				ok = false // written back, it would change
				return false
			}
			u.CostUSD = &c
			return true
		}
		n, err := strconv.ParseInt(f.Raw, 10, 64)
		if err != nil || (bit > 2 && n == 0) {
			ok = false
			return false
		}
		*dst = n
		return true
	})
	if !ok || seen&3 != 3 {
		return nil
	}
	return u
}
