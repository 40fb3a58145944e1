package logfmt

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/tidwall/gjson"
)

// validCases are the edges of the grammar, each checked against gjson.
var validCases = []string{
	`{}`, ` { } `, `{"a":1}`, `{"a":1,}`, `{"a" :1 , "b": [ ] }`, `{"a":[1,]}`, `{"a":[,1]}`,
	`{"a":-}`, `{"a":-0}`, `{"a":01}`, `{"a":1.}`, `{"a":1.5e}`, `{"a":1.5e+3}`, `{"a":1E-0}`, `{"a":.5}`,
	`{"a":tru}`, `{"a":true}`, `{"a":false}`, `{"a":nul}`, `{"a":null}`, `{"a":truex}`,
	`{"a":"\u00e9"}`, `{"a":"\u00g9"}`, `{"a":"\x"}`, `{"a":"\/\b\f\n\r\t\"\\"}`, "{\"a\":\"\x01\"}",
	"{\"a\":\"\x7f\xff\xfe\"}", `{"a":"unterminated}`, `{"a":"esc at end\`, `{"a":{"b":{"c":[[]]}}}`,
	`{"a":[}`, `{"a":{]}`, `{"a":1}}`, `{"a":1} x`, `{"a":1}` + "\t\r\n ", `{a:1}`, `{"a"1}`, `{"a":}`,
	`{"external-payload":"external-payload"}`, `{"kind":"external\u002dpayload"}`, `[]`, `"s"`, `1`, ``, ` `,
	`{"a":"` + "0123456789abcdef\"0123456789" + `"}`, `{"a":"0123456\\"}`, `{"a":"01234567\\\"x"}`,
}

func TestValidLineAgreesWithGJSON(t *testing.T) {
	for _, c := range validCases {
		b := []byte(c)
		ok, _ := validLine(b)
		if want := gjson.ValidBytes(b); ok != want {
			t.Errorf("validLine(%q) = %v, gjson says %v", c, ok, want)
		}
	}
}

// mayRef is never false on a line that holds a payload marker, however it
// is spelt.
func TestValidLineSeesPayloadMarkers(t *testing.T) {
	for _, c := range []string{
		`{"payload":{"kind":"external-payload","path":"x"}}`,
		`{"payload":{"kind":"external\u002dpayload","path":"x"}}`,
		`{"k\u0069nd":"x"}`,
	} {
		if ok, mayRef := validLine([]byte(c)); !ok || !mayRef || !mayHoldRef([]byte(c)) {
			t.Errorf("%s: ok %v mayRef %v", c, ok, mayRef)
		}
	}
	if _, mayRef := validLine([]byte(`{"a":"external-payloads","b":"\\u"}`)); mayRef {
		t.Error("a line without a marker may hold a ref")
	}
}

// Every line of the logs in testdata, and each of its prefixes around the
// eight-byte blocks, is judged as gjson judges it.
func TestValidLineAgreesOnRealLogs(t *testing.T) {
	files, _ := filepath.Glob("../testdata/*/*.jsonl")
	more, _ := filepath.Glob("../testdata/*.jsonl")
	files = append(files, more...)
	if len(files) == 0 {
		t.Fatal("no logs in testdata")
	}
	n := 0
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, line := range bytes.Split(data, []byte("\n")) {
			for _, cut := range []int{len(line), len(line) - 1, len(line) / 2, len(line)/2 + 3} {
				if cut < 0 || cut > len(line) {
					continue
				}
				b := line[:cut]
				n++
				if ok, _ := validLine(b); ok != gjson.ValidBytes(b) {
					t.Fatalf("%s: validLine disagrees with gjson on %q", f, b)
				}
				if ok, mayRef := validLine(b); ok && mayHoldRef(b) && !mayRef && bytes.Contains(b, refKind) {
					t.Fatalf("%s: a marker missed in %q", f, b)
				}
			}
		}
	}
	if n < 100 {
		t.Fatalf("only %d lines checked", n)
	}
}

func FuzzValidLine(f *testing.F) {
	for _, c := range validCases {
		f.Add([]byte(c))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		if bytes.Count(b, []byte{'{'})+bytes.Count(b, []byte{'['}) > maxDepth {
			return // isJSONObject refuses these before validLine sees them
		}
		ok, mayRef := validLine(b)
		if want := gjson.ValidBytes(b); ok != want {
			t.Fatalf("validLine(%q) = %v, gjson says %v", b, ok, want)
		}
		if ok && bytes.Contains(b, refKind) && !mayRef {
			t.Fatalf("marker missed in %q", b)
		}
	})
}
