package store

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
)

// fixture reads testdata/records/<name>.
func fixture(t testing.TB, name string) []byte {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("..", "testdata", "records", name))
	if err != nil {
		t.Fatal(err)
	}
	return data
}

func compact(t testing.TB, raw []byte) string {
	t.Helper()
	var b bytes.Buffer
	if err := json.Compact(&b, raw); err != nil {
		t.Fatalf("compact %s: %v", raw, err)
	}
	return b.String()
}

// topKeys returns the top-level keys of a JSON object in file order.
func topKeys(t testing.TB, data []byte) []string {
	t.Helper()
	dec := json.NewDecoder(bytes.NewReader(data))
	if _, err := dec.Token(); err != nil {
		t.Fatal(err)
	}
	var keys []string
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			t.Fatal(err)
		}
		keys = append(keys, tok.(string))
		var skip json.RawMessage
		if err := dec.Decode(&skip); err != nil {
			t.Fatal(err)
		}
	}
	return keys
}

func mustDecode(t testing.TB, data []byte) *Record {
	t.Helper()
	r, err := Decode(data, "test.json")
	if err != nil {
		t.Fatalf("decode: %v", err)
	}
	return r
}

func mustEncode(t testing.TB, r *Record) []byte {
	t.Helper()
	out, err := r.Encode()
	if err != nil {
		t.Fatalf("encode: %v", err)
	}
	return out
}

// newStore returns a store in a fresh temp folder.
func newStore(t testing.TB) *FS {
	t.Helper()
	return New(filepath.Join(t.TempDir(), "home"))
}

// writeRecord puts raw bytes at the record path of id, bypassing Save.
func writeRecord(t testing.TB, s *FS, id string, data []byte) string {
	t.Helper()
	if err := s.EnsureLayout(); err != nil {
		t.Fatal(err)
	}
	p := s.RecordPath(id)
	if err := os.WriteFile(p, data, 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}
