package logfmt

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"strings"
	"testing"
	"time"
)

// pipedLog writes a log past pipedMinFile with every kind of line the
// reader tells apart: objects, blank lines, lines that are not JSON, lines
// longer than a batch and than the read buffer, a payload marker, and a
// torn last line.
func pipedLog(t *testing.T) string {
	var b bytes.Buffer
	for i := 0; b.Len() < pipedMinFile+3<<20; i++ {
		switch i % 1000 {
		case 7:
			b.WriteString("\n   \n")
		case 8:
			b.WriteString("not json at all\n")
		case 9:
			fmt.Fprintf(&b, `{"seq":%d,"big":"%s"}`+"\n", i, strings.Repeat("x", pipedBatchSize+readerBufSize/2))
		case 10:
			fmt.Fprintf(&b, `{"seq":%d,"p":{"kind":"external-payload","path":"a.json"}}`+"\n", i)
		default:
			fmt.Fprintf(&b, `{"timestamp":"2026-01-01T00:00:00.000Z","seq":%d,"event":"text_delta","delta":"w%d "}`+"\n", i, i)
		}
	}
	b.WriteString(`{"torn":`)
	path := filepath.Join(t.TempDir(), "big.jsonl")
	if err := os.WriteFile(path, b.Bytes(), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

type seenLine struct {
	Line
	Text string
}

func readAllLines(t *testing.T, rd *Reader) ([]seenLine, int) {
	t.Helper()
	defer rd.Release()
	var out []seenLine
	for {
		l, err := rd.Next()
		if errors.Is(err, io.EOF) {
			return out, rd.Entries()
		}
		if err != nil {
			t.Fatal(err)
		}
		text := string(l.Bytes)
		l.Bytes = nil
		out = append(out, seenLine{l, text})
	}
}

// A big file read in two goroutines gives exactly the lines, numbers and
// verdicts of the one-goroutine reader.
func TestPipedReaderReadsWhatTheReaderReads(t *testing.T) {
	if runtime.GOMAXPROCS(0) < 2 {
		t.Skip("one core: the reader never pipes")
	}
	path := pipedLog(t)
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rd := NewReader(f)
	if rd.pipe == nil {
		t.Fatal("a big file was not piped")
	}
	got, gotEntries := readAllLines(t, rd)
	data, _ := os.ReadFile(path)
	want, wantEntries := readAllLines(t, NewReader(bytes.NewReader(data)))
	if len(got) != len(want) || gotEntries != wantEntries {
		t.Fatalf("piped %d lines (%d entries), sequential %d (%d)", len(got), gotEntries, len(want), wantEntries)
	}
	for i := range want {
		if !reflect.DeepEqual(got[i], want[i]) {
			t.Fatalf("line %d: piped %+v\nsequential %+v", i, got[i].Line, want[i].Line)
		}
	}
	last := got[len(got)-1]
	if !last.Torn || !strings.HasPrefix(got[8].Text, `{"seq":9,"big"`) || !got[9].mayRef {
		t.Errorf("the fixture lost its point: last %+v", last.Line)
	}
}

// Released half way, the reading goroutine stops and the file may close.
func TestPipedReaderReleasedEarly(t *testing.T) {
	path := pipedLog(t)
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	before := runtime.NumGoroutine()
	rd := NewReader(f)
	for range 3 {
		if _, err := rd.Next(); err != nil {
			t.Fatal(err)
		}
	}
	rd.Release()
	f.Close()
	// The goroutine closes its done channel as its last act, so Release
	// can return a moment before the runtime stops counting it; and a
	// goroutine of an earlier test may still be on its way out. Give both
	// a second: a reader that never stops stays counted.
	deadline := time.Now().Add(time.Second)
	for runtime.NumGoroutine() > before && time.Now().Before(deadline) {
		time.Sleep(time.Millisecond)
	}
	if n := runtime.NumGoroutine(); n > before {
		t.Errorf("%d goroutines after Release, %d before", n, before)
	}
}
