package chat

import (
	"bytes"
	"encoding/json"
	"strconv"
	"strings"
	"testing"
)

func TestMessageKeepsUnknownKeysAndLoadedBytes(t *testing.T) {
	raw := json.RawMessage(`{
      "id": "u1",
      "role": "user",
      "content": "hello <b>&",
      "state": "complete",
      "timestamp": "2026-05-05T00:00:01.000Z",
      "parts": [{"type": "text", "text": "hello"}],
      "metadata": {"n": 1.50}
    }`)
	m, err := DecodeMessage(raw)
	if err != nil {
		t.Fatal(err)
	}
	if m.ID != "u1" || m.Role != RoleUser || m.Content != "hello <b>&" || len(m.Extra) != 1 {
		t.Fatalf("decoded %+v", m)
	}
	rec, _ := m.RecordJSON()
	if string(rec) != string(raw) {
		t.Fatalf("an unchanged message must keep its exact bytes:\n%s", rec)
	}
	compact, _ := m.MarshalJSON()
	want := `{"id":"u1","role":"user","content":"hello <b>&","state":"complete","timestamp":"2026-05-05T00:00:01.000Z","parts":[{"type":"text","text":"hello"}],"metadata":{"n":1.50}}`
	if string(compact) != want {
		t.Fatalf("compact:\n got %s\nwant %s", compact, want)
	}
	if m.CompactLen() != len(want) {
		t.Fatalf("CompactLen = %d, want %d", m.CompactLen(), len(want))
	}
	// The digest's path: compacted after what dst holds, the same bytes.
	if got, _ := m.AppendCompactJSON([]byte("x\n")); string(got) != "x\n"+want {
		t.Fatalf("AppendCompactJSON: %s", got)
	}
	m.Content = "changed"
	m.Touch()
	out, _ := m.RecordJSON()
	if !strings.Contains(string(out), `"content":"changed"`) || !strings.Contains(string(out), `"parts":[{"type":"text","text":"hello"}]`) {
		t.Fatalf("a changed message must re-encode with its unknown keys: %s", out)
	}
	// The length known from the loaded bytes goes with them.
	if c, _ := m.CompactJSON(); m.CompactLen() != len(c) || m.CompactLen() == len(want) {
		t.Fatalf("after a change CompactLen = %d, compact JSON %d bytes", m.CompactLen(), len(c))
	}
}

// A loaded message's length comes from the digest's pass without the
// estimator compacting it again, and matches its bytes whichever comes first.
func TestCompactLenOfALoadedMessage(t *testing.T) {
	raw := json.RawMessage("{\n  \"role\": \"user\",\n  \"content\": \"a  b\"\n}")
	const want = `{"role":"user","content":"a  b"}`
	for _, first := range []string{"len", "append", "json"} {
		m, err := DecodeMessage(raw)
		if err != nil {
			t.Fatal(err)
		}
		switch first {
		case "append":
			if b, _ := m.AppendCompactJSON(nil); string(b) != want {
				t.Fatalf("AppendCompactJSON = %s", b)
			}
		case "json":
			if b, _ := m.CompactJSON(); string(b) != want {
				t.Fatalf("CompactJSON = %s", b)
			}
		}
		if m.CompactLen() != len(want) {
			t.Errorf("%s first: CompactLen = %d, want %d", first, m.CompactLen(), len(want))
		}
	}
}

func TestAssistantToolCallsRoundTrip(t *testing.T) {
	m := Message{ID: "a1", Role: RoleAssistant, State: StateComplete, Timestamp: "t",
		ToolCalls: []ToolCall{{ID: "call_1", Name: "Bash", Arguments: `{"command":"ls"}`}}}
	b, err := m.MarshalJSON()
	if err != nil {
		t.Fatal(err)
	}
	want := `{"id":"a1","role":"assistant","content":"","state":"complete","timestamp":"t","toolCalls":[{"id":"call_1","type":"function","function":{"name":"Bash","arguments":"{\"command\":\"ls\"}"}}]}`
	if string(b) != want {
		t.Fatalf("got  %s\nwant %s", b, want)
	}
	back, err := DecodeMessage(b)
	if err != nil || len(back.ToolCalls) != 1 || back.ToolCalls[0].Arguments != `{"command":"ls"}` || back.ToolCalls[0].Name != "Bash" {
		t.Fatalf("decoded %+v, %v", back, err)
	}
	null, _ := DecodeMessage(json.RawMessage(`{"id":"a2","role":"assistant","content":null,"state":"complete","timestamp":"t"}`))
	null.Touch()
	if b, _ := null.MarshalJSON(); !strings.Contains(string(b), `"content":null`) {
		t.Fatalf("a null content must stay null: %s", b)
	}
}

