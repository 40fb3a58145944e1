package main_test

import (
	"encoding/json"
	"strings"
	"testing"
)

// With -o json a script reads one object whatever happened: a step that
// never began (no such session, a session busy with another step) printed
// nothing on stdout, so `| jq -r .result` read nothing at all. The object
// says why, beside the stderr line and the exit code.
func TestJSONOutputHasAnObjectWhenTheStepNeverBegan(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	for _, tt := range []struct {
		args []string
		code int
		key  string // the key that says what happened
	}{
		{[]string{"resume", "nosuch", "-o", "json", "hi"}, 3, "is_error"},
		{[]string{"resume", "nosuch", "-o", "stream-json", "hi"}, 3, "is_error"},
		{[]string{"resume", "--last", "-o", "json", "hi"}, 3, "is_error"},
		{[]string{"compact", "nosuch", "-o", "json"}, 3, "compacted"},
	} {
		r := e.run("", tt.args...)
		var obj map[string]any
		if r.code != tt.code || json.Unmarshal([]byte(r.stdout), &obj) != nil || strings.Count(r.stdout, "\n") != 1 {
			t.Errorf("trail %q: want exit %d and one JSON object: %s", tt.args, tt.code, r)
			continue
		}
		want := tt.key == "is_error"
		if obj[tt.key] != want || !(strings.Contains(obj["error"].(string), "not found") || strings.Contains(obj["error"].(string), "no session found")) || obj["session_id"] != nil {
			t.Errorf("trail %q: %v", tt.args, obj)
		}
	}
}
