package commands

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"trail/store"
)

// run runs trail in-process with args and returns the exit code.
func runTrail(t *testing.T, d *Deps, args ...string) int {
	t.Helper()
	return Main(t.Context(), append([]string{"trail"}, args...), d)
}

// checkGolden compares got with testdata/golden/name (paths are relative
// to the repository root: tests that use it chdir there first).
// UPDATE_GOLDEN=1 rewrites the file instead.
func checkGolden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", "golden", name)
	if os.Getenv("UPDATE_GOLDEN") != "" {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run with UPDATE_GOLDEN=1 to create it)", err)
	}
	if !bytes.Equal(got, want) {
		gl, wl := strings.Split(string(got), "\n"), strings.Split(string(want), "\n")
		for i := range max(len(gl), len(wl)) {
			var g, w string
			if i < len(gl) {
				g = gl[i]
			}
			if i < len(wl) {
				w = wl[i]
			}
			if g != w {
				t.Fatalf("%s differs at line %d:\n got: %s\nwant: %s\n(UPDATE_GOLDEN=1 go test ./... rewrites goldens)", path, i+1, g, w)
			}
		}
	}
}

// atRepoRoot makes paths in reports read testdata/logs/..., as a user
// running trail from a checkout would see them.
func atRepoRoot(t *testing.T) {
	t.Helper()
	t.Chdir("..")
}

func TestValidateLogReportsMatchTheGoldens(t *testing.T) {
	atRepoRoot(t)
	for _, f := range []struct{ format, golden string }{
		{"text", "validate-log.txt"},
		{"json", "validate-log.json"},
		{"github", "validate-log.github"},
		{"junit", "validate-log.junit.xml"},
	} {
		t.Run(f.format, func(t *testing.T) {
			ios, _, out, errOut := TestIO()
			// The glob is quoted, as a CI runner without a shell passes it;
			// one more file does not exist.
			code := runTrail(t, testDeps(t, ios), "validate-log", "testdata/logs/*.jsonl", "testdata/logs/missing.jsonl", "--format", f.format)
			if code != ExitNotFound {
				t.Errorf("exit %d, want %d (a file is missing)\nstderr: %s", code, ExitNotFound, errOut)
			}
			checkGolden(t, f.golden, out.Bytes())
			if f.format == "text" && !strings.Contains(errOut.String(), "trail: testdata/logs/missing.jsonl: log testdata/logs/missing.jsonl does not exist") {
				t.Errorf("stderr = %q", errOut)
			}
		})
	}
}

func TestValidateLogJSONIsOneDocument(t *testing.T) {
	atRepoRoot(t)
	ios, _, out, _ := TestIO()
	runTrail(t, testDeps(t, ios), "validate-log", "--format", "json", "testdata/logs/valid.jsonl", "testdata/logs/log-sequence-gap.jsonl")
	var doc struct {
		Valid  bool `json:"valid"`
		Errors int  `json:"errors"`
		Files  []struct {
			File    string `json:"file"`
			Entries int    `json:"entries"`
			Issues  []struct {
				Code       string `json:"code"`
				Line       int    `json:"line"`
				EventIndex int    `json:"eventIndex"`
			} `json:"issues"`
		} `json:"files"`
	}
	if err := json.Unmarshal(out.Bytes(), &doc); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if doc.Valid || doc.Errors != 1 || len(doc.Files) != 2 || doc.Files[0].Entries != 13 ||
		len(doc.Files[1].Issues) != 1 || doc.Files[1].Issues[0].Code != "LOG_SEQUENCE_GAP" || doc.Files[1].Issues[0].Line != 13 {
		t.Fatalf("%+v", doc)
	}
}

