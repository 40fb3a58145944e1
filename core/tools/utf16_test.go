package tools

import (
	"bytes"
	"encoding/binary"
	"io"
	"testing"
	"testing/iotest"
)

// The streaming decoder gives what decoding the whole file gives, however
// its reads fall: a surrogate pair or a unit split between two reads is
// put back together, and what cannot be decoded is U+FFFD, never dropped.
func TestUTF16ReaderMatchesWholeDecoding(t *testing.T) {
	for name, c := range map[string]struct {
		units []byte // without the mark
		want  string
	}{
		"pair":           {[]byte{0x3d, 0xd8, 0xfc, 0xdd, 'a', 0}, "🗼a"},
		"lone lead":      {[]byte{0x3d, 0xd8, 'a', 0}, "\uFFFDa"},
		"lone trail":     {[]byte{0xfc, 0xdd, 'a', 0}, "\uFFFDa"},
		"lead at end":    {[]byte{'a', 0, 0x3d, 0xd8}, "a\uFFFD"},
		"odd byte":       {[]byte{'a', 0, 'b'}, "a\uFFFD"},
		"two leads":      {[]byte{0x3d, 0xd8, 0x3d, 0xd8, 0xfc, 0xdd}, "\uFFFD🗼"},
		"empty":          {nil, ""},
		"crlf and latin": {[]byte{0xfc, 0, '\r', 0, '\n', 0}, "ü\r\n"},
	} {
		whole := string(decodeUTF16(append([]byte{0xff, 0xfe}, c.units...), binary.LittleEndian))
		if whole != c.want {
			t.Errorf("%s: whole = %q, want %q", name, whole, c.want)
		}
		for _, r := range []io.Reader{bytes.NewReader(c.units), iotest.OneByteReader(bytes.NewReader(c.units)), iotest.HalfReader(bytes.NewReader(c.units))} {
			got, err := io.ReadAll(newUTF16Reader(r, binary.LittleEndian))
			if err != nil || string(got) != c.want {
				t.Errorf("%s: streamed = %q, %v; want %q", name, got, err, c.want)
			}
		}
	}
}

// What Edit and Write encode reads back as the same text, mark and order
// kept.
func TestUTF16EncodingRoundTrips(t *testing.T) {
	for _, order := range []byteOrder{binary.LittleEndian, binary.BigEndian} {
		const text = "Zoë 東京 🗼\r\n"
		b := encodeUTF16(text, order)
		if utf16Order(b) != order {
			t.Errorf("%v: the mark written is % x", order, b[:2])
		}
		if got := string(decodeUTF16(b, order)); got != text {
			t.Errorf("%v: round trip = %q", order, got)
		}
	}
	if utf16Order([]byte{0xff, 0xfe, 0, 0}) != nil {
		t.Error("UTF-32's mark taken for UTF-16")
	}
}
