package store

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// shapeRecord is a valid record with one message; each row of the tests
// below breaks one value of it.
const shapeRecord = `{"id":"a","cwd":"/w","createdAt":"2025-01-02T03:04:05.678Z","updatedAt":"2025-01-02T03:04:09.100Z",` +
	`"usage":{"inputTokens":12,"outputTokens":5},"providerCalls":1,` +
	`"messages":[{"id":"m1","role":"assistant","content":"","state":"complete","timestamp":"2025-01-02T03:04:06.000Z",` +
	`"toolCalls":[{"id":"t1","type":"function","function":{"name":"Read","arguments":"{}"}}],` +
	`"metadata":{"inputTokens":12,"outputTokens":5,"usage":{"totalTokens":17}}}],"history":[]}`

func TestRecordsOfTheWrongShapeAreCorrupt(t *testing.T) {
	if _, err := Decode([]byte(shapeRecord), "a.json"); err != nil {
		t.Fatalf("the base record: %v", err)
	}
	tests := []struct {
		name, from, to string
		why            string
	}{
		// The nine of the hardening campaign first.
		{"a message with role 7 and content {}", `"role":"assistant","content":""`, `"role":7,"content":{}`,
			"messages[0].role is a number, not a string"},
		{"usage.inputTokens that overflows", `"inputTokens":12,"outputTokens":5},`, `"inputTokens":1e400,"outputTokens":5},`,
			"usage.inputTokens is 1e400, not a count"},
		{"usage.outputTokens that is negative", `"outputTokens":5},"providerCalls"`, `"outputTokens":-5},"providerCalls"`,
			"usage.outputTokens is -5, not a count"},
		{"metadata token counts that overflow", `"metadata":{"inputTokens":12`, `"metadata":{"inputTokens":-1e400`,
			"messages[0].metadata.inputTokens is -1e400, out of the range of a number"},
		{"metadata.usage.totalTokens that overflows", `"totalTokens":17`, `"totalTokens":1E999`,
			"messages[0].metadata.usage.totalTokens is 1E999, out of the range"},
		{"content that is an object", `"content":""`, `"content":{"text":"x"}`,
			"messages[0].content is an object, not a string, an array or null"},
		{"toolCalls that is a string", `"toolCalls":[{"id":"t1","type":"function","function":{"name":"Read","arguments":"{}"}}]`, `"toolCalls":"Read"`,
			"messages[0].toolCalls is a string, not an array or null"},
		{"a tool call whose arguments are an object", `"arguments":"{}"`, `"arguments":{}`,
			"messages[0].toolCalls[0].function.arguments is an object, not a string"},
		{"a message id that is a number", `"id":"m1"`, `"id":1`, "messages[0].id is a number, not a string"},
		// The rest of the rule.
		{"an unknown role", `"role":"assistant"`, `"role":"robot"`, `messages[0].role "robot" is not system, user, assistant or tool`},
		{"a role spelled with escapes", `"role":"assistant"`, `"r\u006fle":7`, "messages[0].role is a number"},
		{"a message without a role", `"role":"assistant",`, ``, "messages[0] has no role"},
		{"a message that is a string", `"messages":[{`, `"messages":["hi",{`, "messages[0] is a string, not an object"},
		{"a content part that is not an object", `"content":""`, `"content":["text"]`, "messages[0].content[0] is a string, not an object"},
		{"a state that is a boolean", `"state":"complete"`, `"state":true`, "messages[0].state is a boolean, not a string"},
		{"a timestamp that is a number", `"timestamp":"2025-01-02T03:04:06.000Z"`, `"timestamp":1735787046000`, "messages[0].timestamp is a number"},
		{"a tool call without an id", `{"id":"t1",`, `{`, "messages[0].toolCalls[0] has no id"},
		{"a tool call without a function", `"function":{"name":"Read","arguments":"{}"}`, `"fn":{}`, "messages[0].toolCalls[0] has no function"},
		{"a tool call whose name is a number", `"name":"Read"`, `"name":5`, "messages[0].toolCalls[0].function.name is a number"},
		{"metadata that is a string", `"metadata":{"inputTokens":12,"outputTokens":5,"usage":{"totalTokens":17}}`, `"metadata":"x"`, "messages[0].metadata is a string, not an object or null"},
		{"a history entry that is not an object", `"history":[]`, `"history":[1]`, "history[0] is a number, not an object"},
		{"a cwd that is a number", `"cwd":"/w"`, `"cwd":5`, "cwd is a number, not a string"},
		{"an updatedAt that is null", `"updatedAt":"2025-01-02T03:04:09.100Z"`, `"updatedAt":null`, "updatedAt is null, not a string"},
		{"an id that is a number", `{"id":"a",`, `{"id":7,`, "id is a number, not a string"},
		{"a status that is a number", `"cwd":"/w",`, `"cwd":"/w","status":5,`, "status is a number, not a string or null"},
		{"a version that is a string", `"cwd":"/w",`, `"cwd":"/w","version":"1",`, "version is a string, not a number or null"},
		{"a messageCount with a fraction", `"cwd":"/w",`, `"cwd":"/w","messageCount":2.5,`, "messageCount is 2.5, not a count"},
		{"providerCalls that overflow", `"providerCalls":1`, `"providerCalls":1e400`, "providerCalls is 1e400, not a count"},
		{"a provider model that is a number", `"cwd":"/w",`, `"cwd":"/w","provider":{"name":"echo","model":5},`, "provider.model is a number, not a string"},
		{"usage that is an array", `"usage":{"inputTokens":12,"outputTokens":5}`, `"usage":[12,5]`, "usage is an array, not an object or null"},
		{"sessionAllowedTools that is a string", `"cwd":"/w",`, `"cwd":"/w","sessionAllowedTools":"Bash",`, "sessionAllowedTools is a string, not an array or null"},
		{"pendingToolCalls holding a string", `"cwd":"/w",`, `"cwd":"/w","pendingToolCalls":["t1"],`, "pendingToolCalls[0] is a string, not an object"},
		{"a systemPrompt that is an array", `"cwd":"/w",`, `"cwd":"/w","systemPrompt":["a"],`, "systemPrompt is an array, not a string or null"},
		{"a long role value is cut in the error", `"role":"assistant"`, `"role":"` + strings.Repeat("r", 5000) + `"`, `"… (5000 bytes) is not system`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if !strings.Contains(shapeRecord, tt.from) {
				t.Fatalf("the base record has no %s", tt.from)
			}
			bad := strings.Replace(shapeRecord, tt.from, tt.to, 1)
			_, err := Decode([]byte(bad), "/x/a.json")
			var ce *CorruptError
			if !errors.As(err, &ce) || !strings.Contains(err.Error(), tt.why) {
				t.Fatalf("Decode: %v\nwant a *CorruptError saying %q", err, tt.why)
			}
			if ce.Offset <= 0 || ce.Offset >= int64(len(bad)) {
				t.Errorf("offset %d is not inside the record", ce.Offset)
			}
			if len(err.Error()) > 400 {
				t.Errorf("the error is %d bytes", len(err.Error()))
			}
			// list reads the same rule: the record is listed corrupt.
			s := newStore(t)
			writeRecord(t, s, "a", []byte(bad))
			h, err := s.ReadHead("a")
			if err != nil || !h.Corrupt || !strings.Contains(h.Err.Error(), tt.why) {
				t.Errorf("ReadHead = corrupt %v, %v, %v", h.Corrupt, h.Err, err)
			}
			if _, err := s.Load("a"); !errors.As(err, &ce) {
				t.Errorf("Load: %v", err)
			}
		})
	}
}

