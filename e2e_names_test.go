package main_test

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"sync"
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
	// a script retrying run --name after a provider failure is told the
	// way on: its first try holds the name and still owes the answer
	failed := anthropicEnv(t)
	failed.setenv("ANTHROPIC_BASE_URL=http://127.0.0.1:9")
	for try := range 2 {
		r := failed.run("", "run", "--max-retries", "0", "--name", "nightly", "do the report")
		if try == 1 && (r.code != 2 || !strings.Contains(r.stderr, "hint: its last step failed before the answer; to ask again: trail resume ")) {
			t.Errorf("run --name again after a provider failure: %s", r)
		}
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

// Steps started together that take one name: one gets it, the others are
// refused. The check and the write that makes a name known were two steps
// with no lock between, and parallel jobs each named a session alike; a
// rename was known only when its step ended.
func TestNamesStayUniqueUnderParallelSteps(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	slow := e.script(map[string]any{"text": "done", "delayMs": 400}, map[string]any{"text": "done", "delayMs": 400})
	runAll := func(argss ...[]string) (won int) {
		results := make([]result, len(argss))
		var wg sync.WaitGroup
		for i, args := range argss {
			wg.Go(func() { results[i] = e.run("", args...) })
		}
		wg.Wait()
		for _, r := range results {
			switch r.code {
			case 0:
				won++
			case 2:
				if !strings.Contains(r.stderr, "is taken by session") {
					t.Errorf("a refused step does not say the name is taken: %s", r)
				}
			default:
				t.Errorf("exit %d: %s", r.code, r)
			}
		}
		return won
	}
	for round := range 3 {
		name := fmt.Sprintf("job-%d", round)
		var argss [][]string
		for i := range 6 {
			argss = append(argss, []string{"run", "--provider", "script", "--script", slow, "--name", name, fmt.Sprint("p", i)})
		}
		if won := runAll(argss...); won != 1 {
			t.Errorf("6 parallel runs named %s: %d took the name", name, won)
		}
	}
	e.must("", "run", "--provider", "echo", "--name", "a", "x")
	e.must("", "run", "--provider", "echo", "--name", "b", "x")
	won := runAll(
		[]string{"resume", "a", "--provider", "script", "--script", slow, "--name", "shared", "y"},
		[]string{"resume", "b", "--provider", "script", "--script", slow, "--name", "shared", "y"})
	if won != 1 {
		t.Errorf("two parallel renames to one name: %d took it", won)
	}
	names := map[string]int{}
	for _, h := range e.listJSON() {
		names[h["name"].(string)]++
	}
	for n, c := range names {
		if c > 1 {
			t.Errorf("%d sessions are named %q", c, n)
		}
	}
}

// A name never ends up naming another session: an id given with
// --session-id may not be a session's name or begin one, and a name that
// looks like an id (hex digits, as every id of this era starts) is
// refused, since later ids would start with it.
func TestANameKeepsNamingItsSession(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.must("", "run", "--provider", "echo", "--name", "review", "named review")
	if r := e.run("", "run", "--provider", "echo", "--session-id", "y.jsonl", "x"); r.code != 2 || !strings.Contains(r.stderr, "invalid session id") {
		t.Errorf("--session-id y.jsonl: %s", r)
	}
	// an id that is another session's short id, or the start of its id
	short := e.listJSON()[0]["shortId"].(string)
	id := e.listJSON()[0]["id"].(string)
	for _, sid := range []string{short, id[:8]} {
		if r := e.run("", "run", "--provider", "echo", "--session-id", sid, "x"); r.code != 2 || !strings.Contains(r.stderr, "is how session "+short+" is known") {
			t.Errorf("--session-id %s: %s", sid, r)
		}
	}
	// ids a CI job numbers share their start, as their short ids do
	// (ci-run-1001's is ci-run): the short ids grow to tell them apart.
	// An id that is the start of another's is still refused: typed as a
	// prefix it named that other session.
	e.must("", "run", "--provider", "echo", "--session-id", "ci-run-1001", "x")
	e.must("", "run", "--provider", "echo", "--session-id", "ci-run-1002", "x")
	if r := e.run("", "run", "--provider", "echo", "--session-id", "ci-run-100", "x"); r.code != 2 {
		t.Errorf("--session-id ci-run-100 beside ci-run-1001: %s", r)
	}
	// two UUIDs whose random ends share their first characters are two
	// ids, as trail makes them: the short ids grow to tell them apart
	e.must("", "run", "--provider", "echo", "--session-id", "01a21eff-0000-7000-8000-aaaaaaaaaaa1", "x")
	e.must("", "run", "--provider", "echo", "--session-id", "01a21eff-0000-7000-8000-aaaaaaaaaaa2", "x")
	for _, id := range []string{"review", "review-2"} {
		r := e.run("", "run", "--provider", "echo", "--session-id", id, "x")
		if r.code != 2 || !strings.Contains(r.stderr, `would take the name "review" of session`) {
			t.Errorf("--session-id %s beside a session named review: %s", id, r)
		}
	}
	for _, name := range []string{"01a2", "beef", "dead-beef"} {
		if r := e.run("", "run", "--provider", "echo", "--name", name, "x"); r.code != 2 || !strings.Contains(r.stderr, "looks like a session id") {
			t.Errorf("--name %s: %s", name, r)
		}
	}
	if got := e.must("", "replay", "review", "--format", "jsonl").stdout; !strings.Contains(got, "named review") {
		t.Errorf("review no longer names its session:\n%s", got)
	}
	e.must("", "run", "--provider", "echo", "--name", "beefy tests", "x") // not an id
	// bytes that are no UTF-8 would make the record no JSON; format
	// characters make one name look like another
	for _, name := range []string{"\xff\xfe", "zw\u200bz", "rtl\u202eexe.txt", "-v", "--yes", "x.jsonl",
		"zw\u200dz", "\u200d", "soft\u00adhy", "tag\U000E0041", " ", " lead", "trail ", "\u3000",
		"ä\u200dö", "a\u00a0b", "a\u2009b", "a\u3000b"} {
		if r := e.run("", "run", "--provider", "echo", "--name="+name, "x"); r.code != 2 || !strings.Contains(r.stderr, "invalid session name") {
			t.Errorf("--name %q: %s", name, r)
		}
	}
	e.must("", "run", "--provider", "echo", "--name", "café ☕ 日本", "x")
	e.must("", "run", "--provider", "echo", "--name", "family 👨\u200d👩\u200d👧", "x")
	e.must("", "run", "--provider", "echo", "--name", "می\u200cخواهم", "x") // Persian: a ZWNJ inside a word
}

// A log may come from anywhere: the name its header gives is held to
// --name's rules when it rebuilds a record. A name another session holds,
// or one --name would refuse, is dropped with a warning; the session is
// rebuilt and reachable by its id.
func TestARebuiltRecordKeepsOnlyANameItMayHave(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.must("", "run", "--provider", "echo", "--name", "triage", "x")
	src, err := os.ReadFile(e.logPath(e.onlySession()))
	if err != nil {
		t.Fatal(err)
	}
	id := e.onlySession()
	for sid, name := range map[string]string{"copy-taken": "triage", "copy-bad": `bad\u001b]0;X\u0007`, "copy-path": "../a/b", "copy-ok": "fresh name"} {
		b := strings.ReplaceAll(string(src), id, sid)
		b = strings.Replace(b, `"name":"triage"`, `"name":"`+name+`"`, 1)
		log := e.writeFile(sid+".jsonl", b)
		r := e.must("", "replay", log, "--write-record")
		got, _ := e.record(sid)["name"].(string)
		if sid == "copy-ok" {
			if got != "fresh name" || strings.Contains(r.stderr, "not kept") {
				t.Errorf("a free, valid name from the log: %q, %s", got, r)
			}
			continue
		}
		if got != "" || !strings.Contains(r.stderr, "trail: warning: the log's name") || !strings.Contains(r.stderr, "is not kept") {
			t.Errorf("%s: the log's name %q became %q: %s", sid, name, got, r)
		}
		noTerminalControls(t, "the warning", r.stderr)
	}
	named := 0
	for _, h := range e.listJSON() {
		if h["name"] == "triage" {
			named++
			if h["id"] != id {
				t.Errorf("triage names %v, not %s", h["id"], id)
			}
		}
	}
	if named != 1 {
		t.Errorf("%d sessions are named triage", named)
	}
}

// "h" and "help" are names like any other: as a command's first argument
// they name the session (and start a prompt), never a help page that
// exits 0 having done nothing (trail delete help --yes deleted nothing).
func TestASessionNamedHelpIsReachedByItsName(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.must("", "run", "--provider", "echo", "--name", "h", "one")
	e.must("", "run", "--provider", "echo", "--name", "help", "two")
	if r := e.must("", "resume", "h", "y"); r.stdout != "echo: y\n" {
		t.Errorf("resume h y: %s", r)
	}
	if r := e.must("", "replay", "help", "--format", "jsonl"); !strings.Contains(r.stdout, `"content":"two"`) {
		t.Errorf("replay help: %s", r)
	}
	if r := e.must("", "delete", "help", "--yes"); len(e.sessionIDs()) != 1 {
		t.Errorf("delete help --yes: %s (%d sessions left)", r, len(e.sessionIDs()))
	}
	if r := e.must("", "run", "--provider", "echo", "help", "me"); r.stdout != "echo: help me\n" {
		t.Errorf("a prompt starting with help: %s", r)
	}
	for _, args := range [][]string{{"resume", "--help"}, {"resume", "h", "--help"}, {"replay", "no-such", "-h"}, {"delete", "x", "y", "--help"}} {
		if r := e.must("", args...); !strings.Contains(r.stdout, "trail "+args[0]+" -") {
			t.Errorf("%s: %s", args, r)
		}
	}
}

// A log's session id is held to --session-id's rule when it rebuilds a
// record: an id that is another session's name, or begins one, would take
// that name from it.
func TestARebuiltRecordsIDMayNotTakeAName(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.must("", "run", "--provider", "echo", "--name", "triage", "x")
	for _, sid := range []string{"triage", "triage2"} {
		log := e.writeFile(sid+"-log.jsonl", `{"timestamp":"2026-01-01T00:00:00.000Z","sessionId":"`+sid+`","event":"session_init","seq":0,"cwd":"/x","systemPrompt":"s"}`+"\n"+
			`{"timestamp":"2026-01-01T00:00:00.000Z","sessionId":"`+sid+`","event":"history_mutation","seq":1,"mutation":"append_message","index":0,"message":{"id":"a","role":"user","content":"from log","state":"complete","timestamp":"2026-01-01T00:00:00.000Z"}}`+"\n")
		r := e.run("", "replay", log, "--write-record")
		if r.code != 2 || !strings.Contains(r.stderr, `would take the name "triage"`) || fileExists(e.recordPath(sid)) {
			t.Errorf("a log of session %s: %s", sid, r)
		}
		if fileExists(filepath.Join(e.home, "sessions", sid+".lock")) {
			t.Errorf("the refused rebuild of %s left its lock file", sid)
		}
	}
	if r := e.must("", "resume", "triage", "--provider", "echo", "q"); r.stdout != "echo: q\n" {
		t.Errorf("triage: %s", r)
	}
}

func fileExists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}

