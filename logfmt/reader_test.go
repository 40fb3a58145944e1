package logfmt

import (
	"bytes"
	"errors"
	"io"
	"strings"
	"testing"
	"testing/iotest"
)

// readAll reads every line of r as NewReader does (the default cap).
func readAll(t *testing.T, r io.Reader) []Line {
	t.Helper()
	return readCapped(t, r, 0)
}

func TestReaderLinesNumbersAndBlankLines(t *testing.T) {
	in := "{\"a\":1}\n\n   \n{\"b\":2}\r\nnot json\n[1]\n{\"c\":3}"
	lines := readAll(t, strings.NewReader(in))
	type want struct {
		num, index int
		text       string
		object     bool
	}
	wants := []want{
		{1, 0, `{"a":1}`, true},
		{4, 1, "{\"b\":2}\r", true},
		{5, 2, "not json", false},
		{6, 3, "[1]", false},
		{7, 4, `{"c":3}`, true}, // no final newline, but whole: not torn
	}
	if len(lines) != len(wants) {
		t.Fatalf("%d lines, want %d: %+v", len(lines), len(wants), lines)
	}
	for i, w := range wants {
		l := lines[i]
		if l.Num != w.num || l.Index != w.index || string(l.Bytes) != w.text || l.Object != w.object || l.Torn {
			t.Errorf("line %d = {%d %d %q obj=%v torn=%v}, want %+v", i, l.Num, l.Index, l.Bytes, l.Object, l.Torn, w)
		}
	}
	if p := lines[3].Problem(); p != "a JSON array, not an object" {
		t.Errorf("problem of [1] = %q", p)
	}
	if p := lines[2].Problem(); !strings.Contains(p, "invalid character") || !strings.Contains(p, "offset") {
		t.Errorf("problem of garbage = %q", p)
	}
}

func TestReaderTornTail(t *testing.T) {
	rd := NewReader(strings.NewReader("{\"a\":1}\n{\"b\":"))
	first, _ := rd.Next()
	torn, err := rd.Next()
	if err != nil || !first.Object || torn.Object || !torn.Torn || torn.Num != 2 || string(torn.Bytes) != `{"b":` {
		t.Fatalf("torn tail = %+v, %v", torn, err)
	}
	if _, err := rd.Next(); err != io.EOF {
		t.Fatalf("after the tail: %v", err)
	}
	if rd.Entries() != 1 {
		t.Errorf("Entries = %d: a torn tail is not an entry", rd.Entries())
	}
	// A broken line that does end in "\n" is not torn: it was written whole.
	lines := readAll(t, strings.NewReader("{\"b\":\n"))
	if len(lines) != 1 || lines[0].Torn || lines[0].Object {
		t.Errorf("broken whole line = %+v", lines)
	}
}

func TestReaderLinesLongerThanTheBuffer(t *testing.T) {
	long := `{"k":"` + strings.Repeat("x", 3*readerBufSize+17) + `"}`
	in := "{\"a\":1}\n" + long + "\n" + long + "\n{\"z\":0}\n" + long
	// One byte at a time makes every read return less than asked for.
	for name, r := range map[string]io.Reader{
		"whole":        strings.NewReader(in),
		"byte by byte": iotest.OneByteReader(strings.NewReader(in)),
	} {
		t.Run(name, func(t *testing.T) {
			lines := readAll(t, r)
			if len(lines) != 5 {
				t.Fatalf("%d lines", len(lines))
			}
			for _, i := range []int{1, 2, 4} {
				if string(lines[i].Bytes) != long || !lines[i].Object || lines[i].Num != i+1 {
					t.Errorf("line %d: %d bytes, object %v", i+1, len(lines[i].Bytes), lines[i].Object)
				}
			}
			if string(lines[3].Bytes) != `{"z":0}` {
				t.Errorf("line after long ones = %q", lines[3].Bytes)
			}
		})
	}
}

func TestReaderDoesNotCopyShortLines(t *testing.T) {
	rd := NewReader(strings.NewReader("{\"a\":1}\n{\"b\":2}\n"))
	a, _ := rd.Next()
	b, _ := rd.Next()
	// Both lines sit in the one read buffer, one after the other: their
	// capacities run to the buffer's end.
	if cap(a.Bytes)-cap(b.Bytes) != len(a.Bytes)+1 || cap(a.Bytes) < readerBufSize/2 {
		t.Errorf("a short line was copied out of the read buffer (caps %d, %d)", cap(a.Bytes), cap(b.Bytes))
	}
}

func TestReaderRefusesDeepNestingBeforeGjson(t *testing.T) {
	deep := `{"a":` + strings.Repeat("[", maxDepth+1) + strings.Repeat("]", maxDepth+1) + "}"
	lines := readAll(t, strings.NewReader(deep+"\n"))
	if len(lines) != 1 || lines[0].Object || lines[0].Problem() != "nesting deeper than 10000" {
		t.Fatalf("deep line = object %v, problem %q", lines[0].Object, lines[0].Problem())
	}
	// A hostile one-line file of a million brackets must not crash the process.
	readAll(t, strings.NewReader("{"+strings.Repeat("[", 1_000_000)))
}

func TestReaderReturnsReadErrors(t *testing.T) {
	boom := errors.New("disk on fire")
	rd := NewReader(io.MultiReader(strings.NewReader("{\"a\":1}\n{\"b\""), iotest.ErrReader(boom)))
	if _, err := rd.Next(); err != nil {
		t.Fatal(err)
	}
	if _, err := rd.Next(); !errors.Is(err, boom) {
		t.Fatalf("err = %v, want the read error", err)
	}
}

func FuzzReader(f *testing.F) {
	f.Add([]byte("{\"a\":1}\n\n{\"b\":[1,2]}\r\n{\"c\""))
	f.Add([]byte("[[[[\n{}\n\"x\"\n"))
	f.Add([]byte("\n\n\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		rd := NewReader(iotest.HalfReader(bytes.NewReader(data)))
		lastNum, n, torn := 0, 0, 0
		for {
			l, err := rd.Next()
			if err == io.EOF {
				break
			}
			if err != nil {
				t.Fatal(err)
			}
			if l.Num <= lastNum || bytes.IndexByte(l.Bytes, '\n') >= 0 || isBlank(l.Bytes) {
				t.Fatalf("bad line %+v after %d", l, lastNum)
			}
			if l.Object && !isObjectLine(l.Bytes) {
				t.Fatalf("line %d called an object: %q", l.Num, l.Bytes)
			}
			_ = l.Problem()
			if l.Torn {
				torn++
			} else {
				n++
			}
			lastNum = l.Num
		}
		if lastNum > bytes.Count(data, []byte{'\n'})+1 || torn > 1 || rd.Entries() != n {
			t.Fatalf("lines %d, torn %d, entries %d vs %d for %d newlines", lastNum, torn, rd.Entries(), n, bytes.Count(data, []byte{'\n'}))
		}
	})
}
