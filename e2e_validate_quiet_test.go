package main_test

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// One line cut short in a log trail wrote is one error, not its partners'
// too; -q prints only errors in every format.
func TestValidateLogReportsABrokenLineOnceAndQuietly(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.rawLogs = true
	e.must("", "run", "--provider", "echo", "hello")
	id := e.onlySession()
	b, err := os.ReadFile(e.logPath(id))
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.SplitAfter(string(b), "\n")
	cut := -1
	for i, l := range lines {
		if strings.Contains(l, `"event":"provider_request"`) {
			cut = i
			lines[i] = l[:len(l)/2] + "\n" // cut in its messages, as a full disk or an editor would
			break
		}
	}
	if cut < 0 {
		t.Fatal("no provider_request in the log")
	}
	broken := filepath.Join(e.cwd, "broken.jsonl")
	if err := os.WriteFile(broken, []byte(strings.Join(lines, "")), 0o600); err != nil {
		t.Fatal(err)
	}
	// a log with only a warning: a torn tail
	torn := filepath.Join(e.cwd, "torn.jsonl")
	if err := os.WriteFile(torn, append(append([]byte(nil), b...), `{"timestamp":"2026`...), 0o600); err != nil {
		t.Fatal(err)
	}

	r := e.run("", "validate-log", broken, torn)
	if r.code != 7 || strings.Count(r.stdout, ": error ") != 1 || !strings.Contains(r.stdout, "LOG_LINE_INVALID_JSON") || strings.Contains(r.stdout, "ORPHAN") {
		t.Fatalf("one broken line: %s", r)
	}
	errLine := broken + ":" + strconv.Itoa(cut+1) + ": error LOG_LINE_INVALID_JSON: "
	for _, tt := range []struct {
		format string
		check  func(r result) bool
	}{
		{"text", func(r result) bool {
			return r.stderr == "" && strings.HasPrefix(r.stdout, errLine) && strings.Count(r.stdout, "\n") == 1
		}},
		{"github", func(r result) bool {
			return r.stderr == "" && strings.HasPrefix(r.stdout, "::error file=") && strings.Count(r.stdout, "\n") == 1
		}},
		{"json", func(r result) bool {
			return r.stderr == "" && strings.Contains(r.stdout, "LOG_LINE_INVALID_JSON") && !strings.Contains(r.stdout, "torn.jsonl") && !strings.Contains(r.stdout, "LOG_TRUNCATED_TAIL")
		}},
		{"junit", func(r result) bool {
			return r.stderr == "" && strings.Contains(r.stdout, "<failure") && !strings.Contains(r.stdout, "LOG_TRUNCATED_TAIL")
		}},
	} {
		r := e.run("", "-q", "validate-log", "--format", tt.format, broken, torn)
		if r.code != 7 || !tt.check(r) {
			t.Errorf("-q --format %s: %s", tt.format, r)
		}
	}
	if r := e.run("", "validate-log", "-q", torn); r.code != 0 || r.stdout != "" || r.stderr != "" {
		t.Errorf("-q on a log with only a warning prints nothing: %s", r)
	}
}

// A log's name is shown escaped in the text report, as every other name
// from outside: a newline in it must not split a report line in two.
func TestValidateLogEscapesAFileName(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.writeFile("new\nline.jsonl", "")
	r := e.must("", "validate-log", "new\nline.jsonl")
	if r.stdout != "new\\nline.jsonl: valid (0 entries)\n" {
		t.Fatalf("%s", r)
	}
}