// import --name follows --name's rules: a name another session holds, or
// one run --name refuses, is exit 2 with nothing written.
func TestImportNameFollowsTheNameRules(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.must("", "run", "--provider", "echo", "--name", "taken", "x")
	src, err := filepath.Abs(filepath.Join("testdata", "peers", "claude-2-turns-continued.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"taken", "beef", "-x", "bad\x1b]0;X\a", "\xff"} {
		for _, dry := range []bool{false, true} {
			args := []string{"import", src, "--name=" + name}
			if dry {
				args = append(args, "--dry-run")
			}
			if r := e.run("", args...); r.code != 2 {
				t.Errorf("import --name %q (dry run %v): %s", name, dry, r)
			}
		}
	}
	if n := len(e.sessionIDs()); n != 1 {
		t.Errorf("%d sessions after refused imports", n)
	}
	if entries, _ := os.ReadDir(filepath.Join(e.home, "sessions")); len(entries) != 2 {
		t.Errorf("refused imports left files in sessions/: %d entries", len(entries))
	}
	e.must("", "import", src, "--name", "from claude")
	if r := e.must("", "replay", "from claude", "--format", "jsonl"); r.stdout == "" {
		t.Error("the imported session is not reached by its name")
	}
}

// A refused new session (a taken name, an id that is a name) leaves no
// lock file behind: a script retrying names filled sessions/ with them.
func TestARefusedRunLeavesNoLockFile(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.must("", "run", "--provider", "echo", "--name", "t1", "x")
	for _, args := range [][]string{{"--name", "t1"}, {"--name", "beef"}, {"--name", "a/b"}, {"--session-id", "t1"}} {
		if r := e.run("", append(append([]string{"run", "--provider", "echo"}, args...), "x")...); r.code != 2 {
			t.Errorf("%s: %s", args, r)
		}
	}
	entries, err := os.ReadDir(filepath.Join(e.home, "sessions"))
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) != 2 { // the one session's record and lock
		var names []string
		for _, en := range entries {
			names = append(names, en.Name())
		}
		t.Errorf("sessions/ holds %v", names)
	}
}

