package store

import (
	"bytes"
	"encoding/json"
	"errors"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"
)

const allTypes = `{
 "zeta": {"nested": {"deeper": [1, {"x": "y"}, []], "empty": {}}, "list": [true, false, null]},
 "messages": [{"role":"user","content":"hi"}],
 "unicode": "h\u00e9llo — 日本語 \ud83d\ude00 😀",
 "big": 12345678901234567890,
 "float": 1.0e10,
 "small": 0.1,
 "neg": -0.5E-3,
 "html": "<b>&</b>",
 "nothing": null,
 "yes": true,
 "id": "s1",
 "history": [],
 "cwd": "/tmp",
 "arr": [ "a" , 1 , { } ]
}`

func TestRoundTripKeepsUnknownFieldsExactly(t *testing.T) {
	in := []byte(allTypes)
	r := mustDecode(t, in)
	out := mustEncode(t, r)
	again := mustDecode(t, out)

	want := map[string]string{}
	for _, k := range []string{"zeta", "unicode", "big", "float", "small", "neg", "html", "nothing", "yes", "arr"} {
		raw, ok := r.Fields.Get(k)
		if !ok {
			t.Fatalf("decode lost %q", k)
		}
		want[k] = compact(t, raw)
	}
	// The source values, compacted, are the reference.
	for k, v := range want {
		got, ok := again.Fields.Get(k)
		if !ok {
			t.Errorf("round trip lost %q", k)
			continue
		}
		if compact(t, got) != v {
			t.Errorf("%s: got %s, want %s", k, compact(t, got), v)
		}
	}
	if got := compact(t, again.Messages[0]); got != `{"role":"user","content":"hi"}` {
		t.Errorf("message changed: %s", got)
	}
	if !bytes.Contains(out, []byte(`"<b>&</b>"`)) {
		t.Errorf("HTML was escaped:\n%s", out)
	}
	if !bytes.Contains(out, []byte(`12345678901234567890`)) || !bytes.Contains(out, []byte(`1.0e10`)) {
		t.Errorf("numbers were rewritten:\n%s", out)
	}
	if !bytes.Contains(out, []byte(`h\u00e9llo — 日本語 \ud83d\ude00 😀`)) {
		t.Errorf("string bytes were rewritten:\n%s", out)
	}
	keys := topKeys(t, out)
	wantKeys := []string{"id", "cwd", "createdAt", "updatedAt", "zeta", "unicode", "big", "float", "small", "neg", "html", "nothing", "yes", "arr", "messages", "history"}
	if !slices.Equal(keys, wantKeys) {
		t.Errorf("keys %v, want %v", keys, wantKeys)
	}
	if !bytes.HasSuffix(out, []byte("\n}\n")) {
		t.Errorf("output does not end with a newline after the brace")
	}
}

func TestEncodeWritesHeaderInSpecOrderAndMessagesLast(t *testing.T) {
	r := &Record{
		ID: "s1", Name: "n", Cwd: "/c", CreatedAt: "c", UpdatedAt: "u", Version: 1,
		Status: "idle", StopReason: "end_turn", Provider: &ProviderRef{Name: "echo", Model: "m"},
		MessageCount: 1, Title: "t", ParentSessionID: "p", Usage: &Usage{InputTokens: 3, OutputTokens: 4},
		Messages: []json.RawMessage{json.RawMessage(`{"role":"user"}`)},
	}
	if err := r.Fields.Set("systemPrompt", "be <nice>"); err != nil {
		t.Fatal(err)
	}
	r.Fields.SetRaw("title", json.RawMessage(`"stale"`)) // typed Title wins
	out := mustEncode(t, r)
	want := []string{"id", "name", "cwd", "createdAt", "updatedAt", "version", "status", "stopReason",
		"provider", "messageCount", "messageCountAt", "title", "parentSessionId", "usage", "systemPrompt", "messages", "history"}
	if got := topKeys(t, out); !slices.Equal(got, want) {
		t.Errorf("keys %v, want %v", got, want)
	}
	if bytes.Contains(out, []byte("stale")) {
		t.Errorf("Fields title written over the typed one:\n%s", out)
	}
	wantText := `{
  "id": "s1",
  "name": "n",
  "cwd": "/c",
  "createdAt": "c",
  "updatedAt": "u",
  "version": 1,
  "status": "idle",
  "stopReason": "end_turn",
  "provider": {
    "name": "echo",
    "model": "m"
  },
  "messageCount": 1,
  "messageCountAt": "u",
  "title": "t",
  "parentSessionId": "p",
  "usage": {
    "inputTokens": 3,
    "outputTokens": 4
  },
  "systemPrompt": "be <nice>",
  "messages": [
    {
      "role": "user"
    }
  ],
  "history": []
}
`
	if string(out) != wantText {
		t.Errorf("got\n%s\nwant\n%s", out, wantText)
	}
}

