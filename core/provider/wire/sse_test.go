package wire

import (
	"bytes"
	"errors"
	"io"
	"strings"
	"testing"
	"testing/iotest"
)

type ev struct{ name, data string }

func readAll(t testing.TB, r io.Reader) ([]ev, error) {
	t.Helper()
	sr := NewReader(r)
	var out []ev
	for {
		e, err := sr.Next()
		if err != nil {
			if err == io.EOF {
				return out, nil
			}
			return out, err
		}
		out = append(out, ev{e.Name, string(e.Data)})
	}
}

func TestReaderFollowsTheEventStreamRules(t *testing.T) {
	tests := []struct {
		name    string
		in      string
		want    []ev
		wantErr error
	}{
		{"an event with a name and data", "event: ping\ndata: {\"type\": \"ping\"}\n\n", []ev{{"ping", `{"type": "ping"}`}}, nil},
		{"data only, as OpenAI sends it", "data: {\"a\":1}\n\ndata: [DONE]\n\n", []ev{{"", `{"a":1}`}, {"", "[DONE]"}}, nil},
		{"CRLF line ends", "event: a\r\ndata: x\r\n\r\n", []ev{{"a", "x"}}, nil},
		{"lone CR line ends", "event: a\rdata: x\r\r", []ev{{"a", "x"}}, nil},
		{"data lines are joined with LF", "data: one\ndata: two\n\n", []ev{{"", "one\ntwo"}}, nil},
		{"only one leading space is removed", "data:  two spaces\ndata:none\n\n", []ev{{"", " two spaces\nnone"}}, nil},
		{"comments are skipped", ": keep-alive\n\n: x\ndata: y\n\n", []ev{{"", "y"}}, nil},
		{"an event without data is not dispatched", "event: lonely\n\ndata: z\n\n", []ev{{"", "z"}}, nil},
		{"an empty data field dispatches an empty event", "data\n\n", []ev{{"", ""}}, nil},
		{"unknown fields are ignored", "retry: 10\nfoo: bar\ndata: q\n\n", []ev{{"", "q"}}, nil},
		{"a stream cut inside an event", "data: {\"a\":1}\n\ndata: {\"partial\"", []ev{{"", `{"a":1}`}}, io.ErrUnexpectedEOF},
		{"a stream cut after a complete line but before the blank line", "data: {\"a\":1}\n", nil, io.ErrUnexpectedEOF},
		{"an empty stream", "", nil, nil},
		{"a byte order mark at the start is dropped", "\ufeffdata: first\n\ndata: second\n\n", []ev{{"", "first"}, {"", "second"}}, nil},
		{"only one, and only at the start", "\ufeff\ufeffdata: x\n\ndata: \ufeffy\n\n", []ev{{"", "\ufeffy"}}, nil},
		{"a stream of just part of a BOM", "\xef\xbb", nil, io.ErrUnexpectedEOF},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for _, mode := range []string{"whole", "one byte at a time"} {
				var r io.Reader = strings.NewReader(tt.in)
				if mode != "whole" {
					r = iotest.OneByteReader(r)
				}
				got, err := readAll(t, r)
				if !errors.Is(err, tt.wantErr) && err != tt.wantErr {
					t.Fatalf("%s: err = %v, want %v", mode, err, tt.wantErr)
				}
				if len(got) != len(tt.want) {
					t.Fatalf("%s: events = %q, want %q", mode, got, tt.want)
				}
				for i := range got {
					if got[i] != tt.want[i] {
						t.Errorf("%s: event %d = %q, want %q", mode, i, got[i], tt.want[i])
					}
				}
			}
		})
	}
}

func TestReaderHasNoLineLengthCap(t *testing.T) {
	big := strings.Repeat("x", 5<<20) // far beyond bufio.Scanner's 64 KiB
	got, err := readAll(t, strings.NewReader("data: "+big+"\n\ndata: after\n\n"))
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || got[0].data != big || got[1].data != "after" {
		t.Fatalf("got %d events, first %d bytes", len(got), len(got[0].data))
	}
}

func TestReaderReturnsTheSourceError(t *testing.T) {
	boom := errors.New("boom")
	r := io.MultiReader(strings.NewReader("data: a\n\ndata: b"), iotest.ErrReader(boom))
	got, err := readAll(t, r)
	if !errors.Is(err, boom) || len(got) != 1 {
		t.Fatalf("events %q, err %v; want one event and boom", got, err)
	}
}

