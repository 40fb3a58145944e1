package commands

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"trail/core/errs"
)

// The candidates of an ambiguous reference line up by display columns: a
// name in CJK takes two columns a character, and the column after it
// starts where it starts for an ASCII name.
func TestCandidatesLineUpByDisplayColumns(t *testing.T) {
	now := time.Date(2026, 11, 27, 12, 0, 0, 0, time.UTC)
	at := now.Add(-time.Hour).Format(time.RFC3339Nano)
	err := &errs.AmbiguousError{Candidates: []errs.Candidate{
		{ID: "01a2aaaa", ShortID: "aaaa", Name: "日本語の名前", UpdatedAt: at, Label: "first prompt"},
		{ID: "01a2bbbb", ShortID: "bbbb", Name: "plain", UpdatedAt: at, Label: "second prompt"},
	}}
	var b bytes.Buffer
	writeCandidates(&b, err, now)
	lines := strings.Split(strings.TrimRight(b.String(), "\n"), "\n")
	if len(lines) != 2 {
		t.Fatalf("lines:\n%s", b.String())
	}
	col := func(l, text string) int { return displayWidth(l[:strings.Index(l, text)]) }
	if a, b := col(lines[0], "first prompt"), col(lines[1], "second prompt"); a != b {
		t.Fatalf("the prompts start at columns %d and %d:\n%s", a, b, strings.Join(lines, "\n"))
	}
}
