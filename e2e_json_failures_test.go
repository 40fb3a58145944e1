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

// A step that never began because its session is busy names that session.
func TestJSONOutputOfABusySessionNamesIt(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	s := e.script(answer("first"), map[string]any{"text": "slow", "delayMs": 3000})
	e.must("", "run", "--provider", "script", "--script", s, "--session-id", "busy-one", "go")
	c := e.cmd("resume", "busy-one", "again")
	if err := c.Start(); err != nil {
		t.Fatal(err)
	}
	defer c.Wait()
	waitFor(t, func() bool { return strings.Contains(e.run("", "list").stdout, "running") })
	r := e.run("", "resume", "busy-one", "--wait", "0", "-o", "json", "more")
	var obj map[string]any
	if r.code != 5 || json.Unmarshal([]byte(r.stdout), &obj) != nil || obj["session_id"] != "busy-one" || obj["is_error"] != true {
		t.Errorf("-o json of a busy session: %s", r)
	}
}

// An option refused while the arguments are read, an empty value, or no
// session given: the command ends before any step, and a script that
// asked for JSON still reads one object (run's result shape, compact's
// own), wherever -o json stood among the options. -o json among a
// prompt's words is the prompt's, as ever.
func TestJSONOutputHasAnObjectWhenTheArgumentsAreRefused(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	for _, tt := range []struct {
		args []string
		key  string // the key that says what happened; "" for no object
		why  string
	}{
		{[]string{"run", "-o", "json", "--max-turns", "abc", "hi"}, "is_error", `invalid value "abc" for --max-turns`},
		{[]string{"run", "--max-turns", "abc", "-o", "json", "hi"}, "is_error", `invalid value "abc" for --max-turns`},
		{[]string{"run", "--output-format=stream-json", "--bogus", "hi"}, "is_error", "unknown option --bogus"},
		{[]string{"run", "-o", "json", "--session-id", "", "hi"}, "is_error", "--session-id is empty"},
		{[]string{"resume", "-o", "json"}, "is_error", "no session given"},
		{[]string{"compact", "-o", "json", "--nope"}, "compacted", "unknown option --nope"},
		// the bare forms, run's (trail -p PROMPT as claude -p is used)
		{[]string{"-p", "hi", "-o", "json", "--bogus"}, "is_error", "unknown option --bogus"},
		{[]string{"--output-format", "json", "--bogus", "hi"}, "is_error", "unknown option --bogus"},
		// a global option left without its value at the end (an unset
		// variable: --home $DIR)
		{[]string{"run", "-o", "json", "--home"}, "is_error", "--home needs a value"},
		{[]string{"list", "--home"}, "", ""},
		{[]string{"resume", "x", "--settings"}, "", ""},
		{[]string{"run", "--max-turns", "abc", "hi", "-o", "json"}, "", ""},
		{[]string{"run", "-o", "text", "--max-turns", "abc", "hi"}, "", ""},
	} {
		r := e.run("", tt.args...)
		if r.code != 2 {
			t.Errorf("trail %q: want exit 2: %s", tt.args, r)
			continue
		}
		if tt.key == "" {
			if r.stdout != "" {
				t.Errorf("trail %q: no JSON was asked for, stdout %q", tt.args, r.stdout)
			}
			continue
		}
		var obj map[string]any
		if json.Unmarshal([]byte(r.stdout), &obj) != nil || strings.Count(r.stdout, "\n") != 1 {
			t.Errorf("trail %q: want one JSON object: %s", tt.args, r)
			continue
		}
		if want := tt.key == "is_error"; obj[tt.key] != want || !strings.Contains(obj["error"].(string), tt.why) || obj["session_id"] != nil {
			t.Errorf("trail %q: %v", tt.args, obj)
		}
	}
}
