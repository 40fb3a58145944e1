package store

import (
	"bytes"
	"encoding/json"
	"testing"
)

// Another program that saves a trail record keeps its header keys as they
// were (Robota's persistSession spreads the record it loaded) and writes a
// new updatedAt and messages: the header's count no longer says how many
// there are, and the head must not believe it.
func TestHeadCountsWhenTheCountIsNotStampedWithUpdatedAt(t *testing.T) {
	s := newStore(t)
	big := trailRecord(t, "fresh", 40, 1000)
	if !bytes.Contains(big, []byte(`"messageCountAt": "2025-01-02T00:00:00.000Z"`)) {
		t.Fatalf("Encode wrote no stamp:\n%.600s", big)
	}
	writeRecord(t, s, "fresh", big)

	// Saved again elsewhere: two messages more, a new updatedAt, the rest
	// of the header (count and stamp) as it was.
	var obj map[string]json.RawMessage
	var order []string
	dec := json.NewDecoder(bytes.NewReader(big))
	dec.Token()
	for dec.More() {
		k, _ := dec.Token()
		var v json.RawMessage
		dec.Decode(&v)
		if obj == nil {
			obj = map[string]json.RawMessage{}
		}
		obj[k.(string)] = v
		order = append(order, k.(string))
	}
	var msgs []json.RawMessage
	json.Unmarshal(obj["messages"], &msgs)
	msgs = append(msgs, json.RawMessage(`{"role":"user","content":"more"}`), json.RawMessage(`{"role":"assistant","content":"ok"}`))
	obj["messages"], _ = json.Marshal(msgs)
	obj["updatedAt"] = json.RawMessage(`"2025-01-03T00:00:00.000Z"`)
	var out bytes.Buffer
	out.WriteString("{")
	for i, k := range order {
		if i > 0 {
			out.WriteString(",")
		}
		kb, _ := json.Marshal(k)
		out.Write(kb)
		out.WriteString(":")
		out.Write(obj[k])
	}
	out.WriteString("}")
	var indented bytes.Buffer
	json.Indent(&indented, out.Bytes(), "", "  ") // JSON.stringify(record, null, 2)
	writeRecord(t, s, "stale", indented.Bytes())

	for id, want := range map[string]int{"fresh": 40, "stale": 42} {
		h, err := s.ReadHead(id)
		if err != nil || h.Corrupt {
			t.Fatalf("%s: %v %v", id, err, h.Err)
		}
		if h.MessageCount != want {
			t.Errorf("%s: head says %d messages, the record has %d", id, h.MessageCount, want)
		}
	}

	// A count trail did not compute for these messages gets no stamp.
	r := mustDecode(t, indented.Bytes())
	if enc := mustEncode(t, r); bytes.Contains(enc, []byte("messageCountAt")) {
		t.Error("a count of 40 for 42 messages was stamped")
	}
	r.MessageCount = len(r.Messages)
	if enc := mustEncode(t, r); !bytes.Contains(enc, []byte(`"messageCountAt": "2025-01-03T00:00:00.000Z"`)) {
		t.Error("the true count was not stamped")
	}
}
