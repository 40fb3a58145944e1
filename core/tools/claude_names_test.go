package tools

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
)

func TestNormalizeTurnsClaudeNamesIntoRobotas(t *testing.T) {
	tests := []struct {
		name, tool, in, want string
	}{
		{"Edit's four names", "Edit", `{"file_path":"a.go","old_string":"x","new_string":"y","replace_all":true}`,
			`{"filePath":"a.go","oldString":"x","newString":"y","replaceAll":true}`},
		{"Robota's spelling wins when both are there", "Read", `{"file_path":".env","filePath":"a.go"}`, `{"filePath":"a.go"}`},
		{"Robota's names pass untouched", "Write", `{"filePath":"a","content":"b"}`, `{"filePath":"a","content":"b"}`},
		{"Grep's options", "Grep", `{"pattern":"x","output_mode":"content","-C":2,"head_limit":5,"-i":true}`,
			`{"pattern":"x","outputMode":"content","contextLines":2,"headLimit":5,"-i":true}`},
		{"a tool without aliases", "Bash", `{"command":"ls","description":"list"}`, `{"command":"ls","description":"list"}`},
		{"not an object", "Read", `"file_path"`, `"file_path"`},
		{"the last of repeated keys", "Read", `{"file_path":"a","file_path":".env"}`, `{"filePath":".env"}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := string(Normalize(tt.tool, json.RawMessage(tt.in))); got != tt.want {
				t.Errorf("Normalize(%s, %s) = %s, want %s", tt.tool, tt.in, got, tt.want)
			}
		})
	}
}

func TestClaudeInputUsesClaudeNamesAndAbsolutePaths(t *testing.T) {
	tests := []struct {
		tool, in, want string
	}{
		{"Read", `{"filePath":"src/a.go","offset":2}`, `{"file_path":"/proj/src/a.go","offset":2}`},
		{"Write", `{"filePath":"/abs/b","content":"x"}`, `{"file_path":"/abs/b","content":"x"}`},
		{"Edit", `{"filePath":"a","oldString":"x","newString":"y"}`, `{"file_path":"/proj/a","old_string":"x","new_string":"y"}`},
		{"Grep", `{"pattern":"p","outputMode":"count","contextLines":1}`, `{"pattern":"p","output_mode":"count","-C":1}`},
		{"Bash", `{"command":"npm test"}`, `{"command":"npm test"}`},
	}
	for _, tt := range tests {
		if got := string(ClaudeInput(tt.tool, json.RawMessage(tt.in), "/proj")); got != tt.want {
			t.Errorf("ClaudeInput(%s, %s) = %s, want %s", tt.tool, tt.in, got, tt.want)
		}
	}
}

func TestToolsAcceptClaudeSpellings(t *testing.T) {
	env := world(t, map[string]string{"a.txt": "one\ntwo\nthree\n", "b.txt": "Alpha\nbeta\n"})
	if r := call(t, Read{}, env, `{"file_path":"a.txt","limit":1}`); !r.Success || !strings.Contains(r.Output, "one") || strings.Contains(r.Output, "two") {
		t.Errorf("Read with file_path = %+v", r)
	}
	if r := call(t, Edit{}, env, `{"file_path":"a.txt","old_string":"two","new_string":"2","replace_all":false}`); !r.Success {
		t.Errorf("Edit with Claude names = %+v", r)
	}
	if r := call(t, Write{}, env, `{"file_path":"c.txt","content":"new"}`); !r.Success {
		t.Errorf("Write with file_path = %+v", r)
	}
	if r := call(t, Grep{}, env, `{"pattern":"alpha","-i":true,"output_mode":"content"}`); !strings.Contains(r.Output, "b.txt:1:Alpha") {
		t.Errorf("Grep -i = %q", r.Output)
	}
	if r := call(t, Grep{}, env, `{"pattern":"one\\n2","multiline":true,"output_mode":"content"}`); !strings.Contains(r.Output, "a.txt:1:one") || !strings.Contains(r.Output, "a.txt:2:2") {
		t.Errorf("Grep multiline = %q", r.Output)
	}
	if r := call(t, Grep{}, env, `{"pattern":"three","-B":1,"output_mode":"content"}`); r.Output != "a.txt:2-2\na.txt:3:three" {
		t.Errorf("Grep -B 1 = %q", r.Output)
	}
}

// The tool_response hooks read: Claude Code's shapes, with absolute paths.
func TestResponsesHaveClaudesShape(t *testing.T) {
	env := world(t, map[string]string{"a.txt": "one\ntwo\n"})
	shape := func(r Result) map[string]any {
		t.Helper()
		b, err := json.Marshal(r.Response)
		if err != nil {
			t.Fatal(err)
		}
		var m map[string]any
		if err := json.Unmarshal(b, &m); err != nil {
			t.Fatalf("response %s: %v", b, err)
		}
		return m
	}
	w := shape(call(t, Write{}, env, `{"filePath":"new.txt","content":"hi"}`))
	if w["type"] != "create" || w["filePath"] != env.Cwd+"/new.txt" || w["originalFile"] != nil || w["success"] != true || fmt.Sprint(w["structuredPatch"]) != "[]" {
		t.Errorf("Write response = %v", w)
	}
	if u := shape(call(t, Write{}, env, `{"filePath":"a.txt","content":"x"}`)); u["type"] != "update" || u["originalFile"] != "one\ntwo\n" ||
		fmt.Sprint(u["structuredPatch"]) != "[map[lines:[-one -two +x \\ No newline at end of file] newLines:1 newStart:1 oldLines:2 oldStart:1]]" {
		t.Errorf("Write over a file = %v", u)
	}
	b := shape(call(t, Bash{}, env, `{"command":"echo hi"}`))
	if b["stdout"] != "hi\n" || b["stderr"] != "" || b["interrupted"] != false || b["isImage"] != false {
		t.Errorf("Bash response = %v", b)
	}
	e := shape(call(t, Edit{}, env, `{"filePath":"a.txt","oldString":"x","newString":"y"}`))
	if e["filePath"] != env.Cwd+"/a.txt" || e["oldString"] != "x" || e["originalFile"] != "x" || e["replaceAll"] != false ||
		fmt.Sprint(e["structuredPatch"]) != "[map[lines:[-x \\ No newline at end of file +y \\ No newline at end of file] newLines:1 newStart:1 oldLines:1 oldStart:1]]" {
		t.Errorf("Edit response = %v", e)
	}
	rd := shape(call(t, Read{}, env, `{"filePath":"a.txt"}`))
	if f, _ := rd["file"].(map[string]any); rd["type"] != "text" || f["content"] != "y" || f["totalLines"] != float64(1) {
		t.Errorf("Read response = %v", rd)
	}
	if g := shape(call(t, Glob{}, env, `{"pattern":"*.txt"}`)); g["numFiles"] != float64(2) || g["truncated"] != false {
		t.Errorf("Glob response = %v", g)
	}
	if r := call(t, Bash{}, env, `{"command":"exit 3"}`); r.Response == nil {
		t.Error("a command that exits non-zero still ran: it has a response")
	}
	if r := call(t, Read{}, env, `{"filePath":"missing"}`); r.Response != nil {
		t.Errorf("a failed call has a response: %v", r.Response)
	}
}

func TestBashSourcesTheEnvFileBeforeTheCommand(t *testing.T) {
	env := world(t, map[string]string{"env.sh": "export GREETING=hello\n"})
	env.EnvFile = env.Cwd + "/env.sh"
	if r := call(t, Bash{}, env, `{"command":"echo $GREETING"}`); r.Output != "hello\n" {
		t.Errorf("output = %q", r.Output)
	}
}