func TestEncodeMinimalRecordWritesRequiredKeys(t *testing.T) {
	out := mustEncode(t, &Record{ID: "s1"})
	want := "{\n  \"id\": \"s1\",\n  \"cwd\": \"\",\n  \"createdAt\": \"\",\n  \"updatedAt\": \"\",\n  \"messages\": [],\n  \"history\": []\n}\n"
	if string(out) != want {
		t.Errorf("got %q\nwant %q", out, want)
	}
}

func TestEncodeOfEncodedIsStable(t *testing.T) {
	for _, name := range []string{"robota.json", "trail.json"} {
		once := mustEncode(t, mustDecode(t, fixture(t, name)))
		twice := mustEncode(t, mustDecode(t, once))
		if !bytes.Equal(once, twice) {
			t.Errorf("%s: second encode differs:\n%s\n---\n%s", name, once, twice)
		}
	}
}

func TestTrailFixtureRoundTripsByteForByte(t *testing.T) {
	in := fixture(t, "trail.json")
	if out := mustEncode(t, mustDecode(t, in)); !bytes.Equal(in, out) {
		t.Errorf("a record in trail's own layout changed on a round trip:\n%s", out)
	}
}

func TestDecodeTypesTheHeader(t *testing.T) {
	r := mustDecode(t, fixture(t, "trail.json"))
	want := Record{
		ID: "0193a5b0-7e1f-7cc0-8a4e-3f2b1c0d9e8f", Name: "notes", Cwd: "/home/dev/project",
		CreatedAt: "2025-01-02T03:04:05.678Z", UpdatedAt: "2025-01-02T03:04:09.100Z", Version: 1,
		Status: "idle", StopReason: "end_turn", Provider: &ProviderRef{Name: "anthropic", Model: "claude-sonnet-4-5"},
		MessageCount: 2, Title: "Summarise my notes", Usage: &Usage{InputTokens: 12, OutputTokens: 5},
	}
	if !reflect.DeepEqual(header(r), header(&want)) {
		t.Errorf("header %+v, want %+v", header(r), header(&want))
	}
	var keys []string
	for _, f := range r.Fields {
		keys = append(keys, f.Key)
	}
	if !slices.Equal(keys, []string{"systemPrompt", "permissionMode", "providerCalls"}) {
		t.Errorf("Fields keys %v", keys)
	}
	if len(r.Messages) != 2 || len(r.History) != 1 {
		t.Errorf("messages %d history %d", len(r.Messages), len(r.History))
	}
}

// header is the part of a Record the fuzz target and tests compare.
func header(r *Record) Record {
	return Record{ID: r.ID, Name: r.Name, Cwd: r.Cwd, CreatedAt: r.CreatedAt, UpdatedAt: r.UpdatedAt,
		Version: r.Version, Status: r.Status, StopReason: r.StopReason, Provider: r.Provider,
		MessageCount: r.MessageCount, Title: r.Title, ParentSessionID: r.ParentSessionID, Usage: r.Usage}
}

