package logfmt

import (
	"bytes"
	"encoding"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strconv"
	"time"
)

// The encoder writes compact JSON straight into a caller's byte slice, so a
// line costs no intermediate buffers. It is bottom-up: a composite's
// children are written (and, in the Writer, redacted and externalized)
// before the composite is measured, which is what lets a parent stay inline
// once its big child has been replaced by a reference.

// maxDepth bounds nesting so a self-referencing []any or a hostile raw
// document fails with an error instead of exhausting the stack.
const maxDepth = 10000

var errTooDeep = errors.New("json nesting deeper than 10000")

// MaxMessageDepth is how deep a message may nest and still be logged where
// trail logs messages deepest: as an element of a list member of a line
// (provider_request's "messages", replace_all's "messages"). The line object
// and the list take two of the maxDepth levels a line may have, the bound
// both the writer and the reader hold lines to.
const MaxMessageDepth = maxDepth - 2

// TooDeepToLog reports whether the JSON value b nests deeper than
// MaxMessageDepth, so that logging it would fail. Counting brackets is
// vectorised and clears every ordinary value without the depth walk.
func TooDeepToLog(b []byte) bool {
	return bytes.Count(b, []byte{'{'})+bytes.Count(b, []byte{'['}) > MaxMessageDepth &&
		nestingDepth(b) > MaxMessageDepth
}

// AppendJSON appends the compact JSON of v to dst: insertion-ordered keys
// for Object and []Field, sorted keys for maps, no HTML escaping. On error
// the returned slice holds dst plus whatever was written before the error.
func AppendJSON(dst []byte, v any) ([]byte, error) {
	var e encoder
	return e.value(dst, v)
}

// Marshal returns the compact JSON of v, encoded as AppendJSON does.
func Marshal(v any) ([]byte, error) {
	return AppendJSON(nil, v)
}

// encoder is the plain encoder in its zero value. The Writer sets red to
// scrub secrets and ext to move big values out of the line.
type encoder struct {
	red     *redactor
	ext     *payloadStore
	depth   int
	changed bool // redaction replaced something in a raw document
}

// value appends v and then lets the payload store take it if it is too big.
func (e *encoder) value(dst []byte, v any) ([]byte, error) {
	start := len(dst)
	dst, err := e.inline(dst, v)
	if err != nil {
		return dst, err
	}
	return e.settle(dst, start)
}

// settle externalizes dst[start:], the compact JSON of one value, when it
// is over the threshold, and replaces it by the reference object.
func (e *encoder) settle(dst []byte, start int) ([]byte, error) {
	if e.ext == nil || len(dst)-start <= e.ext.threshold {
		return dst, nil
	}
	sum, err := e.ext.store(dst[start:])
	if err != nil {
		return dst, err
	}
	n := len(dst) - start
	return e.ext.appendRef(dst[:start], sum, n), nil
}

// field appends the value under key, or "[REDACTED]" when the key names a
// secret, whatever the value's type.
func (e *encoder) field(dst []byte, key string, v any) ([]byte, error) {
	if e.red != nil && sensitiveKey(key) {
		return append(dst, redactedJSON...), nil
	}
	return e.value(dst, v)
}

func (e *encoder) str(dst []byte, s string) []byte {
	if e.red != nil {
		s = e.red.scrub(s)
	}
	return appendString(dst, s)
}

func (e *encoder) inline(dst []byte, v any) ([]byte, error) {
	switch x := v.(type) {
	case nil:
		return append(dst, "null"...), nil
	case string:
		return e.str(dst, x), nil
	case RedactedText:
		s := x.s
		if e.red != nil {
			s = e.red.scrubSecrets(s)
		}
		return appendString(dst, s), nil
	case bool:
		return strconv.AppendBool(dst, x), nil
	case int:
		return strconv.AppendInt(dst, int64(x), 10), nil
	case int64:
		return strconv.AppendInt(dst, x, 10), nil
	case int32:
		return strconv.AppendInt(dst, int64(x), 10), nil
	case int16:
		return strconv.AppendInt(dst, int64(x), 10), nil
	case int8:
		return strconv.AppendInt(dst, int64(x), 10), nil
	case uint:
		return strconv.AppendUint(dst, uint64(x), 10), nil
	case uint64:
		return strconv.AppendUint(dst, x, 10), nil
	case uint32:
		return strconv.AppendUint(dst, uint64(x), 10), nil
	case uint16:
		return strconv.AppendUint(dst, uint64(x), 10), nil
	case uint8:
		return strconv.AppendUint(dst, uint64(x), 10), nil
	case uintptr:
		return strconv.AppendUint(dst, uint64(x), 10), nil
	case float64:
		return appendFloat(dst, x, 64)
	case float32:
		return appendFloat(dst, float64(x), 32)
	case json.Number:
		if !validNumber(string(x)) {
			return dst, fmt.Errorf("invalid json.Number %q", string(x))
		}
		return append(dst, x...), nil
	case json.RawMessage:
		return e.raw(dst, x)
	case Object:
		return e.object(dst, x)
	case []Field:
		return e.object(dst, x)
	case Field:
		return e.object(dst, []Field{x})
	case []any:
		return e.list(dst, x == nil, len(x), func(dst []byte, i int) ([]byte, error) { return e.value(dst, x[i]) })
	case []string:
		return e.list(dst, x == nil, len(x), func(dst []byte, i int) ([]byte, error) {
			start := len(dst)
			return e.settle(e.str(dst, x[i]), start)
		})
	case []json.RawMessage:
		return e.list(dst, x == nil, len(x), func(dst []byte, i int) ([]byte, error) { return e.value(dst, x[i]) })
	case []Object:
		return e.list(dst, x == nil, len(x), func(dst []byte, i int) ([]byte, error) { return e.value(dst, x[i]) })
	case map[string]any:
		return e.anyMap(dst, x)
	case map[string]string:
		return e.stringMap(dst, x)
	case time.Time:
		dst = append(dst, '"')
		return append(appendTime(dst, x), '"'), nil
	case *time.Time:
		if x == nil {
			return append(dst, "null"...), nil
		}
		dst = append(dst, '"')
		return append(appendTime(dst, *x), '"'), nil
	case json.Marshaler:
		return e.marshaler(dst, x)
	case error:
		// encoding/json would write an error as {}; its message is what a
		// reader of the log needs.
		return e.str(dst, x.Error()), nil
	}
	return e.reflected(dst, v)
}