func TestDecodeMessageRefusesGarbage(t *testing.T) {
	for _, in := range []string{``, `[]`, `"x"`, `{"id":`, `nope`} {
		if _, err := DecodeMessage(json.RawMessage(in)); err == nil {
			t.Errorf("DecodeMessage(%q) accepted garbage", in)
		}
	}
}

func TestUsageFromMetadata(t *testing.T) {
	tests := []struct {
		md     string
		want   int64
		wantOK bool
	}{
		{`{"inputTokens":10,"outputTokens":5,"usage":{"totalTokens":15}}`, 15, true},
		{`{"inputTokens":10,"outputTokens":5}`, 15, true},
		{`{"usage":{"inputTokens":3,"outputTokens":4}}`, 7, true},
		{`{"round":1}`, 0, false},
	}
	for _, tt := range tests {
		m := Message{Metadata: json.RawMessage(tt.md)}
		u, ok := m.Usage()
		if ok != tt.wantOK || u.TotalTokens != tt.want {
			t.Errorf("%s: got %d,%v want %d,%v", tt.md, u.TotalTokens, ok, tt.want, tt.wantOK)
		}
	}
}

func TestCompactBytesMatchesEncodingJSON(t *testing.T) {
	for _, in := range []string{
		`{ "a" : [ 1, 2 ,3 ] }`,
		"{\n  \"s\": \"keep  spaces\\\" and \\\\\\\\ \\n\",\n\t\"t\": true\r\n}",
		`"only a string with \" quote"`,
		`[ ]`,
		`{"x":"\\"}`,
	} {
		var want bytes.Buffer
		if err := json.Compact(&want, []byte(in)); err != nil {
			t.Fatalf("bad case %q: %v", in, err)
		}
		if got := CompactBytes([]byte(in)); string(got) != want.String() {
			t.Errorf("CompactBytes(%q) = %q, want %q", in, got, want.String())
		}
	}
}

func FuzzCompactBytes(f *testing.F) {
	f.Add([]byte(`{ "a" : [ 1, "b \" c" ] }`))
	f.Add([]byte("[\n\t\"\\\\\" , null\r\n]"))
	f.Fuzz(func(t *testing.T, in []byte) {
		var want bytes.Buffer
		if json.Compact(&want, in) != nil {
			CompactBytes(in) // must not panic on anything
			return
		}
		if got := CompactBytes(in); !bytes.Equal(got, want.Bytes()) {
			t.Fatalf("CompactBytes(%q) = %q, want %q", in, got, want.Bytes())
		}
	})
}

func TestDecodeMessagesKeepsOrderAndNamesTheBadOne(t *testing.T) {
	for _, n := range []int{3, parallelDecodeMin + 5} {
		raws := make([]json.RawMessage, n)
		for i := range raws {
			raws[i] = json.RawMessage(`{"id":"m` + strconv.Itoa(i) + `","role":"user","content":"x","state":"complete","timestamp":"t"}`)
		}
		msgs, err := DecodeMessages(raws)
		if err != nil {
			t.Fatal(err)
		}
		for i, m := range msgs {
			if m.ID != "m"+strconv.Itoa(i) {
				t.Fatalf("n=%d: message %d has id %s", n, i, m.ID)
			}
		}
		raws[n-2] = json.RawMessage(`[1]`)
		if _, err := DecodeMessages(raws); err == nil || !strings.Contains(err.Error(), "message "+strconv.Itoa(n-2)) {
			t.Fatalf("n=%d: err = %v", n, err)
		}
	}
}

// providerData is kept in place through decode and encode, and read only
// by the provider that wrote it.
func TestProviderDataIsKeptAndReadByItsProviderOnly(t *testing.T) {
	raw := `{"id":"a1","role":"assistant","content":"x","state":"complete","timestamp":"t","metadata":{"round":1},"providerData":{"provider":"openai","reasoning_content":"r"},"other":1}`
	m, err := DecodeMessage(json.RawMessage(raw))
	if err != nil {
		t.Fatal(err)
	}
	if m.DataFor("openai").Get("reasoning_content").String() != "r" || m.DataFor("anthropic").Exists() {
		t.Errorf("DataFor: openai %s, anthropic %s", m.DataFor("openai").Raw, m.DataFor("anthropic").Raw)
	}
	m.Content = "y"
	m.Touch()
	out, _ := m.MarshalJSON()
	if want := strings.Replace(raw, `"x"`, `"y"`, 1); string(out) != want {
		t.Errorf("re-encoded\n got %s\nwant %s", out, want)
	}
	notObject, _ := DecodeMessage(json.RawMessage(`{"id":"a","role":"assistant","providerData":"junk"}`))
	if notObject.ProviderData != nil || notObject.DataFor("openai").Exists() || len(notObject.Extra) != 1 {
		t.Errorf("a providerData that is not an object must stay an unknown key: %+v", notObject)
	}
}