// list reads only the first KiB of a big record in trail's layout: a header
// value of the wrong type there must still make it corrupt.
func TestABigRecordWithAWrongHeaderTypeIsListedCorrupt(t *testing.T) {
	data := string(benchRecord(t, 200_000))
	for _, tt := range []struct{ from, to, why string }{
		{`"inputTokens": 1200`, `"inputTokens": 1e400`, "usage.inputTokens is 1e400"},
		{`"status": "idle"`, `"status": 7`, "status is a number"},
		{`"cwd": "/home/dev/project"`, `"cwd": {}`, "cwd is an object"},
	} {
		if !strings.Contains(data, tt.from) {
			t.Fatalf("no %s in the bench record", tt.from)
		}
		s := newStore(t)
		writeRecord(t, s, benchID(0), []byte(strings.Replace(data, tt.from, tt.to, 1)))
		h, err := s.ReadHead(benchID(0))
		if err != nil || !h.Corrupt || !strings.Contains(h.Err.Error(), tt.why) {
			t.Errorf("%s: ReadHead = corrupt %v, %v, %v", tt.to, h.Corrupt, h.Err, err)
		}
	}
}

// Every record Robota or trail writes passes the rule, and what trail does
// not read keeps any value.
func TestRecordsOfTheRightShapeAreNotCorrupt(t *testing.T) {
	robota, _ := filepath.Glob(filepath.Join("..", "testdata", "robota", "*.json"))
	if len(robota) == 0 {
		t.Fatal("no Robota records in testdata/robota")
	}
	files := map[string][]byte{
		"testdata/records/robota.json": fixture(t, "robota.json"),
		"testdata/records/trail.json":  fixture(t, "trail.json"),
	}
	for _, p := range robota {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		files[p] = b
	}
	for _, tt := range []struct{ name, from, to string }{
		{"null where JavaScript leaves an optional field unset", `"cwd":"/w",`, `"cwd":"/w","name":null,"title":null,"status":null,"stopReason":null,"provider":null,"usage":null,"version":null,"pendingToolCalls":null,"sessionAllowedTools":null,`},
		{"content null beside tool calls", `"content":""`, `"content":null`},
		{"content parts", `"content":""`, `"content":[{"type":"text","text":"hi"},{"type":"image","source":{}}]`},
		{"toolCalls null", `"toolCalls":[{"id":"t1","type":"function","function":{"name":"Read","arguments":"{}"}}]`, `"toolCalls":null`},
		{"metadata with other members of any type", `"metadata":{`, `"metadata":{"round":"1","custom":[1e400],`},
		{"unknown members with any value, 1e400 included", `"cwd":"/w",`, `"cwd":"/w","memoryEvents":[{"big":1e400,"n":12345678901234567890}],"bigNumber":1e400,`},
		{"unknown members of a message", `"id":"m1",`, `"id":"m1","parts":[7],"extra":{"n":1e400},`},
		{"a provider with members trail does not model", `"cwd":"/w",`, `"cwd":"/w","provider":{"name":"x","apiKeyEnv":"K","retries":3},`},
		{"the largest count", `"providerCalls":1`, `"providerCalls":9223372036854775807`},
	} {
		if !strings.Contains(shapeRecord, tt.from) {
			t.Fatalf("%s: the base record has no %s", tt.name, tt.from)
		}
		files[tt.name] = []byte(strings.Replace(shapeRecord, tt.from, tt.to, 1))
	}
	for name, data := range files {
		if _, err := Decode(data, name); err != nil {
			t.Errorf("%s: %v", name, err)
		}
	}
}

func TestIsCount(t *testing.T) {
	for raw, want := range map[string]bool{
		"0": true, "7": true, "9223372036854775807": true, "9223372036854775808": false,
		"-1": false, "1.0": false, "1e3": false, "12345678901234567890": false, "": false,
	} {
		if got := isCount([]byte(raw)); got != want {
			t.Errorf("isCount(%q) = %v", raw, got)
		}
	}
}

func TestCheckMessage(t *testing.T) {
	for _, tt := range []struct{ in, want string }{
		{`{"role":"user","content":"hi"}`, ""},
		{`{"role":7,"content":{}}`, "messages[2].role is a number, not a string"},
		{`{"role":"user"`, "messages[2] is not valid JSON"},
		{`[]`, "messages[2] is an array, not an object"},
	} {
		err := CheckMessage([]byte(tt.in), 2)
		if got := ""; err != nil {
			got = err.Error()
			if got != tt.want {
				t.Errorf("CheckMessage(%s) = %q, want %q", tt.in, got, tt.want)
			}
		} else if tt.want != "" {
			t.Errorf("CheckMessage(%s) passed, want %q", tt.in, tt.want)
		}
	}
}
