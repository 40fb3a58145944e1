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

// Every control character is written as JSON.stringify writes it (the
// short escapes \b \t \n \f \r, else \u00XX in lower-case hex), and as
// encoding/json does since Go 1.22: a value Robota wrote comes back in the
// same bytes, and header strings agree with the log's encoder.
func TestRecordEscapesControlCharactersAsJSONStringify(t *testing.T) {
	var in []byte
	for c := byte(0); c < 0x20; c++ {
		in = append(in, c)
	}
	in = append(in, '"', '\\', 0x7f)
	want := `"\u0000\u0001\u0002\u0003\u0004\u0005\u0006\u0007\b\t\n\u000b\f\r\u000e\u000f` +
		`\u0010\u0011\u0012\u0013\u0014\u0015\u0016\u0017\u0018\u0019\u001a\u001b\u001c\u001d\u001e\u001f\"\\` + "\x7f\""
	if got := appendString(nil, string(in)); string(got) != want {
		t.Fatalf("appendString =\n %s\nwant\n %s", got, want)
	}
}
