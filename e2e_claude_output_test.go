package main_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"
)

// keySpec is one object's entry of testdata/golden/claude-output-keys.json.
type keySpec struct {
	Documented           []string          `json:"documented"`
	Conditional          map[string]string `json:"conditional"`
	DocumentedNotWritten map[string]string `json:"documented_not_written"`
	Trail                []string          `json:"trail"`
}

func claudeKeys(t *testing.T) map[string]keySpec {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "golden", "claude-output-keys.json"))
	if err != nil {
		t.Fatal(err)
	}
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(b, &raw); err != nil {
		t.Fatal(err)
	}
	out := map[string]keySpec{}
	for name, v := range raw {
		if name == "source" {
			continue
		}
		var k keySpec
		if err := json.Unmarshal(v, &k); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		out[name] = k
	}
	return out
}

// checkKeys compares an object's keys with its golden entry: every
// documented key there, nothing that is neither documented, conditional
// nor trail's own, no documented key the golden says trail leaves out,
// and the conditional keys exactly when the case calls for them.
func checkKeys(t *testing.T, what string, spec keySpec, obj map[string]any, conditional ...string) {
	t.Helper()
	allowed := map[string]bool{}
	for _, k := range append(slices.Clone(spec.Documented), spec.Trail...) {
		allowed[k] = true
	}
	for _, k := range spec.Documented {
		if _, ok := obj[k]; !ok {
			t.Errorf("%s lacks Claude Code's key %q", what, k)
		}
	}
	for k := range spec.Conditional {
		_, ok := obj[k]
		if want := slices.Contains(conditional, k); ok != want {
			t.Errorf("%s: key %q present %v, want %v", what, k, ok, want)
		}
		allowed[k] = true
	}
	var extra []string
	for k := range obj {
		if _, left := spec.DocumentedNotWritten[k]; left {
			t.Errorf("%s writes %q, which the golden says trail leaves out: update the golden", what, k)
		}
		if !allowed[k] {
			extra = append(extra, k)
		}
	}
	sort.Strings(extra)
	if len(extra) > 0 {
		t.Errorf("%s has keys the golden does not list: %v", what, extra)
	}
}

// The golden comparison of -o json and -o stream-json against Claude
// Code's documented output (SDKResultMessage and the stream's message types).
func TestClaudeOutputKeySetsMatchTheDocumentedOnes(t *testing.T) {
	t.Parallel()
	golden := claudeKeys(t)
	e := newEnv(t)
	e.writeFile("a.txt", "hello\n")
	s := e.script(calls(
		call("Read", map[string]any{"filePath": "a.txt"}),
		call("Write", map[string]any{"filePath": "w.txt", "content": "x"}),
	), answer("done"))

	res := jsonResult(t, e.must("", "run", "--provider", "script", "--script", s, "-o", "json", "go"))
	checkKeys(t, "-o json result", golden["result"], res)
	checkKeys(t, "result usage", golden["usage"], res["usage"].(map[string]any))
	denials := res["permission_denials"].([]any)
	if len(denials) != 1 {
		t.Fatalf("permission_denials = %v", denials)
	}
	checkKeys(t, "permission_denials[0]", golden["permission_denial"], denials[0].(map[string]any))

	// A failed step: Claude Code's error results carry errors.
	s2 := e.script(calls(call("Read", map[string]any{"filePath": "a.txt"})), answer("never"))
	r := e.run("", "run", "--provider", "script", "--script", s2, "--max-turns", "1", "-o", "json", "go")
	failed := jsonResult(t, r)
	checkKeys(t, "-o json error result", golden["result"], failed, "errors")
	if errs := failed["errors"].([]any); failed["subtype"] != "error_max_turns" || errs[0] != "Reached maximum number of turns (1)" || failed["terminal_reason"] != "max_turns" {
		t.Errorf("max-turns result = %v", failed)
	}

	// stream-json: the init line first, the result last, Claude's lines between.
	s3 := e.script(calls(call("Read", map[string]any{"filePath": "a.txt"})), answer("It says hello."))
	out := e.must("", "run", "--provider", "script", "--script", s3, "-o", "stream-json", "go").stdout
	var lines []map[string]any
	for _, l := range strings.Split(strings.TrimSuffix(out, "\n"), "\n") {
		var m map[string]any
		if err := json.Unmarshal([]byte(l), &m); err != nil {
			t.Fatalf("line %q: %v", l, err)
		}
		lines = append(lines, m)
	}
	init, last := lines[0], lines[len(lines)-1]
	if init["type"] != "system" || init["subtype"] != "init" || last["type"] != "result" {
		t.Fatalf("first line %v, last line %v", init, last)
	}
	checkKeys(t, "system init", golden["system_init"], init)
	checkKeys(t, "stream result", golden["result"], last)
	if init["session_id"] != last["session_id"] || init["cwd"] != e.cwd || init["permissionMode"] != "default" {
		t.Errorf("init = %v", init)
	}
	var assistantTypes []string
	users := 0
	for _, l := range lines[1 : len(lines)-1] {
		switch l["type"] {
		case "assistant":
			checkKeys(t, "assistant line", golden["assistant"], l)
			msg := l["message"].(map[string]any)
			checkKeys(t, "assistant message", golden["assistant_message"], msg)
			block := msg["content"].([]any)[0].(map[string]any)
			assistantTypes = append(assistantTypes, block["type"].(string))
			if block["type"] == "tool_use" && block["input"].(map[string]any)["file_path"] != filepath.Join(e.cwd, "a.txt") {
				t.Errorf("tool_use input = %v: Claude's names, file_path absolute", block["input"])
			}
		case "user":
			users++
			checkKeys(t, "user line", golden["user"], l, "tool_use_result")
			result := l["message"].(map[string]any)["content"].([]any)[0].(map[string]any)
			if result["type"] != "tool_result" || result["tool_use_id"] != "call_0_0" || result["is_error"] != false {
				t.Errorf("tool_result block = %v", result)
			}
		}
	}
	// select(.type=="assistant"): one line per block of each turn.
	if strings.Join(assistantTypes, " ") != "tool_use text" || users != 1 {
		t.Errorf("assistant blocks %v, user lines %d", assistantTypes, users)
	}
}
