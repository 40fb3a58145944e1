package logfmt

import (
	"os"
	"strings"
	"testing"
)

// Another session's whole log appended to this one (`cat b.jsonl >>
// a.jsonl`) is reported line by line as LOG_SESSION_MISMATCH and nothing
// else: its seq restarting at 0, its history indexes and its requests'
// digests are not this log's, so their errors were knock-on errors.
func TestAnotherLogAppendedIsOnlyItsSessionMismatches(t *testing.T) {
	own, err := os.ReadFile("../testdata/logs/valid.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimRight(string(own), "\n"), "\n")
	other := strings.ReplaceAll(string(own), `"sessionId":"`+sessionOf(t, lines[0])+`"`, `"sessionId":"another"`)
	rep, err := Validate(strings.NewReader(string(own)+other), ValidateOptions{Dir: "../testdata/logs"})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Errors != len(lines) || rep.Warnings != 0 {
		t.Fatalf("%d errors, %d warnings; want %d LOG_SESSION_MISMATCH only: %+v", rep.Errors, rep.Warnings, len(lines), rep.Issues)
	}
	for _, is := range rep.Issues {
		if is.Code != CodeSessionMismatch {
			t.Fatalf("issue %+v, want only LOG_SESSION_MISMATCH", is)
		}
	}
}

// sessionOf is the sessionId of a log line.
func sessionOf(t *testing.T, line string) string {
	t.Helper()
	const key = `"sessionId":"`
	i := strings.Index(line, key)
	if i < 0 {
		t.Fatalf("no sessionId in %s", line)
	}
	rest := line[i+len(key):]
	return rest[:strings.IndexByte(rest, '"')]
}
