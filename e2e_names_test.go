package main_test

import (
	"os"
	"reflect"
	"regexp"
	"strings"
	"testing"
)

// A name is unique in its home: a second --name dup is refused naming the
// session that holds it; the session itself may be given its own name.
func TestNamesAreUnique(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.must("", "run", "--provider", "echo", "--name", "dup", "the first one")
	short := e.listJSON()[0]["shortId"].(string)

	r := e.run("", "run", "--provider", "echo", "--name", "dup", "another")
	if r.code != 2 || !strings.Contains(r.stderr, `trail: the name "dup" is taken by session `+short+` ("the first one")`) ||
		!strings.Contains(r.stderr, "hint: choose another name, or rename that session first: trail resume "+short+" --name NEW") {
		t.Errorf("a second --name dup: %s", r)
	}
	if n := len(e.sessionIDs()); n != 1 {
		t.Fatalf("the refused run left %d sessions", n)
	}
	e.must("", "resume", "dup", "--name", "dup", "again") // its own name
	e.must("", "run", "--provider", "echo", "--name", "other", "x")
	if r := e.run("", "resume", "other", "--name", "dup", "x"); r.code != 2 || !strings.Contains(r.stderr, `the name "dup" is taken`) {
		t.Errorf("renaming to a taken name: %s", r)
	}
	if r := e.run("", "resume", "dup", "--fork", "--name", "dup", "x"); r.code != 2 {
		t.Errorf("a fork named like its parent: %s", r)
	}
	// an unknown name is said to be a name
	if r := e.run("", "resume", "no-such-name", "x"); r.code != 3 || !strings.Contains(r.stderr, `hint: no session is named "no-such-name"`) {
		t.Errorf("an unknown name: %s", r)
	}
	// two records another program named alike: ambiguous, and the hint says why
	for _, id := range e.sessionIDs() {
		b, err := os.ReadFile(e.recordPath(id))
		if err != nil {
			t.Fatal(err)
		}
		b = regexp.MustCompile(`"name": "[a-z]+"`).ReplaceAll(b, []byte(`"name": "twin"`))
		if err := os.WriteFile(e.recordPath(id), b, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	if r := e.run("", "resume", "twin", "x"); r.code != 3 || !strings.Contains(r.stderr, `hint: several sessions are named "twin"; give the short id trail list shows`) {
		t.Errorf("a shared name: %s", r)
	}
}

// replay --write-record gives back the header: name (after a rename),
// title, times, provider, permission mode, as the lost record had them.
func TestTheHeaderSurvivesARecordRebuild(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	s := e.script(answer("one"), answer("two"), answer("three"))
	e.must("", "run", "--provider", "script", "--script", s, "--name", "before", "--permission-mode", "acceptEdits", "the first prompt")
	e.must("", "resume", "before", "--name", "after", "the second prompt")
	id := e.onlySession()
	old := e.record(id)
	if err := os.Remove(e.recordPath(id)); err != nil {
		t.Fatal(err)
	}
	e.must("", "replay", id, "--write-record")
	rebuilt := e.record(id)
	for _, k := range []string{"id", "name", "cwd", "createdAt", "updatedAt", "version", "status", "stopReason", "provider", "messageCount", "title", "usage", "providerCalls", "permissionMode"} {
		if !reflect.DeepEqual(old[k], rebuilt[k]) {
			t.Errorf("%s: was %v, rebuilt %v", k, old[k], rebuilt[k])
		}
	}
	if rebuilt["name"] != "after" {
		t.Errorf("name %v", rebuilt["name"])
	}
	if r := e.must("", "resume", "after", "go on"); r.stdout != "three\n" {
		t.Errorf("the rebuilt session resumes by its name: %s", r)
	}
}

// A name is one line of printable characters that cannot look like a
// path: a session reference with / or \ is refused before anything is
// read, so such a name could be given but never used.
func TestANameCannotLookLikeAPath(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	for _, name := range []string{"a/b", "../../etc/passwd", `a\b`, "..", "a\nb", "a\x1b[2Jb"} {
		r := e.run("", "run", "--provider", "echo", "--name", name, "hi")
		if r.code != 2 || !strings.Contains(r.stderr, "invalid session name") {
			t.Errorf("--name %q: %s", name, r)
		}
	}
	if ids := e.sessionIDs(); len(ids) != 0 {
		t.Errorf("sessions %v made with refused names", ids)
	}
	e.must("", "run", "--provider", "echo", "--name", "café ☕ a.b-c_d", "hi")
	if r := e.must("", "resume", "café ☕ a.b-c_d", "--provider", "echo", "again"); r.stdout != "echo: again\n" {
		t.Errorf("resume by a name of printable characters: %s", r)
	}
}
