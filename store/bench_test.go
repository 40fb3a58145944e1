package store

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// benchID gives every generated id the same width, so one template serves
// all records with the id overwritten in place.
func benchID(i int) string { return fmt.Sprintf("0193a5b0-0000-7000-8000-%012d", i) }

// writeSessions writes n copies of one record template, each with its own
// id, straight to disk (Save would fsync 10,000 times), and a log beside
// each, as every session has: list compares the two folders.
func writeSessions(b *testing.B, n int, template []byte) *FS {
	b.Helper()
	s := New(b.TempDir())
	if err := s.EnsureLayout(); err != nil {
		b.Fatal(err)
	}
	placeholder := []byte(benchID(0))
	at := bytes.Index(template, placeholder)
	if at < 0 {
		b.Fatal("template without the id")
	}
	buf := bytes.Clone(template)
	for i := range n {
		id := benchID(i)
		copy(buf[at:], id)
		if err := os.WriteFile(s.RecordPath(id), buf, 0o600); err != nil {
			b.Fatal(err)
		}
		if err := os.WriteFile(s.LogPath(id), nil, 0o600); err != nil {
			b.Fatal(err)
		}
	}
	return s
}

// benchRecord is a record in trail's layout whose messages and history make
// it about size bytes.
func benchRecord(b testing.TB, size int) []byte {
	b.Helper()
	r := &Record{
		ID: benchID(0), Name: "", Cwd: "/home/dev/project", CreatedAt: "2025-01-02T03:04:05.678Z",
		UpdatedAt: "2025-01-02T03:04:09.100Z", Version: 1, Status: "idle", StopReason: "end_turn",
		Provider: &ProviderRef{Name: "anthropic", Model: "claude-sonnet-4-5"}, Title: "Summarise my notes",
		Usage: &Usage{InputTokens: 1200, OutputTokens: 340},
	}
	prompt := "You are a careful assistant."
	if size >= 100_000 {
		// Real system prompts run to many KiB and sit right after the header.
		prompt = strings.Repeat("You are a careful assistant. Think before you act. ", 200)
	}
	r.Fields.SetRaw("systemPrompt", json.RawMessage(strconv.Quote(prompt)))
	for i := 0; ; i++ {
		m := benchMessage(i)
		r.Messages = append(r.Messages, m)
		r.History = append(r.History, benchEntry(i, m))
		r.MessageCount = len(r.Messages)
		if out := mustEncode(b, r); len(out) >= size || size < 4096 {
			return out
		}
	}
}

func benchMessage(i int) json.RawMessage {
	role, text := "user", "Please look at section "+fmt.Sprint(i)+" and tell me what it says about <tags> & such."
	if i%2 == 1 {
		role, text = "assistant", strings.Repeat("The section explains the layout in detail. ", 6)
	}
	return json.RawMessage(fmt.Sprintf(`{"id":"m%d","role":%q,"content":%q,"state":"complete","timestamp":"2025-01-02T03:04:06.000Z","metadata":{"inputTokens":120,"outputTokens":34,"round":1}}`, i, role, text))
}

func benchEntry(i int, m json.RawMessage) json.RawMessage {
	return json.RawMessage(fmt.Sprintf(`{"id":"m%d","timestamp":"2025-01-02T03:04:06.000Z","category":"chat","type":"user","data":%s}`, i, m))
}

func benchListHeads(b *testing.B, size int) {
	template := benchRecord(b, size)
	s := writeSessions(b, 10_000, template)
	for b.Loop() {
		heads, err := s.ListHeads()
		if err != nil || len(heads) != 10_000 {
			b.Fatalf("%d heads, %v", len(heads), err)
		}
		if heads[0].Corrupt || heads[0].MessageCount == 0 {
			b.Fatalf("bad head %+v", heads[0])
		}
	}
	b.ReportMetric(float64(len(template)), "bytes/record")
}

// SPEC 9: list over 10,000 sessions of 200 KB each under 300 ms, and at
// most 1.5x the time for 10,000 tiny ones. Writing the 2 GB of fixtures
// takes a while, so it runs only with TRAIL_BENCH_LARGE=1.
func BenchmarkListHeads10kLarge(b *testing.B) {
	if os.Getenv("TRAIL_BENCH_LARGE") != "1" {
		b.Skip("set TRAIL_BENCH_LARGE=1 to write 2 GB of records and run this")
	}
	benchListHeads(b, 200_000)
}

func BenchmarkListHeads10kTiny(b *testing.B) {
	benchListHeads(b, 0)
}

// SPEC 9: resume of a 10,000-message session under 50 ms beyond the
// provider's time; Load and Save are most of what is not the provider.
func BenchmarkLoadSave10kMessages(b *testing.B) {
	s := New(b.TempDir())
	r := &Record{ID: "big", Cwd: "/w", Title: "t"}
	for i := range 10_000 {
		m := benchMessage(i)
		r.Messages = append(r.Messages, m)
		r.History = append(r.History, benchEntry(i, m))
	}
	r.MessageCount = len(r.Messages)
	if err := s.Save(r); err != nil {
		b.Fatal(err)
	}
	st, _ := os.Stat(filepath.Join(s.SessionsDir(), "big.json"))
	b.SetBytes(st.Size())
	for b.Loop() {
		r, err := s.Load("big")
		if err != nil {
			b.Fatal(err)
		}
		if err := s.Save(r); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(st.Size()), "bytes/record")
}

func BenchmarkDecode10kMessages(b *testing.B) {
	data := benchRecordN(b, 10_000)
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		if _, err := Decode(data, "x"); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkEncode10kMessages(b *testing.B) {
	data := benchRecordN(b, 10_000)
	r := mustDecode(b, data)
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		if _, err := r.Encode(); err != nil {
			b.Fatal(err)
		}
	}
}

func benchRecordN(b testing.TB, n int) []byte {
	r := &Record{ID: "big", Cwd: "/w"}
	for i := range n {
		m := benchMessage(i)
		r.Messages = append(r.Messages, m)
		r.History = append(r.History, benchEntry(i, m))
	}
	return mustEncode(b, r)
}

// The shape rule walks every message once more on each load; this is its
// share of BenchmarkDecode10kMessages.
func BenchmarkCheckShape10kMessages(b *testing.B) {
	data := benchRecordN(b, 10_000)
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		walkObject(data, 0, func(key string, off int) (int, bool) {
			if key == "messages" || key == "history" {
				i := 0
				return walkArrayAt(data, off, func(eoff, _ int) bool {
					if err := checkElement(data, key, eoff, i); err != nil {
						b.Fatal(err.msg)
					}
					i++
					return true
				}), true
			}
			return endOfValue(data, off), true
		})
	}
}
