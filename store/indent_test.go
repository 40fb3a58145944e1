package store

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/tidwall/gjson"
)

var indentCases = []string{
	`1`, `-0.5e+10`, `"a\"b\\c\u00e9\n"`, `true`, `false`, `null`, `[]`, `{}`, ` [ ] `,
	`{"a":1,"b":[1,2,{"c":{}}],"d":{"e":null}}`,
	"{\n\t\"a\" :\r\n [ \"x\" , 2 ]\n}",
	`[[[[[]]]],{"k":[{}]}]`,
	`{"html":"<b>&</b>","big":12345678901234567890}`,
}

// json.Indent is the reference for the layout up to maxIndent levels.
func TestAppendIndentMatchesJSONIndent(t *testing.T) {
	for _, src := range indentCases {
		for _, depth := range []int{0, 1, 2} {
			checkIndent(t, []byte(src), depth)
		}
	}
}

func checkIndent(t *testing.T, src []byte, depth int) {
	t.Helper()
	var want bytes.Buffer
	if err := json.Indent(&want, src, strings.Repeat("  ", depth), "  "); err != nil {
		t.Fatalf("json.Indent(%q): %v", src, err)
	}
	for _, trusted := range []bool{false, true} {
		got, err := appendIndent([]byte("prefix"), src, depth, trusted)
		if err != nil {
			t.Fatalf("appendIndent(%q): %v", src, err)
		}
		// json.Indent keeps trailing space; the record never has any.
		if w := "prefix" + strings.TrimRight(want.String(), " \t\r\n"); string(got) != w {
			t.Errorf("appendIndent(%q, %d, %v):\n%s\nwant\n%s", src, depth, trusted, got, w)
		}
	}
}

func TestAppendIndentStopsIndentingDeepValues(t *testing.T) {
	deep := strings.Repeat("[", 5000) + strings.Repeat("]", 5000)
	out, err := appendIndent(nil, []byte(deep), 1, false)
	if err != nil {
		t.Fatal(err)
	}
	if !json.Valid(out) {
		t.Fatal("output is not JSON")
	}
	// Fully indented this would be about 25 MB.
	if len(out) > 10_000+maxIndent*maxIndent*4 {
		t.Errorf("deep value grew to %d bytes", len(out))
	}
}

func FuzzAppendIndent(f *testing.F) {
	for _, c := range indentCases {
		f.Add([]byte(c))
	}
	f.Add([]byte(`{"a":[1,2,`))
	f.Add([]byte(`"\u12"`))
	f.Fuzz(func(t *testing.T, src []byte) {
		got, err := appendIndent(nil, src, 1, false)
		// gjson is what Decode validates with, so the two must agree;
		// encoding/json also refuses nesting past 10,000, which is fine.
		valid := gjson.ValidBytes(src)
		if (err == nil) != valid {
			t.Fatalf("appendIndent err=%v but gjson.ValidBytes=%v for %q", err, valid, src)
		}
		if !valid || !json.Valid(src) {
			return
		}
		if !json.Valid(got) {
			t.Fatalf("output not JSON: %q", got)
		}
		if compactString(src) != compactString(got) {
			t.Fatalf("value changed: %q -> %q", src, got)
		}
		if fast, err := appendIndent(nil, src, 1, true); err != nil || string(fast) != string(got) {
			t.Fatalf("trusted path differs: %q, %v", fast, err)
		}
	})
}

func compactString(b []byte) string {
	var out bytes.Buffer
	if err := json.Compact(&out, b); err != nil {
		return "invalid: " + err.Error()
	}
	return out.String()
}

func TestNewlineSpaces(t *testing.T) {
	if newlineSpaces != "\n"+strings.Repeat("  ", maxIndent) {
		t.Fatalf("newlineSpaces is %d bytes, want a line break and %d spaces", len(newlineSpaces), 2*maxIndent)
	}
}
