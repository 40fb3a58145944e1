package logfmt

import (
	"bytes"
	"encoding/json"
	"errors"
	"math"
	"strings"
	"testing"
	"time"
)

type role string

type point struct {
	X int    `json:"x"`
	Y string `json:"y"`
}

type upper string

func (u upper) MarshalJSON() ([]byte, error) {
	return []byte(`"` + strings.ToUpper(string(u)) + `"`), nil
}

type ptrMarshaler struct{ s string }

func (p *ptrMarshaler) MarshalJSON() ([]byte, error) { return []byte(`"` + p.s + `"`), nil }

type badMarshaler struct{}

func (badMarshaler) MarshalJSON() ([]byte, error) { return []byte(`{"a":`), nil }

func TestAppendJSON(t *testing.T) {
	tests := []struct {
		name string
		in   any
		want string
	}{
		{"nil is null", nil, `null`},
		{"bools are literals", []any{true, false}, `[true,false]`},
		{"strings keep HTML characters", "<a href=\"x\">&</a>", `"<a href=\"x\">&</a>"`},
		{"control characters are escaped like encoding/json", "a\nb\tc\x01\b\f\r\\", `"a\nb\tc\u0001\b\f\r\\"`},
		{"line separators are raw, as JSON.stringify writes them", "a\u2028b\u2029", "\"a\u2028b\u2029\""},
		{"invalid utf-8 becomes U+FFFD", "a\xffb", `"a\ufffdb"`},
		{"every integer type", []any{int(-1), int8(-8), int16(16), int32(32), int64(-64), uint(1), uint8(8), uint16(16), uint32(32), uint64(math.MaxUint64), uintptr(7)}, `[-1,-8,16,32,-64,1,8,16,32,18446744073709551615,7]`},
		{"floats use the shortest form", []any{1.0, 0.1, 1e21, 1e-7, float32(0.1), 123456789.0}, `[1,0.1,1e+21,1e-7,0.1,123456789]`},
		{"json.Number is copied", json.Number("12.5e3"), `12.5e3`},
		{"Object keeps its order", Object{F("z", 1), F("a", 2), F("m", Object{F("b", nil), F("a", "x")})}, `{"z":1,"a":2,"m":{"b":null,"a":"x"}}`},
		{"[]Field is an object", []Field{F("b", 1), F("a", 2)}, `{"b":1,"a":2}`},
		{"map keys are sorted", map[string]any{"b": 1, "a": []string{"x"}, "c": map[string]string{"z": "1", "y": "2"}}, `{"a":["x"],"b":1,"c":{"y":"2","z":"1"}}`},
		{"raw messages are compacted, escapes kept", json.RawMessage(" { \"a\" : [1, 2] ,\n\"b\":\"x y \\u003c\" } "), `{"a":[1,2],"b":"x y \u003c"}`},
		{"a nil raw message is null", json.RawMessage(nil), `null`},
		{"slices of raw messages and objects", []any{[]json.RawMessage{json.RawMessage(`1`), json.RawMessage(`"s"`)}, []Object{{F("k", "v")}}}, `[[1,"s"],[{"k":"v"}]]`},
		{"nil slices and maps are null", []any{[]any(nil), []string(nil), Object(nil), map[string]any(nil)}, `[null,null,null,null]`},
		{"time is the envelope format in UTC", time.Date(2025, 1, 2, 3, 4, 5, 678900000, time.FixedZone("x", 3600)), `"2025-01-02T02:04:05.678Z"`},
		{"Marshaler output is used and compacted", upper("hi"), `"HI"`},
		{"a nil pointer Marshaler is null", (*ptrMarshaler)(nil), `null`},
		{"named scalars are their kind", []any{role("user"), role("<b>")}, `["user","<b>"]`},
		{"structs go through encoding/json without HTML escaping", point{1, "<&>"}, `{"x":1,"y":"<&>"}`},
		{"errors are their message", errors.New("boom <x>"), `"boom <x>"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Marshal(tt.in)
			if err != nil {
				t.Fatalf("Marshal: %v", err)
			}
			if string(got) != tt.want {
				t.Errorf("got  %s\nwant %s", got, tt.want)
			}
		})
	}
}

func TestAppendJSONErrors(t *testing.T) {
	deep := any(nil)
	for range maxDepth + 1 {
		deep = []any{deep}
	}
	tests := []struct {
		name string
		in   any
		want string // the error says this
	}{
		{"NaN", math.NaN(), "unsupported float value (NaN or Inf)"},
		{"Inf inside an object", Object{F("x", math.Inf(1))}, `key "x": unsupported float value`},
		{"float32 Inf", float32(math.Inf(-1)), "unsupported float value"},
		{"invalid raw json", json.RawMessage(`{"a":}`), "invalid raw json"},
		{"empty raw json", json.RawMessage{}, "invalid raw json"},
		{"raw with trailing garbage", json.RawMessage(`{} x`), "invalid raw json"},
		{"json.Number that is not a number", json.Number("12abc"), `invalid json.Number "12abc"`},
		{"json.Number empty", json.Number(""), `invalid json.Number ""`},
		{"a Marshaler returning invalid json", badMarshaler{}, "invalid raw json"},
		{"nesting beyond the limit", deep, "index 0: index 0: index 0: index 0: … 9992 more levels …: index 0: index 0: index 0: index 0: json nesting deeper than 10000"},
		{"raw nesting beyond the limit", json.RawMessage(strings.Repeat("[", maxDepth+1) + strings.Repeat("]", maxDepth+1)), "json nesting deeper than 10000"},
		{"an error deep in a list names its index", []any{1, []any{2, math.NaN()}}, "index 1: index 1: unsupported float value"},
		{"encoding/json failure", make(chan int), "marshal chan int: json: unsupported type: chan int"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Marshal(tt.in)
			if err == nil {
				t.Fatalf("Marshal succeeded with %.80s", got)
			}
			if !strings.Contains(err.Error(), tt.want) {
				t.Errorf("error %.300q does not say %q", err, tt.want)
			}
		})
	}
}

func TestAppendJSONAppends(t *testing.T) {
	got, err := AppendJSON([]byte("prefix:"), Object{F("a", 1)})
	if err != nil || string(got) != `prefix:{"a":1}` {
		t.Fatalf("got %q, %v", got, err)
	}
}

// Records elsewhere are written with encoding/json; an Object inside them
// must keep its order there too.
func TestObjectMarshalJSON(t *testing.T) {
	got, err := json.Marshal(struct{ O Object }{Object{F("b", 1), F("a", 2)}})
	if err != nil || string(got) != `{"O":{"b":1,"a":2}}` {
		t.Fatalf("got %s, %v", got, err)
	}
}

func TestFloatsMatchEncodingJSON(t *testing.T) {
	// -0.0 in Go source is +0 (a constant expression); the negative zero
	// comes from Copysign, and from JSON text as a reader would give it.
	var negZeroJSON float64
	if err := json.Unmarshal([]byte("-0"), &negZeroJSON); err != nil || !math.Signbit(negZeroJSON) {
		t.Fatalf("JSON -0 parsed to %v (%v), want the negative zero", negZeroJSON, err)
	}
	for _, f := range []float64{0, math.Copysign(0, -1), negZeroJSON, 1, -1.5, 1e20, 1e21, 1e-6, 9.999e-7, 3.14159265358979, 5e-324, math.MaxFloat64, 1234567.125} {
		want, _ := json.Marshal(f)
		got, err := Marshal(f)
		if err != nil || string(got) != string(want) {
			t.Errorf("%v: got %s, want %s (%v)", f, got, want, err)
		}
		want32, _ := json.Marshal(float32(f))
		got32, err := Marshal(float32(f))
		if !math.IsInf(float64(float32(f)), 0) && (err != nil || string(got32) != string(want32)) {
			t.Errorf("float32 %v: got %s, want %s (%v)", f, got32, want32, err)
		}
	}
}

func TestFormatTime(t *testing.T) {
	got := FormatTime(time.Date(2024, 12, 31, 23, 59, 59, 999999999, time.FixedZone("y", -5*3600)))
	if got != "2025-01-01T04:59:59.999Z" {
		t.Fatalf("got %s", got)
	}
}

func encodingJSONString(s string) string {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(s)
	// JSON.stringify (and so trail) leaves U+2028 and U+2029 raw; encoding/json escapes them.
	out := strings.TrimSuffix(b.String(), "\n")
	return strings.NewReplacer(`\u2028`, "\u2028", `\u2029`, "\u2029").Replace(out)
}

func FuzzAppendString(f *testing.F) {
	for _, s := range []string{"", "plain", "<>&", "\x00\x1f\"\\", "\u2028", "\xff\xfe", "é日本"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got := string(appendString(nil, s))
		if want := encodingJSONString(s); got != want {
			t.Fatalf("appendString(%q) = %s, encoding/json writes %s", s, got, want)
		}
		if gotBytes := string(appendString(nil, []byte(s))); gotBytes != got {
			t.Fatalf("[]byte and string forms differ: %s vs %s", gotBytes, got)
		}
	})
}

// FuzzAppendJSONRaw feeds arbitrary bytes as a json.RawMessage to the plain
// encoder and to the writer's (redacting, externalizing) encoder.
func FuzzAppendJSONRaw(f *testing.F) {
	for _, s := range []string{
		`{"a":1}`, ` [1, "two", {"x": null}] `, `"s\"\\"`, `{"apiKey":{"n":[1,2]},"b":"Bearer abcdefghijk"}`,
		`{"a":"\ud800\u0041"}`, `[`, `{"a" 1}`, `1e999`, `"\u003c"`, "{\"k\":\"sk-ant-aaaaaaaaaaaaaaaaaaaa\"}",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		out, err := AppendJSON(nil, json.RawMessage(data))
		if err != nil {
			return
		}
		if !json.Valid(out) {
			t.Fatalf("output is not valid JSON: %q -> %q", data, out)
		}
		// encoding/json's Compact does not escape HTML either: the
		// outputs must agree byte for byte.
		var want bytes.Buffer
		if err := json.Compact(&want, data); err != nil {
			t.Fatalf("accepted input encoding/json rejects: %q: %v", data, err)
		}
		if !bytes.Equal(out, want.Bytes()) {
			t.Fatalf("compact differs:\n got %q\nwant %q", out, want.Bytes())
		}

		e := encoder{red: newRedactor([]string{"hunter2hunter2"}), ext: newPayloadStore(t.TempDir()+"/s.jsonl", "s", 16)}
		out, err = e.value(nil, json.RawMessage(data))
		if err != nil {
			t.Fatalf("writer encoder failed on valid input %q: %v", data, err)
		}
		if !json.Valid(out) {
			t.Fatalf("writer output is not valid JSON: %q -> %q", data, out)
		}
		if e.depth != 0 {
			t.Fatalf("depth left at %d", e.depth)
		}
	})
}
