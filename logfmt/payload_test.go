package logfmt

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tidwall/gjson"
)

func sha(b []byte) string {
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}

func refJSON(sessionID string, content []byte) string {
	h := sha(content)
	return `{"kind":"external-payload","encoding":"json","sha256":"` + h + `","byteLength":` + itoa(len(content)) +
		`,"relativePath":"` + sessionID + `.payloads/` + h + `.json"}`
}

// payloadFiles returns the payload folder's files by name.
func payloadFiles(t *testing.T, logPath, sessionID string) map[string][]byte {
	t.Helper()
	dir := filepath.Join(filepath.Dir(logPath), sessionID+".payloads")
	entries, err := os.ReadDir(dir)
	if err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	files := map[string][]byte{}
	for _, e := range entries {
		b, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		files[e.Name()] = b
	}
	return files
}

func TestBigStringIsExternalized(t *testing.T) {
	path := filepath.Join(t.TempDir(), "s1.jsonl")
	w := openTest(t, path, Options{})
	big := strings.Repeat("a<&>", 10000) // 40,000 bytes, HTML characters kept
	logOK(t, w, "tool_execution_result", F("toolCallId", "t1"), F("result", big))

	content := []byte(`"` + big + `"`)
	files := payloadFiles(t, path, "s1")
	if len(files) != 1 || string(files[sha(content)+".json"]) != string(content) {
		t.Fatalf("payload files: %d, want one named %s.json holding the JSON string", len(files), sha(content))
	}
	line := readLines(t, path)[0]
	if got := gjson.Get(line, "result").Raw; got != refJSON("s1", content) {
		t.Fatalf("reference:\n got %s\nwant %s", got, refJSON("s1", content))
	}
	if gjson.Get(line, "toolCallId").String() != "t1" {
		t.Fatalf("line lost its other fields: %s", line)
	}
	dir := filepath.Join(filepath.Dir(path), "s1.payloads")
	if info, err := os.Stat(dir); err != nil || info.Mode().Perm() != 0o700 {
		t.Errorf("payload folder mode: %v %v", info.Mode().Perm(), err)
	}
	if info, err := os.Stat(filepath.Join(dir, sha(content)+".json")); err != nil || info.Mode().Perm() != 0o600 {
		t.Errorf("payload file mode: %v %v", info.Mode().Perm(), err)
	}
}

func TestBigChildIsExternalizedParentStaysInline(t *testing.T) {
	path := filepath.Join(t.TempDir(), "s1.jsonl")
	w := openTest(t, path, Options{})
	child := strings.Repeat("x", 40000)
	logOK(t, w, "tool_execution_result", F("result", Object{F("name", "read"), F("output", child), F("ok", true)}))

	childJSON := []byte(`"` + child + `"`)
	files := payloadFiles(t, path, "s1")
	if len(files) != 1 || string(files[sha(childJSON)+".json"]) != string(childJSON) {
		t.Fatalf("want one payload holding the child; got %d files", len(files))
	}
	got := gjson.Get(readLines(t, path)[0], "result").Raw
	want := `{"name":"read","output":` + refJSON("s1", childJSON) + `,"ok":true}`
	if got != want {
		t.Fatalf("parent:\n got %s\nwant %s", got, want)
	}
}

// An object big only through many small keys is stored whole, keys in the
// order given.
func TestPayloadKeepsKeyOrder(t *testing.T) {
	path := filepath.Join(t.TempDir(), "s1.jsonl")
	w := openTest(t, path, Options{})
	var obj Object
	for i := 3000; i > 0; i-- {
		obj = append(obj, F("k"+itoa(i), "<v&>"))
	}
	logOK(t, w, "x", F("v", obj))
	objJSON, _ := Marshal(obj)
	if !strings.HasPrefix(string(objJSON), `{"k3000":"<v&>","k2999":"<v&>"`) {
		t.Fatalf("encoded out of order: %.40s", objJSON)
	}
	if files := payloadFiles(t, path, "s1"); len(files) != 1 || string(files[sha(objJSON)+".json"]) != string(objJSON) {
		t.Fatalf("payload is not the object in key order")
	}
	if got := gjson.Get(readLines(t, path)[0], "v").Raw; got != refJSON("s1", objJSON) {
		t.Fatalf("v = %s", got)
	}
}