// Header values of the right type that trail does not type (zero values,
// null, objects with more members than trail models) are kept raw, at the
// header's place.
func TestDecodeKeepsUntypedHeaderValues(t *testing.T) {
	in := `{"id":"s","version":0,"name":null,"messageCount":0,"provider":{"name":"x","apiKeyEnv":"K"},` +
		`"usage":{"inputTokens":1},"title":"","status":null,"messages":[],"history":[]}`
	r := mustDecode(t, []byte(in))
	if r.Version != 0 || r.Name != "" || r.MessageCount != 0 || r.Provider != nil || r.Usage != nil {
		t.Errorf("untyped values were typed: %+v", header(r))
	}
	out := mustEncode(t, r)
	again := mustDecode(t, out)
	for _, k := range []string{"version", "name", "messageCount", "provider", "usage", "title", "status"} {
		a, _ := r.Fields.Get(k)
		b, ok := again.Fields.Get(k)
		if !ok || compact(t, a) != compact(t, b) {
			t.Errorf("%s: %s became %s", k, a, b)
		}
	}
	wantKeys := []string{"id", "name", "cwd", "createdAt", "updatedAt", "version", "status", "provider", "messageCount", "title", "usage", "messages", "history"}
	if got := topKeys(t, out); !slices.Equal(got, wantKeys) {
		t.Errorf("keys %v, want %v (raw header values stay at the header's place)", got, wantKeys)
	}
	// A typed value set later replaces the raw one.
	again.Version = 2
	if out := mustEncode(t, again); !bytes.Contains(out, []byte(`"version": 2,`)) || bytes.Contains(out, []byte(`"version": 0`)) {
		t.Errorf("typed version did not replace the raw one:\n%s", out)
	}
}

func TestDecodeDuplicateKeysLastWins(t *testing.T) {
	in := `{"id":"a","x":1,"name":"first","id":"b","x":2,"name":null,` +
		`"messages":[{"role":"user"}],"messages":[{"role":"user"},{"role":"assistant"}]}`
	r := mustDecode(t, []byte(in))
	if r.ID != "b" {
		t.Errorf("id %q", r.ID)
	}
	if raw, _ := r.Fields.Get("x"); string(raw) != "2" {
		t.Errorf("x %s", raw)
	}
	if raw, _ := r.Fields.Get("name"); r.Name != "" || string(raw) != "null" {
		t.Errorf("name %q / %s", r.Name, raw)
	}
	if len(r.Messages) != 2 {
		t.Errorf("messages %d", len(r.Messages))
	}
	if n := strings.Count(string(mustEncode(t, r)), `"x"`); n != 1 {
		t.Errorf("x written %d times", n)
	}
	// Typed, raw, typed again and the other way round.
	r = mustDecode(t, []byte(`{"id":"a","v":1,"version":0,"version":3}`))
	if _, ok := r.Fields.Get("version"); ok || r.ID != "a" || r.Version != 3 || len(r.Fields) != 1 {
		t.Errorf("raw then typed: %+v %v", header(r), r.Fields)
	}
	r = mustDecode(t, []byte(`{"id":"a","version":3,"version":0}`))
	if raw, _ := r.Fields.Get("version"); r.Version != 0 || string(raw) != "0" {
		t.Errorf("typed then raw: %d %s", r.Version, raw)
	}
}

func TestMessageCountKeptOnceTheRecordHadIt(t *testing.T) {
	r := mustDecode(t, []byte(`{"id":"a","messageCount":3,"messages":[]}`))
	r.MessageCount = 0
	if out := mustEncode(t, r); !bytes.Contains(out, []byte(`"messageCount": 0`)) {
		t.Errorf("messageCount dropped:\n%s", out)
	}
	if out := mustEncode(t, &Record{ID: "a"}); bytes.Contains(out, []byte("messageCount")) {
		t.Errorf("messageCount written for a record that never had it")
	}
}

func TestDecodeCorrupt(t *testing.T) {
	for _, tc := range []struct {
		name   string
		in     string
		offset int64
		why    string
	}{
		{"a truncated record", `{"id":"a","messages":[{"role":`, 30, "unexpected end"},
		{"an empty file", ``, 0, "unexpected end"},
		{"a syntax error", `{"id":"a",,}`, 11, "invalid character ','"},
		{"an array", ` [1,2]`, 1, "not a JSON object"},
		{"a string", `"x"`, 0, "not a JSON object"},
		{"messages that are an object", `{"id":"a", "messages": {}}`, 23, `"messages" is not an array`},
		{"history that is null", `{"id":"a","history":null}`, 20, `"history" is not an array`},
		{"nesting a million deep", strings.Repeat("[", 1_000_000), maxNesting, "nesting too deep"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Decode([]byte(tc.in), "/x/a.json")
			var ce *CorruptError
			if !errors.As(err, &ce) {
				t.Fatalf("got %v, want *CorruptError", err)
			}
			if ce.Path != "/x/a.json" || ce.Offset != tc.offset || !strings.Contains(err.Error(), tc.why) {
				t.Errorf("got %q (offset %d), want offset %d and %q", err, ce.Offset, tc.offset, tc.why)
			}
			if !strings.HasPrefix(err.Error(), "parse record /x/a.json: ") || !strings.HasSuffix(err.Error(), " at offset "+strconv.FormatInt(tc.offset, 10)) {
				t.Errorf("message %q", err)
			}
		})
	}
	if _, err := Decode(fixture(t, "truncated.json"), "t"); !errors.As(err, new(*CorruptError)) {
		t.Errorf("truncated fixture: %v", err)
	}
}

