package main_test

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"
)

// listJSON is `trail list --json`.
func (e *env) listJSON() []map[string]any {
	e.t.Helper()
	r := e.must("", "list", "--json")
	var out []map[string]any
	if err := json.Unmarshal([]byte(r.stdout), &out); err != nil {
		e.t.Fatalf("list --json: %v\n%s", err, r.stdout)
	}
	return out
}

// Sessions made in the same minute share their first eight characters;
// each gets a short id of at most 8 from its random end, shown by list
// and taken by every command.
func TestShortIDsWorkInEveryCommand(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	for i := range 3 {
		e.must("", "run", "--provider", "echo", fmt.Sprintf("prompt %d", i))
	}
	sessions := e.listJSON()
	seen := map[string]bool{}
	for _, s := range sessions {
		id, short := s["id"].(string), s["shortId"].(string)
		if len(short) < 4 || len(short) > 8 || !strings.HasPrefix(id[24:], short) {
			t.Fatalf("shortId %q of %s is not from the id's random end", short, id)
		}
		if seen[short] {
			t.Fatalf("shortId %q given twice", short)
		}
		seen[short] = true
	}
	s := sessions[0]
	id, short := s["id"].(string), s["shortId"].(string)
	if r := e.must("", "resume", short, "again"); r.stdout != "echo: again\n" {
		t.Fatalf("resume by short id: %s", r)
	}
	if got := e.replayMessages(short); len(got) != 5 {
		t.Fatalf("replay by short id: %d messages", len(got))
	}
	if r := e.must("", "validate-log", short); !strings.Contains(r.stdout, "valid") {
		t.Fatalf("validate-log by short id: %s", r)
	}
	e.must("", "compact", short, "--provider", "echo")
	if r := e.must("", "delete", short, "--yes"); r.stdout != id+"\n" {
		t.Fatalf("delete by short id: %s", r)
	}
	if r := e.run("", "resume", short, "x"); r.code != 3 {
		t.Fatalf("a deleted session's short id: %s", r)
	}
}

// An ambiguous prefix lists at most 10 candidates, one a line, with short
// id, age, name and first prompt, and counts the rest.
func TestAnAmbiguousReferenceListsTenCandidates(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	for i := range 12 {
		args := []string{"run", "--provider", "echo", "--session-id", fmt.Sprintf("01a20afb-0000-7000-8000-%012x", uint64(i+1)<<44), fmt.Sprintf("question number %d", i)}
		if i == 11 {
			args = append(args, "--name", "newest")
		}
		e.must("", args...)
	}
	r := e.run("", "resume", "01a20afb", "hi")
	if r.code != 3 || r.stdout != "" {
		t.Fatalf("%s", r)
	}
	lines := strings.Split(strings.TrimSuffix(r.stderr, "\n"), "\n")
	if len(lines) != 13 {
		t.Fatalf("want the error, 10 candidates, a count and a hint; got %d lines:\n%s", len(lines), r.stderr)
	}
	if lines[0] != `trail: session "01a20afb" is ambiguous: it matches 12 sessions` {
		t.Errorf("first line %q", lines[0])
	}
	if f := strings.Fields(lines[1]); len(f) < 5 || f[0] != "c00000" || f[1] != "just" || f[3] != "newest" || !strings.Contains(lines[1], "question number 11") {
		t.Errorf("newest candidate first, with short id, age, name and prompt: %q", lines[1])
	}
	if lines[11] != "  … and 2 more (see trail list)" || !strings.HasPrefix(lines[12], "hint: ") {
		t.Errorf("tail:\n%s", strings.Join(lines[11:], "\n"))
	}
}