// Children go first: a string child over the threshold inside an object
// child over the threshold leaves two files, the outer one referring to the
// inner; a parent big only through many small children goes as a whole.
func TestExternalizationIsBottomUp(t *testing.T) {
	path := filepath.Join(t.TempDir(), "s1.jsonl")
	w := openTest(t, path, Options{PayloadThreshold: 100})
	inner := strings.Repeat("i", 150)
	many := make([]any, 60)
	for i := range many {
		many[i] = i
	}
	logOK(t, w, "x", F("v", Object{F("pad", strings.Repeat("p", 90)), F("inner", inner)}), F("many", many))

	innerJSON := []byte(`"` + inner + `"`)
	outerJSON := []byte(`{"pad":"` + strings.Repeat("p", 90) + `","inner":` + refJSON("s1", innerJSON) + `}`)
	manyJSON, _ := Marshal(many)
	files := payloadFiles(t, path, "s1")
	for _, c := range [][]byte{innerJSON, outerJSON, manyJSON} {
		if string(files[sha(c)+".json"]) != string(c) {
			t.Errorf("missing payload %.60s", c)
		}
	}
	if len(files) != 3 {
		t.Errorf("%d payload files, want 3", len(files))
	}
	line := readLines(t, path)[0]
	if got := gjson.Get(line, "v").Raw; got != refJSON("s1", outerJSON) {
		t.Errorf("v = %s", got)
	}
	if got := gjson.Get(line, "many").Raw; got != refJSON("s1", manyJSON) {
		t.Errorf("many = %s", got)
	}
}

func TestRawMessageChildrenAreExternalized(t *testing.T) {
	path := filepath.Join(t.TempDir(), "s1.jsonl")
	w := openTest(t, path, Options{})
	big := strings.Repeat("y", 40000)
	raw := json.RawMessage(`{"role": "tool", "content": [{"type": "text", "text": "` + big + `"}]}`)
	logOK(t, w, "history_mutation", F("message", raw))

	textJSON := []byte(`"` + big + `"`)
	want := `{"role":"tool","content":[{"type":"text","text":` + refJSON("s1", textJSON) + `}]}`
	if got := gjson.Get(readLines(t, path)[0], "message").Raw; got != want {
		t.Fatalf("message:\n got %s\nwant %s", got, want)
	}
	if files := payloadFiles(t, path, "s1"); len(files) != 1 || string(files[sha(textJSON)+".json"]) != string(textJSON) {
		t.Fatalf("payloads: %d files", len(files))
	}
}

func TestIdenticalPayloadsShareOneFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "s1.jsonl")
	big := strings.Repeat("z", 40000)
	w := openTest(t, path, Options{})
	logOK(t, w, "a", F("v", big), F("w", []any{big}))
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	w = openTest(t, path, Options{})
	logOK(t, w, "b", F("v", json.RawMessage(`"`+big+`"`)))

	files := payloadFiles(t, path, "s1")
	if len(files) != 1 {
		t.Fatalf("%d payload files, want 1", len(files))
	}
	ref := refJSON("s1", []byte(`"`+big+`"`))
	lines := readLines(t, path)
	if gjson.Get(lines[0], "v").Raw != ref || gjson.Get(lines[0], "w.0").Raw != ref || gjson.Get(lines[1], "v").Raw != ref {
		t.Fatalf("references differ: %s", lines)
	}
}

func TestExistingPayloadIsLeftAlone(t *testing.T) {
	path := filepath.Join(t.TempDir(), "s1.jsonl")
	content := []byte(`"` + strings.Repeat("q", 40000) + `"`)
	dir := filepath.Join(filepath.Dir(path), "s1.payloads")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	name := filepath.Join(dir, sha(content)+".json")
	if err := os.WriteFile(name, []byte("already here"), 0o600); err != nil {
		t.Fatal(err)
	}
	w := openTest(t, path, Options{})
	logOK(t, w, "a", F("v", strings.Repeat("q", 40000)))
	if b, _ := os.ReadFile(name); string(b) != "already here" {
		t.Fatalf("existing payload was rewritten")
	}
}

func TestRedactionHappensBeforeExternalization(t *testing.T) {
	path := filepath.Join(t.TempDir(), "s1.jsonl")
	w := openTest(t, path, Options{Secrets: []string{apiKey}})
	logOK(t, w, "a", F("v", strings.Repeat("w", 40000)+apiKey), F("o", Object{F("apiKey", strings.Repeat("k", 40000))}))
	for name, b := range payloadFiles(t, path, "s1") {
		if strings.Contains(string(b), apiKey) {
			t.Fatalf("payload %s holds the secret", name)
		}
		if strings.HasPrefix(name, ".tmp") {
			t.Fatalf("temporary file left behind: %s", name)
		}
	}
	line := readLines(t, path)[0]
	if got := gjson.Get(line, "o").Raw; got != `{"apiKey":"[REDACTED]"}` {
		t.Fatalf("a redacted value was stored: %s", got)
	}
}

func TestEnvelopeIsNeverExternalized(t *testing.T) {
	path := filepath.Join(t.TempDir(), "s1.jsonl")
	w := openTest(t, path, Options{PayloadThreshold: 8})
	event := strings.Repeat("e", 20)
	logOK(t, w, event, F("n", 1))
	line := readLines(t, path)[0]
	if gjson.Get(line, "event").String() != event || gjson.Get(line, "sessionId").String() != "s1" || gjson.Get(line, "timestamp").Type != gjson.String {
		t.Fatalf("envelope changed: %s", line)
	}
	if len(payloadFiles(t, path, "s1")) != 0 {
		t.Fatal("envelope values were externalized")
	}
}