func TestDecodeDoesNotAliasInput(t *testing.T) {
	in := []byte(`{"id":"a","x":{"k":1},"messages":[{"role":"user"},{"role":"tool"}]}`)
	r := mustDecode(t, in)
	for i := range in {
		in[i] = ' '
	}
	if raw, _ := r.Fields.Get("x"); string(raw) != `{"k":1}` || string(r.Messages[1]) != `{"role":"tool"}` {
		t.Errorf("record changed with its input: %s %s", raw, r.Messages[1])
	}
	// Appending to one message must not overwrite the next.
	_ = append(r.Messages[0], "XXXX"...)
	if string(r.Messages[1]) != `{"role":"tool"}` {
		t.Errorf("append to one message overwrote the next: %s", r.Messages[1])
	}
}

func TestEncodeRejectsInvalidRawValues(t *testing.T) {
	for _, raw := range []string{`{"a":`, `nul`, `01`, `"a` + "\n" + `"`, `{"a" 1}`, `[1,]`, `1 2`, ``} {
		r := &Record{ID: "a"}
		r.Fields.SetRaw("x", json.RawMessage(raw))
		if out, err := r.Encode(); err == nil {
			t.Errorf("SetRaw(%q) encoded to\n%s", raw, out)
		}
		r = &Record{ID: "a", Messages: []json.RawMessage{json.RawMessage(raw)}}
		if _, err := r.Encode(); err == nil {
			t.Errorf("message %q encoded", raw)
		}
	}
}

func TestFields(t *testing.T) {
	var f Fields
	if err := f.Set("a", map[string]string{"h": "<&>"}); err != nil {
		t.Fatal(err)
	}
	f.SetRaw("b", json.RawMessage(`2`))
	f.SetRaw("a", json.RawMessage(`3`))
	if got, _ := f.Get("a"); string(got) != "3" || f[0].Key != "a" {
		t.Errorf("SetRaw did not replace in place: %v", f)
	}
	if err := f.Set("c", "<&>"); err != nil {
		t.Fatal(err)
	}
	if got, _ := f.Get("c"); string(got) != `"<&>"` {
		t.Errorf("Set escaped HTML or kept a newline: %q", got)
	}
	f.Delete("a")
	f.Delete("missing")
	if _, ok := f.Get("a"); ok || len(f) != 2 || f[0].Key != "b" {
		t.Errorf("Delete: %v", f)
	}
	if err := f.Set("d", func() {}); err == nil {
		t.Errorf("Set of a func did not fail")
	}
}

func TestEncodeChecksMessagesReplacedAfterDecode(t *testing.T) {
	r := mustDecode(t, fixture(t, "robota.json"))
	r.Messages = append(r.Messages, json.RawMessage(`{"role":"assistant","content":"ok"}`))
	if _, err := r.Encode(); err != nil {
		t.Fatalf("appending a message: %v", err)
	}
	r.Messages[1] = json.RawMessage(`{"role":"assistant","content":"cut`)
	if _, err := r.Encode(); err == nil {
		t.Error("an invalid message that replaced a decoded one was written")
	}
	r = mustDecode(t, fixture(t, "robota.json"))
	r.Messages[0] = r.Messages[0][:len(r.Messages[0])-1] // same array, shorter
	if _, err := r.Encode(); err == nil {
		t.Error("a decoded message cut short was written")
	}
}
