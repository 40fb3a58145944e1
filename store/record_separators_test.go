package store

import (
	"bytes"
	"testing"
)

// A record holds U+2028 and U+2029 raw, as JavaScript's JSON.stringify
// (and so Robota) writes them.
func TestRecordWritesLineSeparatorsRaw(t *testing.T) {
	b := appendString(nil, "a\u2028b\u2029c")
	if want := "\"a\u2028b\u2029c\""; string(b) != want {
		t.Fatalf("appendString = %q, want %q", b, want)
	}
	if bytes.Contains(b, []byte(`\u2028`)) {
		t.Fatal("escaped separator in a record")
	}
}
