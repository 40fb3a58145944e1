package logfmt

import (
	"encoding/json"
	"errors"
	"path/filepath"
	"strings"
	"testing"
)

// nested is v wrapped in depth alternating one-key objects and one-element
// lists, the shape a hostile record or tool output can have.
func nested(depth int, v any) any {
	for i := range depth {
		if i%2 == 0 {
			v = []any{v}
		} else {
			v = Object{F("k", v)}
		}
	}
	return v
}

// maxTooDeepError bounds the deep-JSON error: it names where the value was
// refused, not every one of the 10,000 levels above it.
const maxTooDeepError = 512

func TestTooDeepErrorIsShortAndSaysWhere(t *testing.T) {
	tests := []struct {
		name string
		in   any
		want []string
	}{
		{"a value one level past the limit", nested(maxDepth+1, 1),
			[]string{`index 0: key "k": index 0`, "more levels", "json nesting deeper than 10000"}},
		{"a value ten times past the limit", nested(10*maxDepth, 1),
			[]string{"more levels", "json nesting deeper than 10000"}},
		{"raw JSON past the limit inside an object", Object{F("outer", json.RawMessage(strings.Repeat("[", maxDepth+1)+strings.Repeat("]", maxDepth+1)))},
			[]string{`key "outer": json nesting deeper than 10000`}},
		{"a long key is cut", Object{F(strings.Repeat("x", 5000), nested(maxDepth, 1))},
			[]string{`key "xxxxxxxx`, "…", "json nesting deeper than 10000"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Marshal(tt.in)
			if err == nil {
				t.Fatal("Marshal succeeded")
			}
			if !errors.Is(err, errTooDeep) {
				t.Errorf("error %v does not wrap errTooDeep", err)
			}
			msg := err.Error()
			if len(msg) > maxTooDeepError {
				t.Errorf("error is %d bytes, want at most %d: %.300s…", len(msg), maxTooDeepError, msg)
			}
			for _, w := range tt.want {
				if !strings.Contains(msg, w) {
					t.Errorf("error %q does not contain %q", msg, w)
				}
			}
		})
	}
}

// The error used to be built by wrapping once per level, copying the whole
// message each time: quadratic in the depth (10,001 levels: 6.8 s and a
// 90 KB message). Run with -bench TooDeep; ns/op must stay in microseconds.
func BenchmarkTooDeepError(b *testing.B) {
	v := nested(maxDepth+1, 1)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Marshal(v); err == nil {
			b.Fatal("Marshal succeeded")
		}
	}
}

// A message as deep as MaxMessageDepth is logged inside a list member and
// read back; one level deeper is refused by TooDeepToLog and by the writer,
// and the line is not written. The writer counts the line's own object, so
// it never writes a line its reader refuses as too deep.
func TestMessageDepthBoundMatchesWriterAndReader(t *testing.T) {
	deepMessage := func(depth int) json.RawMessage {
		return json.RawMessage(`{"role":"user","content":` + strings.Repeat("[", depth-1) + strings.Repeat("]", depth-1) + `}`)
	}
	ok, tooDeep := deepMessage(MaxMessageDepth), deepMessage(MaxMessageDepth+1)
	if TooDeepToLog(ok) || !TooDeepToLog(tooDeep) {
		t.Fatalf("TooDeepToLog: %v at the bound, %v past it", TooDeepToLog(ok), TooDeepToLog(tooDeep))
	}
	path := filepath.Join(t.TempDir(), "s1.jsonl")
	w := openTest(t, path, Options{PayloadThreshold: 1 << 30})
	logOK(t, w, "provider_request", F("messages", []json.RawMessage{ok}))
	if err := w.Log("provider_request", F("messages", []json.RawMessage{tooDeep})); !errors.Is(err, errTooDeep) {
		t.Fatalf("a message past the bound: %v", err)
	}
	lines := readLines(t, path)
	if len(lines) != 1 {
		t.Fatalf("%d lines written, want 1", len(lines))
	}
	got := readAll(t, strings.NewReader(lines[0]+"\n"))
	if len(got) != 1 || !got[0].Object {
		t.Fatalf("the reader refuses the line the writer wrote: %s", got[0].Problem())
	}
	// A value logged straight under a line key may be one level deeper.
	logOK(t, w, "history_mutation", F("message", tooDeep))
}
