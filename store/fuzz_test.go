package store

import (
	"encoding/json"
	"reflect"
	"testing"
	"unicode/utf8"

	"github.com/tidwall/gjson"
)

func FuzzDecode(f *testing.F) {
	for _, name := range []string{"robota.json", "trail.json", "truncated.json"} {
		f.Add(fixture(f, name))
	}
	f.Add([]byte(allTypes))
	f.Add([]byte(`{"id":"a","version":"1","provider":{"name":""},"usage":{"inputTokens":1.5,"outputTokens":2}}`))
	f.Add([]byte(`{"id":"\ud800","name":"\u2028<&>","messages":[],"messages":null}`))
	f.Add([]byte(`[]`))
	f.Add([]byte(shapeRecord))
	f.Add([]byte(`{"id":"a","usage":{"inputTokens":1e400},"messages":[{"role":7,"content":{},"toolCalls":[{"id":"t","function":{"name":"R","arguments":{}}}]}]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		r, err := Decode(data, "f.json")
		if err != nil {
			if _, ok := err.(*CorruptError); !ok {
				t.Fatalf("error is %T, not *CorruptError", err)
			}
			return
		}
		checkAgainstEncodingJSON(t, data, r)
		out, err := r.Encode()
		if err != nil {
			t.Fatalf("decoded record does not encode: %v\ninput %q", err, data)
		}
		if !json.Valid(out) || !gjson.ValidBytes(out) {
			t.Fatalf("encoded record is not JSON:\n%s", out)
		}
		again, err := Decode(out, "f.json")
		if err != nil {
			t.Fatalf("encoded record does not decode: %v\n%s", err, out)
		}
		if !reflect.DeepEqual(header(r), header(again)) {
			t.Fatalf("header changed:\n%+v\n%+v", header(r), header(again))
		}
		// Encode adds id, cwd, createdAt and updatedAt when missing, so
		// compare only the members that are not typed header fields.
		if len(r.Messages) != len(again.Messages) || len(r.History) != len(again.History) || otherFields(r) != otherFields(again) {
			t.Fatalf("members changed: %d/%d/%s -> %d/%d/%s", len(r.Messages), len(r.History), otherFields(r),
				len(again.Messages), len(again.History), otherFields(again))
		}
		// migrate-history's edit in place gives a record with one history
		// entry per message and every other member as it was.
		if len(r.Messages) == 0 {
			return
		}
		migrated, err := withHistory(data, buildHistory(r, func() string { return "new" }), "f.json")
		if err != nil {
			t.Fatalf("withHistory: %v\ninput %q", err, data)
		}
		m, err := Decode(migrated, "f.json")
		if err != nil || len(m.History) != len(r.Messages) || len(m.Messages) != len(r.Messages) ||
			!reflect.DeepEqual(header(r), header(m)) || otherFields(r) != otherFields(m) {
			t.Fatalf("migrated record changed: %v\ninput %q\noutput %q", err, data, migrated)
		}
	})
}

// The head window is read without validating it first (it is cut off
// mid-record by design), so gjson must not trip on any bytes there.
func FuzzHeadWindow(f *testing.F) {
	f.Add(fixture(f, "trail.json")[:300])
	f.Add(fixture(f, "robota.json"))
	f.Fuzz(func(t *testing.T, data []byte) {
		var h Head
		h.fromWindow(data)
		_ = h.fromRecord(data)
	})
}

func otherFields(r *Record) string {
	var b []byte
	for _, f := range r.Fields {
		if !isHeaderKey(f.Key) {
			b = append(appendString(b, f.Key), ':')
			b = append(b, compactString(f.Value)...)
			b = append(b, ',')
		}
	}
	return string(b)
}

// checkAgainstEncodingJSON holds the hand-written walkers to what
// encoding/json sees in the same bytes (it too lets the last duplicate win).
func checkAgainstEncodingJSON(t *testing.T, data []byte, r *Record) {
	var m map[string]json.RawMessage
	if !utf8.Valid(data) || json.Unmarshal(data, &m) != nil {
		return // encoding/json rewrites invalid UTF-8 and stops at depth 10,000
	}
	for _, f := range r.Fields {
		if compactString(f.Value) != compactString(m[f.Key]) {
			t.Fatalf("%q: %s, encoding/json says %s", f.Key, f.Value, m[f.Key])
		}
	}
	for key, elems := range map[string][]json.RawMessage{"messages": r.Messages, "history": r.History} {
		var want []json.RawMessage
		if raw, ok := m[key]; ok {
			if err := json.Unmarshal(raw, &want); err != nil {
				t.Fatalf("%s: %v", key, err)
			}
		}
		if len(want) != len(elems) {
			t.Fatalf("%s: %d elements, encoding/json says %d", key, len(elems), len(want))
		}
		for i := range want {
			if compactString(want[i]) != compactString(elems[i]) {
				t.Fatalf("%s[%d]: %s, encoding/json says %s", key, i, elems[i], want[i])
			}
		}
	}
}