// The list table fits an 80-column terminal: no row wraps, the cwd keeps
// its ends, 30 rows by default and a line saying how many more.
func TestListTableFitsAnEightyColumnTerminal(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	deep := filepath.Join(e.user, "projects", "a-rather-long-project-name", "services", "payments", "internal")
	if err := os.MkdirAll(deep, 0o755); err != nil {
		t.Fatal(err)
	}
	e.cwd = deep
	for i := range 33 {
		e.must("", "run", "--provider", "echo", fmt.Sprintf("session %02d: a prompt long enough that a table row of it would wrap on any terminal", i))
	}
	e.cols = 80
	code, out := e.startOnTerminal("list").wait()
	if code != 0 {
		t.Fatalf("exit %d:\n%s", code, out)
	}
	lines := strings.Split(strings.TrimRight(strings.ReplaceAll(out, "\r\n", "\n"), "\n"), "\n")
	if len(lines) != 32 {
		t.Fatalf("want a header, 30 rows and a closing line; got %d lines:\n%s", len(lines), out)
	}
	for _, l := range lines {
		if n := utf8.RuneCountInString(l); n > 80 {
			t.Errorf("a %d-column line on an 80-column terminal: %q", n, l)
		}
	}
	if f := strings.Fields(lines[0]); strings.Join(f, " ") != "ID UPDATED STATUS MSGS NAME CWD" {
		t.Errorf("header %q", lines[0])
	}
	if !strings.Contains(lines[1], "session 32:") || !strings.Contains(lines[30], "session 03:") {
		t.Errorf("not newest first:\n%s", out)
	}
	row := lines[1]
	if !strings.Contains(row, "…") || !strings.HasPrefix(row[strings.LastIndex(row, "  ")+2:], "~/") || !strings.HasSuffix(row, "internal") {
		t.Errorf("prompt cut and cwd shortened with ~ and a middle ellipsis: %q", row)
	}
	if lines[31] != "… and 3 more (--limit N shows N, --limit 0 all)" {
		t.Errorf("closing line %q", lines[31])
	}
	// the short id on the screen names its session
	short := strings.Fields(row)[0]
	if r := e.must("", "resume", short, "hi"); r.stdout != "echo: hi\n" {
		t.Errorf("resume %s: %s", short, r)
	}
	// piped: every row, tab-separated, full ids
	r := e.must("", "list")
	if rows := strings.Split(strings.TrimSuffix(r.stdout, "\n"), "\n"); len(rows) != 33 || len(strings.Split(rows[0], "\t")[0]) != 36 {
		t.Errorf("piped list: %d rows, first %q", len(rows), rows[0])
	}
	// --limit 0 on the terminal: all of them, no closing line
	code, out = e.startOnTerminal("list", "--limit", "0").wait()
	if n := strings.Count(out, "\n"); code != 0 || n != 34 || strings.Contains(out, "more") {
		t.Errorf("--limit 0: exit %d, %d lines:\n%s", code, n, out)
	}
}

// Robota's ids (session_<ms>_<base36>) all start "session_": their short
// ids come from the random end, stay the same when another Robota session
// appears, and every command takes them.
func TestRobotaSessionsHaveShortIDsFromTheirRandomEnd(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.rawLogs = true // the aborted fixture's log is Robota's, with its gaps
	e.robotaHome()
	if got := e.listJSON(); len(got) != 1 || got[0]["shortId"] != "k3x9q2" {
		t.Fatalf("one Robota session: %v", got)
	}
	e.robotaFixture(robotaAbortedID)
	short := map[string]string{}
	for _, s := range e.listJSON() {
		short[s["id"].(string)] = s["shortId"].(string)
	}
	if short[robotaID] != "k3x9q2" || short[robotaAbortedID] != "ab0rt3" {
		t.Fatalf("two Robota sessions: %v", short)
	}
	if r := e.must("", "resume", "k3x9q2", "--provider", "echo", "again"); r.stdout != "echo: again\n" {
		t.Fatalf("resume by short id: %s", r)
	}
	if r := e.must("", "validate-log", "k3x9"); !strings.Contains(r.stdout, "valid") {
		t.Fatalf("validate-log by a prefix of the random end: %s", r)
	}
	if got := e.replayMessages("ab0rt3"); len(got) == 0 {
		t.Fatalf("replay by short id: no messages")
	}
	if r := e.run("", "replay", "sessio"); r.code != 3 || !strings.Contains(r.stderr, "k3x9q2") || !strings.Contains(r.stderr, "ab0rt3") {
		t.Fatalf("the prefix every Robota id shares is ambiguous, naming both short ids: %s", r)
	}
	if r := e.must("", "delete", "ab0rt3", "--yes"); r.stdout != robotaAbortedID+"\n" {
		t.Fatalf("delete by short id: %s", r)
	}
}