// enter counts one level of nesting; the caller undoes it with e.depth--
// only when enter succeeded.
func (e *encoder) enter() error {
	if e.depth >= maxDepth {
		return errTooDeep
	}
	e.depth++
	return nil
}

// object writes fields in order; a nil Object is null, like a nil map.
func (e *encoder) object(dst []byte, fields []Field) ([]byte, error) {
	if fields == nil {
		return append(dst, "null"...), nil
	}
	if err := e.enter(); err != nil {
		return dst, err
	}
	defer func() { e.depth-- }()
	dst = append(dst, '{')
	for i, f := range fields {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = appendString(dst, f.Key)
		dst = append(dst, ':')
		var err error
		if dst, err = e.field(dst, f.Key, f.Value); err != nil {
			return dst, atKey(err, f.Key)
		}
	}
	return append(dst, '}'), nil
}

// list writes n elements with elem, which must encode (and settle) one.
// A nil slice is null, as encoding/json writes it.
func (e *encoder) list(dst []byte, isNil bool, n int, elem func([]byte, int) ([]byte, error)) ([]byte, error) {
	if isNil {
		return append(dst, "null"...), nil
	}
	if err := e.enter(); err != nil {
		return dst, err
	}
	defer func() { e.depth-- }()
	dst = append(dst, '[')
	for i := range n {
		if i > 0 {
			dst = append(dst, ',')
		}
		var err error
		if dst, err = elem(dst, i); err != nil {
			return dst, atIndex(err, i)
		}
	}
	return append(dst, ']'), nil
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

func (e *encoder) anyMap(dst []byte, m map[string]any) ([]byte, error) {
	if m == nil {
		return append(dst, "null"...), nil
	}
	fields := make([]Field, 0, len(m))
	for _, k := range sortedKeys(m) {
		fields = append(fields, Field{k, m[k]})
	}
	return e.object(dst, fields)
}

func (e *encoder) stringMap(dst []byte, m map[string]string) ([]byte, error) {
	if m == nil {
		return append(dst, "null"...), nil
	}
	fields := make([]Field, 0, len(m))
	for _, k := range sortedKeys(m) {
		fields = append(fields, Field{k, m[k]})
	}
	return e.object(dst, fields)
}

func (e *encoder) marshaler(dst []byte, m json.Marshaler) ([]byte, error) {
	// encoding/json writes null for a nil pointer instead of calling a
	// method that would dereference it.
	if rv := reflect.ValueOf(m); rv.Kind() == reflect.Pointer && rv.IsNil() {
		return append(dst, "null"...), nil
	}
	b, err := m.MarshalJSON()
	if err != nil {
		return dst, fmt.Errorf("marshal %T: %w", m, err)
	}
	return e.raw(dst, b)
}

// reflected covers the types the switch does not name: named scalars
// (type Role string) cheaply, everything else through encoding/json.
func (e *encoder) reflected(dst []byte, v any) ([]byte, error) {
	if _, ok := v.(encoding.TextMarshaler); !ok {
		rv := reflect.ValueOf(v)
		switch rv.Kind() {
		case reflect.String:
			return e.str(dst, rv.String()), nil
		case reflect.Bool:
			return strconv.AppendBool(dst, rv.Bool()), nil
		case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
			return strconv.AppendInt(dst, rv.Int(), 10), nil
		case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
			return strconv.AppendUint(dst, rv.Uint(), 10), nil
		case reflect.Float32:
			return appendFloat(dst, rv.Float(), 32)
		case reflect.Float64:
			return appendFloat(dst, rv.Float(), 64)
		}
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return dst, fmt.Errorf("marshal %T: %w", v, err)
	}
	return e.raw(dst, buf.Bytes())
}
