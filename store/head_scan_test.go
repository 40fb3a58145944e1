package store

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"reflect"
	"runtime"
	"strings"
	"testing"
)

// foreignRecord is a record in Robota's layout (messages before the
// keys list reads, no messageCount) of about size bytes, with strings that
// hold escaped quotes and backslash runs, so that chunk edges land inside
// escapes.
func foreignRecord(size int) []byte {
	var b bytes.Buffer
	b.WriteString(`{"id":"rob-1","cwd":"/home/dev/\"quoted\" dir","createdAt":"2025-01-02T03:04:05.678Z","messages":[`)
	b.WriteString(`{"id":"s","role":"system","content":"be \\\"brief\\\\","state":"complete"}`)
	b.WriteString(`,{"id":"u","role":"user","content":[{"type":"text","text":"first \"prompt\" \\\\ here"}],"state":"complete","metadata":{"n":[1,2,{"x":null}]}}`)
	for i := 0; b.Len() < size; i++ {
		fmt.Fprintf(&b, `,{"id":"m%d","role":"assistant","content":"%s\\\\\\\"%s","state":"complete","n":%d}`, i, strings.Repeat("w", i%97), strings.Repeat(`\\`, i%5), i)
	}
	b.WriteString(`],"history":[{"a":1}],"version":1,"updatedAt":"2025-01-02T03:09:00.000Z","status":"idle","provider":{"name":"echo","model":"m"},"usage":{"inputTokens":7,"outputTokens":9},"systemPrompt":"You are helpful.","k\u0065y":12345678901234567890}` + "\n")
	return b.Bytes()
}

// The scan reads what the whole-record parse reads, wherever the chunk
// edges fall: header members before and after the messages, the message
// count and the first user prompt.
func TestScanAgreesWithTheWholeRecord(t *testing.T) {
	for _, size := range []int{0, 3000} {
		data := foreignRecord(size)
		var want Head
		if err := want.fromRecord(data); err != nil {
			t.Fatalf("fromRecord: %v", err)
		}
		if want.MessageCount < 2 || want.UpdatedAt == "" || want.FirstPrompt == "" || want.Provider == nil {
			t.Fatalf("the fixture does not exercise the scan: %+v", want)
		}
		for _, chunk := range []int{1, 2, 3, 7, 64, 1000, scanChunk} {
			got := Head{}.scanChunks(bytes.NewReader(data), chunk)
			if !reflect.DeepEqual(got, want) {
				t.Errorf("size %d chunk %d:\n got  %+v\n want %+v", size, chunk, got, want)
			}
		}
	}
}

func TestScanFindsDamage(t *testing.T) {
	good := foreignRecord(2000)
	for name, data := range map[string][]byte{
		"cut short":            good[:len(good)/2],
		"cut inside a string":  good[:bytes.Index(good, []byte("first"))+3],
		"not an object":        []byte(`[1,2]`),
		"messages not array":   []byte(`{"id":"a","messages":{}}`),
		"trailing comma":       []byte(`{"id":"a",}`),
		"missing comma":        []byte(`{"id":"a" "cwd":"b"}`),
		"mismatched bracket":   []byte(`{"id":"a","messages":[{"a":1]]}`),
		"bytes after":          append(bytes.Clone(good), 'x'),
		"message without ',' ": []byte(`{"messages":[{"a":1} {"b":2}]}`),
	} {
		h := Head{Path: "r.json"}.scanChunks(bytes.NewReader(data), 5)
		var cerr *CorruptError
		if !h.Corrupt || !errors.As(h.Err, &cerr) {
			t.Errorf("%s: not corrupt: %+v", name, h)
		}
	}
}

// sizedReader is a record of n bytes made as it is read: a big record
// without the disk or the memory for it.
type sizedReader struct {
	head, tail []byte
	n          int64
	maxRead    int
}

func (r *sizedReader) ReadAt(b []byte, off int64) (int, error) {
	r.maxRead = max(r.maxRead, len(b))
	body := r.n - int64(len(r.head)) - int64(len(r.tail))
	n := 0
	for n < len(b) && off < r.n {
		switch {
		case off < int64(len(r.head)):
			b[n] = r.head[off]
		case off < int64(len(r.head))+body:
			b[n] = 'x'
		default:
			b[n] = r.tail[off-int64(len(r.head))-body]
		}
		n++
		off++
	}
	if n < len(b) {
		return n, io.EOF
	}
	return n, nil
}

// A 100 MB foreign record is listed in memory that does not grow with it.
func TestScanOfAHugeRecordKeepsMemoryFlat(t *testing.T) {
	r := &sizedReader{
		head: []byte(`{"id":"big","messages":[{"role":"user","content":"hi"},{"role":"assistant","content":"`),
		tail: []byte(`"}],"updatedAt":"2025-01-02T03:09:00.000Z"}`),
		n:    100 << 20,
	}
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	h := Head{Size: r.n}.fromScan(r)
	runtime.ReadMemStats(&after)
	if h.Corrupt || h.MessageCount != 2 || h.FirstPrompt != "hi" || h.UpdatedAt != "2025-01-02T03:09:00.000Z" {
		t.Fatalf("head = %+v", h)
	}
	if r.maxRead > scanChunk {
		t.Errorf("one read of %d bytes, more than a chunk", r.maxRead)
	}
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 4<<20 {
		t.Errorf("scanning 100 MB allocated %d bytes", alloc)
	}
}

// ListHeads scans a foreign record past fullCheckLimit instead of reading it.
func TestListHeadsScansABigForeignRecord(t *testing.T) {
	s := newStore(t)
	data := foreignRecord(fullCheckLimit + 1000)
	writeRecord(t, s, "rob-1", data)
	var want Head
	if err := want.fromRecord(data); err != nil {
		t.Fatal(err)
	}
	heads, err := s.ListHeads()
	if err != nil || len(heads) != 1 {
		t.Fatalf("ListHeads = %+v, %v", heads, err)
	}
	got := heads[0]
	want.ID, want.Path, want.Size = got.ID, got.Path, int64(len(data))
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got  %+v\nwant %+v", got, want)
	}
	// Cut short, it is corrupt, never skipped.
	if err := os.WriteFile(s.RecordPath("rob-1"), data[:len(data)-40], 0o600); err != nil {
		t.Fatal(err)
	}
	if heads, _ := s.ListHeads(); len(heads) != 1 || !heads[0].Corrupt {
		t.Errorf("cut record: %+v", heads)
	}
}
