package logfmt

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"strings"
	"testing"
)

func sumHex(s string) string {
	b := sha256.Sum256([]byte(s))
	return hex.EncodeToString(b[:])
}

func TestMessagesSHA256IsTheListAsJSONL(t *testing.T) {
	msgs := []json.RawMessage{
		json.RawMessage(`{"id":"a","role":"system","content":"be brief"}`),
		json.RawMessage(`{"id":"b","role":"user","content":"hi\nthere"}`),
	}
	want := sumHex(`{"id":"a","role":"system","content":"be brief"}` + "\n" + `{"id":"b","role":"user","content":"hi\nthere"}` + "\n")
	if got := MessagesSHA256(msgs); got != want {
		t.Fatalf("MessagesSHA256 = %s, want %s", got, want)
	}
	if got, want := MessagesSHA256(nil), sumHex(""); got != want {
		t.Fatalf("empty list: %s, want %s", got, want)
	}
}

func TestMessagesHasherRunsOverTheHistory(t *testing.T) {
	var h MessagesHasher
	var all []json.RawMessage
	for i := range 5 {
		m := json.RawMessage(`{"role":"user","content":"` + strings.Repeat("x", i) + `"}`)
		h.Add(m)
		all = append(all, m)
		if got, want := h.Sum(), MessagesSHA256(all); got != want || h.Len() != i+1 {
			t.Fatalf("after %d adds: %s (len %d), want %s", i+1, got, h.Len(), want)
		}
	}
	h.Reset()
	if h.Len() != 0 || h.Sum() != MessagesSHA256(nil) {
		t.Fatalf("reset hasher: len %d sum %s", h.Len(), h.Sum())
	}
	h.Add(all[2])
	if h.Sum() != MessagesSHA256(all[2:3]) {
		t.Fatal("a reset hasher does not start over")
	}
}

func TestToolsSHA256(t *testing.T) {
	tools := json.RawMessage(`[{"name":"Read","description":"read a file","parameters":{"type":"object"}}]`)
	if got, want := ToolsSHA256(tools), sumHex(string(tools)); got != want {
		t.Fatalf("ToolsSHA256 = %s, want %s", got, want)
	}
	if got, want := ToolsSHA256(nil), sumHex("null"); got != want {
		t.Fatalf("no tools: %s, want %s", got, want)
	}
}

func TestRequestFormNotesInterruptedAnswers(t *testing.T) {
	cut := json.RawMessage(`{"id":"x","role":"assistant","content":"half \"an\" ans","state":"interrupted","timestamp":"t","extra":{"content":"kept"}}`)
	want := `{"id":"x","role":"assistant","content":"half \"an\" ans\n\n[This response was interrupted by the user]","state":"interrupted","timestamp":"t","extra":{"content":"kept"}}`
	if got := string(RequestForm(cut)); got != want {
		t.Fatalf("RequestForm =\n%s\nwant\n%s", got, want)
	}
	for _, same := range []string{
		`{"id":"x","role":"assistant","content":"whole","state":"complete"}`,
		`{"id":"x","role":"user","content":"cut?","state":"interrupted"}`,
		`{"id":"x","role":"assistant","content":null,"state":"interrupted"}`,
		`[1,2]`,
	} {
		if got := string(RequestForm(json.RawMessage(same))); got != same {
			t.Fatalf("RequestForm changed %s into %s", same, got)
		}
	}
}

// JavaScript's JSON.stringify writes U+2028 and U+2029 raw; the log writes
// them the same way, so a value holding them has the bytes (and the
// payload file name and digest) Robota would give it.
func TestLineSeparatorsAreWrittenRaw(t *testing.T) {
	v := "a\u2028b\u2029c"
	b, err := Marshal(Object{F("content", v)})
	if err != nil {
		t.Fatal(err)
	}
	// JSON.stringify({content: "a\u2028b\u2029c"}), byte for byte.
	want := "{\"content\":\"a\u2028b\u2029c\"}"
	if string(b) != want {
		t.Fatalf("Marshal = %q, want %q", b, want)
	}
	if MessagesSHA256([]json.RawMessage{b}) != sumHex(want+"\n") {
		t.Fatal("the digest is not over the raw separators")
	}
}
