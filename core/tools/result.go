package tools

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"reflect"
	"strconv"
	"strings"
	"unicode/utf8"

	"trail/logfmt"
)

// Output limits (Robota's MAX_TOOL_OUTPUT_CHARS, middle truncation).
const (
	maxOutputChars = 30000
	keepChars      = maxOutputChars / 2
)

func ok(output string) Result {
	return Result{Success: true, Output: TruncateOutput(output)}
}

func fail(format string, args ...any) Result {
	return Result{Success: false, Error: fmt.Sprintf(format, args...)}
}

// TruncateOutput keeps the first and last 15,000 characters of an output
// longer than 30,000, with a marker naming the original length between them.
func TruncateOutput(s string) string {
	return truncateTotal(s, utf8.RuneCountInString(s))
}

// truncateTotal truncates s as if it were total characters long: a tool that
// already dropped part of a huge output (Bash) keeps ≥15,000 characters on
// each side of the gap and reports the true length.
func truncateTotal(s string, total int) string {
	if total <= maxOutputChars {
		return s
	}
	// a key the cut falls in is no key shape on either side any more
	head := logfmt.RedactCutEnd(firstRunes(s, keepChars))
	tail := logfmt.RedactCutStart(lastRunes(s, keepChars))
	return head + "\n\n[... output truncated: " + thousands(total) +
		" chars total, showing first and last " + thousands(keepChars) + " chars ...]\n\n" + tail
}

func firstRunes(s string, n int) string {
	i := 0
	for k := range s {
		if i == n {
			return s[:k]
		}
		i++
	}
	return s
}

func lastRunes(s string, n int) string {
	end := len(s)
	for i := 0; i < n && end > 0; i++ {
		_, size := utf8.DecodeLastRuneInString(s[:end])
		end -= size
	}
	return s[end:]
}

// thousands formats n like JavaScript's toLocaleString("en-US"): 45,000.
func thousands(n int) string {
	s := strconv.Itoa(n)
	if n < 0 {
		return "-" + thousands(-n)
	}
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}

// decodeArgs reads a call's arguments into dst. The model may send anything:
// a non-object, wrong types, or a JSON string it meant as an object.
func decodeArgs(tool string, raw json.RawMessage, dst any) *Result {
	if len(raw) == 0 {
		raw = json.RawMessage("{}")
	}
	if raw[0] == '"' {
		var inner string
		if json.Unmarshal(raw, &inner) == nil && json.Valid([]byte(inner)) {
			raw = json.RawMessage(inner)
		}
	}
	// Claude Code's spelling (file_path, old_string...) is accepted too.
	raw = Normalize(tool, raw)
	// Go matches struct keys case-insensitively; rules and hooks read the
	// exact keys, so "Command" must not run as command. A map keeps exact
	// keys and, like JSON.parse, the last of repeated ones.
	var fields map[string]json.RawMessage
	err := json.Unmarshal(raw, &fields)
	if err == nil {
		known := jsonNames(dst)
		for k := range fields {
			if !known[k] {
				delete(fields, k)
			}
		}
		exact, _ := json.Marshal(fields)
		err = json.Unmarshal(exact, dst)
	}
	if err != nil {
		r := fail("Invalid arguments for %s: %s", tool, describeDecodeError(err))
		return &r
	}
	return nil
}

// jsonNames are the JSON keys of the struct dst points to.
func jsonNames(dst any) map[string]bool {
	t := reflect.TypeOf(dst).Elem()
	names := make(map[string]bool, t.NumField())
	for i := range t.NumField() {
		name, _, _ := strings.Cut(t.Field(i).Tag.Get("json"), ",")
		names[name] = true
	}
	return names
}

func describeDecodeError(err error) string {
	var typ *json.UnmarshalTypeError
	if errors.As(err, &typ) {
		if typ.Field != "" {
			return fmt.Sprintf("%s must be %s, not %s", typ.Field, jsonKind(typ.Type.Kind().String()), typ.Value)
		}
		return "arguments must be a JSON object, not " + typ.Value
	}
	return "arguments are not valid JSON: " + err.Error()
}

func jsonKind(goKind string) string {
	switch goKind {
	case "string":
		return "a string"
	case "float64", "int", "int64":
		return "a number"
	case "bool":
		return "a boolean"
	}
	return goKind
}

// count reads a numeric argument as a count of at least 1: def when it is
// absent or under 1, and capped so that a model's 1e300 cannot wrap to a
// negative int (which sliced out of range and crashed the step).
func count(v *float64, def int) int {
	switch {
	case v == nil || *v < 1:
		return def
	case *v >= math.MaxInt32:
		return math.MaxInt32
	}
	return int(*v)
}

// missing is the result for a required parameter the model left out.
func missing(tool, param string) Result {
	return fail("Invalid arguments for %s: %s is required", tool, param)
}