// A name and an id are checked under one lock: a step naming a session
// "nightly" and one starting the session id "nightly" at the same moment
// both passed their checks (4 times in 20), and `resume nightly` then
// took one of them in silence. So may a name and an id that begins with
// it (review, review-2), refused in either order. Exactly one of each
// pair may start.
func TestANameAndAnIDTakenAtTheSameMomentDoNotBothStart(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	// every pair at once: the more steps run together, the wider the
	// window between a check and the write that makes a name known
	type pair struct {
		flags [2][]string
		cmds  []*exec.Cmd
	}
	var pairs []*pair
	for i := range 16 {
		pairs = append(pairs,
			// no pair's name or id begins another pair's: pairs must not
			// refuse each other (nightly1 begins nightly10)
			&pair{flags: [2][]string{{"--name", fmt.Sprintf("nightly-%02d-x", i)}, {"--session-id", fmt.Sprintf("nightly-%02d-x", i)}}},
			&pair{flags: [2][]string{{"--name", fmt.Sprintf("review-%02d", i)}, {"--session-id", fmt.Sprintf("review-%02d-2", i)}}})
	}
	for _, p := range pairs {
		for _, flag := range p.flags {
			c := e.cmd(append([]string{"run", "--provider", "echo", "--no-stdin"}, append(flag, "x")...)...)
			if err := c.Start(); err != nil {
				t.Fatal(err)
			}
			p.cmds = append(p.cmds, c)
		}
	}
	for _, p := range pairs {
		ok := 0
		for _, c := range p.cmds {
			if c.Wait() == nil {
				ok++
			}
		}
		if ok != 1 {
			t.Errorf("%v and %v at once: %d started, want 1", p.flags[0], p.flags[1], ok)
		}
	}
}