func TestValidateLogExitCodes(t *testing.T) {
	atRepoRoot(t)
	tests := []struct {
		name     string
		args     []string
		stdin    string
		wantCode int
		wantOut  string
	}{
		{"a valid log", []string{"testdata/logs/valid.jsonl"}, "", ExitOK, "testdata/logs/valid.jsonl: valid (13 entries)\n"},
		{"a log with an error", []string{"testdata/logs/tool-result-missing.jsonl"}, "", ExitInvalidData, "TOOL_RESULT_MISSING"},
		{"warnings alone pass", []string{"testdata/logs/log-truncated-tail.jsonl"}, "", ExitOK, "0 errors, 1 warning (13 entries)"},
		{"--strict makes warnings fail", []string{"--strict", "testdata/logs/log-truncated-tail.jsonl"}, "", ExitInvalidData,
			"1 error, 0 warnings (13 entries)\ntestdata/logs/log-truncated-tail.jsonl:14: error LOG_TRUNCATED_TAIL"},
		{"a missing file wins over errors", []string{"testdata/logs/tool-result-missing.jsonl", "nope.jsonl"}, "", ExitNotFound, "TOOL_RESULT_MISSING"},
		{"a pattern that matches nothing", []string{"testdata/logs/*.nothing"}, "", ExitNotFound, ""},
		{"a folder of logs", []string{"testdata/logs"}, "", ExitInvalidData, "testdata/logs/valid.jsonl: valid"},
		{"stdin", []string{"-"}, "{\"timestamp\":\"2026-01-01T00:00:00.000Z\",\"sessionId\":\"s\",\"event\":\"user\",\"seq\":3}\n", ExitInvalidData,
			"<stdin>:1: error LOG_SEQUENCE_GAP: seq 3 is not the expected 0."},
		{"no argument", nil, "", ExitUsage, ""},
		{"an unknown format", []string{"--format", "xml", "testdata/logs/valid.jsonl"}, "", ExitUsage, ""},
		{"a bad pattern", []string{"testdata/logs/[.jsonl"}, "", ExitUsage, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ios, in, out, errOut := TestIO()
			in.WriteString(tt.stdin)
			code := runTrail(t, testDeps(t, ios), append([]string{"validate-log"}, tt.args...)...)
			if code != tt.wantCode {
				t.Fatalf("exit %d, want %d\nstdout: %s\nstderr: %s", code, tt.wantCode, out, errOut)
			}
			if !strings.Contains(out.String(), tt.wantOut) {
				t.Errorf("stdout %q does not contain %q", out, tt.wantOut)
			}
		})
	}
}

func TestValidateLogFindsASessionByIDWithoutItsRecord(t *testing.T) {
	ios, _, out, errOut := TestIO()
	d := testDeps(t, ios)
	logs := filepath.Join(d.Env("TRAIL_HOME"), "logs")
	if err := os.MkdirAll(logs, 0o700); err != nil {
		t.Fatal(err)
	}
	src, err := os.ReadFile("../testdata/logs/valid.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	id := "valid"
	if err := os.WriteFile(filepath.Join(logs, id+".jsonl"), src, 0o600); err != nil {
		t.Fatal(err)
	}
	if code := runTrail(t, d, "validate-log", id); code != ExitOK || !strings.Contains(out.String(), "valid (13 entries)") {
		t.Fatalf("exit %d\n%s%s", code, out, errOut)
	}
	out.Reset()
	// a unique prefix of the log's name works too
	if code := runTrail(t, d, "validate-log", "vali"); code != ExitOK {
		t.Fatalf("prefix: exit %d\n%s%s", code, out, errOut)
	}
}

func TestGitHubEscaping(t *testing.T) {
	if got := ghData("50% done\nnext"); got != "50%25 done%0Anext" {
		t.Errorf("data %q", got)
	}
	if got := ghProp("a,b:c"); got != "a%2Cb%3Ac" {
		t.Errorf("property %q", got)
	}
}

// A finding quotes a value of the log as an error quotes user input: cut
// to 200 characters with its length (logfmt's twin of store.QuoteInput
// gives the same text).
func TestValidateLogQuotesALongSessionIDCut(t *testing.T) {
	long := strings.Repeat("x", 10_000)
	path := filepath.Join(t.TempDir(), "mixed.jsonl")
	lines := `{"timestamp":"2026-11-21T12:00:00.000Z","sessionId":"s1","event":"user","seq":0,"content":"hi"}` + "\n" +
		`{"timestamp":"2026-11-21T12:00:00.001Z","sessionId":"` + long + `","event":"user","seq":1,"content":"hi"}` + "\n"
	if err := os.WriteFile(path, []byte(lines), 0o600); err != nil {
		t.Fatal(err)
	}
	ios, _, out, _ := TestIO()
	d := testDeps(t, ios)
	if code := runTrail(t, d, "validate-log", path); code != ExitInvalidData {
		t.Fatalf("exit %d:\n%.2000s", code, out.String())
	}
	want := "sessionId " + store.QuoteInput(long) + ` differs from the log's session "s1".`
	if !strings.Contains(out.String(), want) || strings.Contains(out.String(), long[:201]) {
		t.Errorf("report %.2000s\nwant the id cut: %s", out.String(), want[:80])
	}
}