func TestPrimeWaitsForTheFirstByte(t *testing.T) {
	r := NewReader(iotest.OneByteReader(strings.NewReader("data: a\n\n")))
	if err := r.Prime(); err != nil {
		t.Fatal(err)
	}
	if r.BytesRead() != 1 {
		t.Fatalf("read %d bytes, want 1", r.BytesRead())
	}
	e, err := r.Next()
	if err != nil || string(e.Data) != "a" {
		t.Fatalf("after Prime: %q %v", e.Data, err)
	}
	if err := NewReader(strings.NewReader("")).Prime(); err != io.EOF {
		t.Fatalf("Prime on an empty stream = %v, want EOF", err)
	}
}

// encode writes events back in the wire format.
func encode(evs []ev) []byte {
	var b bytes.Buffer
	for _, e := range evs {
		if e.name != "" {
			b.WriteString("event: " + e.name + "\n")
		}
		for _, line := range strings.Split(e.data, "\n") {
			b.WriteString("data: " + line + "\n")
		}
		b.WriteString("\n")
	}
	return b.Bytes()
}

// FuzzReader: any bytes parse without panicking, the same way whatever the
// read sizes, and the events re-encoded parse back to themselves.
func FuzzReader(f *testing.F) {
	f.Add([]byte("event: message_start\ndata: {\"type\":\"message_start\"}\n\n"))
	f.Add([]byte("data: [DONE]\r\n\r\n"))
	f.Add([]byte(": c\rdata:x\r\rdata\n\nid: 1\x00\n"))
	f.Add([]byte("event: ping\ndata: {\"type\": \"ping\"}\n\nevent: content_block_delta\ndata: {\"type\": \"content_block_delta\",\"index\": 0,\"delta\": {\"type\": \"text_delta\", \"text\": \"ello frien\"}}\n\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		whole, errWhole := readAll(t, bytes.NewReader(data))
		bytewise, errByte := readAll(t, iotest.OneByteReader(bytes.NewReader(data)))
		if (errWhole == nil) != (errByte == nil) || len(whole) != len(bytewise) {
			t.Fatalf("read sizes change the result: %q %v vs %q %v", whole, errWhole, bytewise, errByte)
		}
		for i := range whole {
			if whole[i] != bytewise[i] {
				t.Fatalf("event %d differs: %q vs %q", i, whole[i], bytewise[i])
			}
		}
		again, err := readAll(t, bytes.NewReader(encode(whole)))
		if err != nil || len(again) != len(whole) {
			t.Fatalf("re-encoded events do not parse back: %q %v", again, err)
		}
		for i := range again {
			if again[i] != whole[i] {
				t.Fatalf("event %d round trip: %q vs %q", i, again[i], whole[i])
			}
		}
	})
}

// A long line arriving a byte at a time must not be copied once per byte
// (the fuzzer found that quadratic fill): 2 MB would then take minutes.
func TestLongLineInTinyReadsIsLinear(t *testing.T) {
	big := strings.Repeat("y", 2<<20)
	got, err := readAll(t, iotest.OneByteReader(strings.NewReader("data: "+big+"\n\n")))
	if err != nil || len(got) != 1 || len(got[0].data) != len(big) {
		t.Fatalf("%d events, err %v", len(got), err)
	}
}

func BenchmarkReader(b *testing.B) {
	ev := "event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"text_delta\",\"text\":\" weather\"}}\n\n"
	stream := strings.Repeat(ev, 1000)
	b.SetBytes(int64(len(stream)))
	for b.Loop() {
		r := NewReader(strings.NewReader(stream))
		for {
			if _, err := r.Next(); err != nil {
				break
			}
		}
	}
}

// Older llama.cpp servers report a failure with an "error:" line: it is
// an event named "error", not a field to drop.
func TestAnErrorFieldIsAnErrorEvent(t *testing.T) {
	r := NewReader(strings.NewReader("error: {\"code\":400,\"message\":\"too long\"}\n\ndata: [DONE]\n\n"))
	ev, err := r.Next()
	if err != nil || ev.Name != "error" || string(ev.Data) != `{"code":400,"message":"too long"}` {
		t.Fatalf("event %q %q, err %v", ev.Name, ev.Data, err)
	}
	if ev, err = r.Next(); err != nil || string(ev.Data) != "[DONE]" || ev.Name != "" {
		t.Fatalf("next event %q %q, err %v", ev.Name, ev.Data, err)
	}
}
