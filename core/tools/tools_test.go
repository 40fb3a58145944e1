package tools

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
	"unicode/utf8"
)

// world is a temp working directory with files.
func world(t *testing.T, files map[string]string) Env {
	t.Helper()
	dir := t.TempDir()
	for name, content := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return Env{Cwd: dir}
}

func call(t *testing.T, tool Tool, env Env, args string) Result {
	t.Helper()
	return tool.Run(context.Background(), json.RawMessage(args), env)
}

func TestSchemasUseRobotaParameterNames(t *testing.T) {
	want := map[string][]string{
		"Read":  {"filePath", "offset", "limit"},
		"Write": {"filePath", "content"},
		"Edit":  {"filePath", "oldString", "newString", "replaceAll"},
		"Bash":  {"command", "timeout", "workingDirectory"},
		"Glob":  {"pattern", "path", "limit", "noIgnore"},
		"Grep":  {"pattern", "path", "glob", "contextLines", "outputMode", "headLimit", "noIgnore"},
	}
	for _, tool := range All() {
		s := tool.Schema()
		var sch struct {
			Type       string                     `json:"type"`
			Properties map[string]json.RawMessage `json:"properties"`
			Required   []string                   `json:"required"`
		}
		if err := json.Unmarshal(s.Parameters, &sch); err != nil {
			t.Fatalf("%s schema: %v", s.Name, err)
		}
		names := want[s.Name]
		if sch.Type != "object" || len(sch.Properties) != len(names) || len(sch.Required) == 0 {
			t.Errorf("%s schema = %s", s.Name, s.Parameters)
		}
		for _, n := range names {
			if _, ok := sch.Properties[n]; !ok {
				t.Errorf("%s schema lacks %s", s.Name, n)
			}
		}
		if s.Description == "" {
			t.Errorf("%s has no description", s.Name)
		}
	}
}

func TestRead(t *testing.T) {
	env := world(t, map[string]string{"a.txt": "one\ntwo\nthree\n", "bin": "x\x00y", "sub/b.txt": "b"})
	tests := []struct {
		name, args  string
		wantSuccess bool
		want        string // output, or error when failing
	}{
		{"a whole file is numbered cat -n style", `{"filePath":"a.txt"}`, true, "[File: a.txt (3 lines)]\n1\tone\n2\ttwo\n3\tthree"},
		{"offset and limit select lines", `{"filePath":"a.txt","offset":2,"limit":1}`, true, "[File: a.txt (lines 2-2 of 3)]\n2\ttwo"},
		{"an absolute path inside cwd works", `{"filePath":"` + filepath.Join(env.Cwd, "sub/b.txt") + `"}`, true, "1\tb"},
		{"a missing file fails", `{"filePath":"nope"}`, false, "File not found: nope"},
		{"a binary file is refused", `{"filePath":"bin"}`, false, "Binary file not supported: bin"},
		{"a folder is not a file", `{"filePath":"sub"}`, false, "Path is not a file: sub"},
		{"a path outside cwd is refused", `{"filePath":"../x"}`, false, "outside the working directories"},
		{"filePath is required", `{}`, false, "filePath is required"},
		{"a wrong type is explained", `{"filePath":3}`, false, "filePath must be a string"},
		{"arguments sent as a JSON string are read", `"{\"filePath\":\"sub/b.txt\"}"`, true, "1\tb"},
		// Permission rules and hooks read exact keys and the last of repeated
		// ones; the tool must read the same, or a rule judges another call.
		{"a key is read with its exact name only", `{"FilePath":"a.txt"}`, false, "filePath is required"},
		{"the last of repeated keys wins", `{"filePath":"a.txt","filePath":"sub/b.txt"}`, true, "1\tb"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := call(t, Read{}, env, tt.args)
			if r.Success != tt.wantSuccess {
				t.Fatalf("success = %v, result %+v", r.Success, r)
			}
			got := r.Output
			if !r.Success {
				got = r.Error
			}
			if !strings.Contains(got, tt.want) {
				t.Errorf("got %q, want it to contain %q", got, tt.want)
			}
		})
	}
}

func TestReadKeepsSplitLinesSemantics(t *testing.T) {
	long := strings.Repeat("x", 100<<10) // longer than the read buffer
	tests := []struct{ name, content, args, want string }{
		{"an empty file has no lines", "", `{"filePath":"f"}`, "[File: f (0 lines)]\n"},
		{"a lone newline is one empty line", "\n", `{"filePath":"f"}`, "[File: f (1 line)]\n1\t"},
		{"a last line without newline counts", "a\nb", `{"filePath":"f"}`, "[File: f (2 lines)]\n1\ta\n2\tb"},
		{"carriage returns are kept", "a\r\nb\r\n", `{"filePath":"f"}`, "[File: f (2 lines)]\n1\ta\r\n2\tb\r"},
		{"a line longer than the buffer is cut, its size said", "a\n" + long + "\nc\n", `{"filePath":"f","offset":2,"limit":1}`,
			"[File: f (lines 2-2 of 3)]\n2\t" + long[:2000] + " [... line cut at 2000 characters of 102,400 bytes ...]"},
		{"a long line held whole is cut too", strings.Repeat("é", 3000) + "\n", `{"filePath":"f"}`,
			"[File: f (1 line)]\n1\t" + strings.Repeat("é", 2000) + " [... line cut at 2000 characters of 3,000 characters ...]"},
		{"an offset past the end says so", "a\n", `{"filePath":"f","offset":5}`, "[File: f has 1 line; offset 5 is past its end]"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := call(t, Read{}, world(t, map[string]string{"f": tt.content}), tt.args)
			if !r.Success || tt.want != r.Output {
				t.Errorf("got %.300q, want %.300q", r.Output, tt.want)
			}
		})
	}
}

// A model may send any number; one past int's range used to wrap negative
// and crash the whole step with a slice out of range.
func TestNumbersOutOfRangeAreClamped(t *testing.T) {
	env := world(t, map[string]string{"a.txt": "one\ntwo\n"})
	tests := []struct {
		tool Tool
		args string
		want string // in the output
	}{
		{Read{}, `{"filePath":"a.txt","limit":1e300}`, "(2 lines)"},
		{Read{}, `{"filePath":"a.txt","offset":0.5}`, "(2 lines)"},
		{Read{}, `{"filePath":"a.txt","offset":1e300}`, "past its end"},
		{Glob{}, `{"pattern":"*","limit":1e300}`, "a.txt"},
		{Grep{}, `{"pattern":"o","outputMode":"content","headLimit":1e300,"contextLines":1e300}`, "a.txt:2:two"},
		{Bash{}, `{"command":"echo ok","timeout":1e300}`, "ok"},
		{Bash{}, `{"command":"echo ok","timeout":0.5}`, "ok"},
	}
	for _, tt := range tests {
		r := call(t, tt.tool, env, tt.args)
		if !r.Success || !strings.Contains(r.Output, tt.want) {
			t.Errorf("%s %s: %+v", tt.tool.Schema().Name, tt.args, r)
		}
	}
}

func TestReadRefusesSymlinkOutOfCwd(t *testing.T) {
	outside := t.TempDir()
	os.WriteFile(filepath.Join(outside, "secret"), []byte("s3cret"), 0o600)
	env := world(t, nil)
	if err := os.Symlink(outside, filepath.Join(env.Cwd, "link")); err != nil {
		t.Fatal(err)
	}
	r := call(t, Read{}, env, `{"filePath":"link/secret"}`)
	if r.Success || strings.Contains(r.Output, "s3cret") {
		t.Fatalf("read through a symlink out of cwd: %+v", r)
	}
}

func TestWriteCreatesFoldersAndReplacesAtomically(t *testing.T) {
	env := world(t, map[string]string{"old.txt": "old"})
	os.Chmod(filepath.Join(env.Cwd, "old.txt"), 0o600)
	r := call(t, Write{}, env, `{"filePath":"deep/new/f.txt","content":"héllo"}`)
	if !r.Success || r.Output != "Written 6 bytes to deep/new/f.txt" {
		t.Fatalf("%+v", r)
	}
	if b, _ := os.ReadFile(filepath.Join(env.Cwd, "deep/new/f.txt")); string(b) != "héllo" {
		t.Fatalf("file = %q", b)
	}
	if r := call(t, Write{}, env, `{"filePath":"old.txt","content":""}`); !r.Success {
		t.Fatalf("%+v", r)
	}
	fi, _ := os.Stat(filepath.Join(env.Cwd, "old.txt"))
	if fi.Size() != 0 || fi.Mode().Perm() != 0o600 {
		t.Errorf("replaced file: size %d mode %v, want 0 and 0600 kept", fi.Size(), fi.Mode().Perm())
	}
	if r := call(t, Write{}, env, `{"filePath":"x"}`); r.Success || !strings.Contains(r.Error, "content is required") {
		t.Errorf("missing content: %+v", r)
	}
	if r := call(t, Write{}, env, `{"filePath":"/etc/trail-test","content":"x"}`); r.Success {
		t.Errorf("wrote outside cwd: %+v", r)
	}
	ents, _ := os.ReadDir(filepath.Join(env.Cwd, "deep/new"))
	if len(ents) != 1 {
		t.Errorf("temp files left behind: %v", ents)
	}
}

func TestEdit(t *testing.T) {
	tests := []struct {
		name, file, args string
		wantSuccess      bool
		wantFile, want   string
	}{
		{"a unique string is replaced", "a\nfoo\nb\n", `{"filePath":"f","oldString":"foo","newString":"bar"}`, true, "a\nbar\nb\n", "Replaced 1 occurrence(s) in f"},
		{"a repeated string needs replaceAll", "foo foo", `{"filePath":"f","oldString":"foo","newString":"bar"}`, false, "foo foo", "found 2 occurrences"},
		{"replaceAll replaces every one", "foo foo", `{"filePath":"f","oldString":"foo","newString":"bar","replaceAll":true}`, true, "bar bar", "Replaced 2 occurrence(s)"},
		{"a missing string fails", "abc", `{"filePath":"f","oldString":"zzz","newString":"y"}`, false, "abc", "oldString not found in file: f"},
		{"an empty oldString fails", "abc", `{"filePath":"f","oldString":"","newString":"y"}`, false, "abc", "must not be empty"},
		{"the same text fails", "abc", `{"filePath":"f","oldString":"a","newString":"a"}`, false, "abc", "must be different"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			env := world(t, map[string]string{"f": tt.file})
			r := call(t, Edit{}, env, tt.args)
			if r.Success != tt.wantSuccess {
				t.Fatalf("%+v", r)
			}
			got := r.Output + r.Error
			if !strings.Contains(got, tt.want) {
				t.Errorf("got %q, want %q", got, tt.want)
			}
			b, _ := os.ReadFile(filepath.Join(env.Cwd, "f"))
			if string(b) != tt.wantFile {
				t.Errorf("file = %q, want %q", b, tt.wantFile)
			}
		})
	}
	env := world(t, map[string]string{"f": "x\ny\nfoo\n"})
	r := call(t, Edit{}, env, `{"filePath":"f","oldString":"foo","newString":"bar"}`)
	if len(r.Extra) != 1 || r.Extra[0].Key != "startLine" || r.Extra[0].Value != 3 {
		t.Errorf("startLine = %+v, want 3", r.Extra)
	}
}

func TestBash(t *testing.T) {
	env := world(t, map[string]string{"sub/x": ""})
	env.Env = []string{"TRAIL_TEST_VAR=from-settings"}
	tests := []struct {
		name, args  string
		wantSuccess bool
		wantOutput  string
		wantCode    int
	}{
		{"stdout is the output", `{"command":"echo hi"}`, true, "hi\n", 0},
		{"stderr follows under a marker", `{"command":"echo out; echo err >&2"}`, true, "out\n\nstderr:\nerr\n", 0},
		{"a failing command is a result with its exit code", `{"command":"exit 3"}`, true, "", 3},
		{"it runs in the session cwd", `{"command":"ls"}`, true, "sub\n", 0},
		{"workingDirectory is relative to cwd", `{"command":"ls","workingDirectory":"sub"}`, true, "x\n", 0},
		{"settings env is exported", `{"command":"echo $TRAIL_TEST_VAR"}`, true, "from-settings\n", 0},
		{"it is bash, not sh", `{"command":"echo ${BASH_VERSION:+bash}"}`, true, "bash\n", 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := call(t, Bash{}, env, tt.args)
			if r.Success != tt.wantSuccess || r.Output != tt.wantOutput {
				t.Fatalf("got %+v, want output %q", r, tt.wantOutput)
			}
			if r.ExitCode == nil || *r.ExitCode != tt.wantCode {
				t.Errorf("exit code = %v, want %d", r.ExitCode, tt.wantCode)
			}
		})
	}
	if r := call(t, Bash{}, env, `{"command":"ls","workingDirectory":"nope"}`); r.Success {
		t.Errorf("missing working directory: %+v", r)
	}
}

func TestBashTimeoutKillsTheProcessGroup(t *testing.T) {
	env := world(t, nil)
	pidFile := filepath.Join(env.Cwd, "pid")
	start := time.Now()
	// The grandchild would outlive a kill of the shell alone.
	r := call(t, Bash{}, env, `{"command":"echo started; (sleep 30; echo late) & echo $! > pid; wait","timeout":300}`)
	if r.Success || r.Error != "Command timed out after 300ms" || !strings.Contains(r.Output, "started") {
		t.Fatalf("%+v", r)
	}
	if d := time.Since(start); d > 10*time.Second {
		t.Fatalf("took %s", d)
	}
	assertDead(t, pidFile)
}

func TestBashCancelKillsTheProcessGroup(t *testing.T) {
	env := world(t, nil)
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		time.Sleep(300 * time.Millisecond)
		cancel()
	}()
	r := Bash{}.Run(ctx, json.RawMessage(`{"command":"(sleep 30) & echo $! > pid; wait"}`), env)
	if r.Success || r.Error != "Aborted" {
		t.Fatalf("%+v", r)
	}
	assertDead(t, filepath.Join(env.Cwd, "pid"))
}

func assertDead(t *testing.T, pidFile string) {
	t.Helper()
	b, err := os.ReadFile(pidFile)
	if err != nil {
		t.Fatal(err)
	}
	pid := strings.TrimSpace(string(b))
	deadline := time.Now().Add(5 * time.Second)
	for {
		st, err := os.ReadFile("/proc/" + pid + "/stat")
		if err != nil || strings.Contains(string(st), ") Z ") {
			return // gone, or a zombie waiting for its reaper
		}
		if time.Now().After(deadline) {
			t.Fatalf("grandchild %s still running after the kill", pid)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func TestBashHugeOutputIsBoundedAndTruncated(t *testing.T) {
	env := world(t, nil)
	r := call(t, Bash{}, env, `{"command":"head -c 5000000 /dev/zero | tr '\\0' a; echo END"}`)
	if !r.Success {
		t.Fatalf("%+v", r)
	}
	if !strings.Contains(r.Output, "[... output truncated: 5,000,004 chars total, showing first and last 15,000 chars ...]") {
		t.Fatalf("marker missing or wrong total: %q", r.Output[14990:15120])
	}
	if !strings.HasSuffix(r.Output, "END\n") || len(r.Output) > 31000 {
		t.Errorf("output len %d, tail %q", len(r.Output), r.Output[len(r.Output)-10:])
	}
}

func TestGlob(t *testing.T) {
	env := world(t, map[string]string{
		"a.go": "", "b.txt": "", "sub/c.go": "", "sub/deep/d.go": "", ".hidden/e.go": "",
		"node_modules/m.go": "", ".git/g.go": "",
	})
	old := time.Now().Add(-time.Hour)
	os.Chtimes(filepath.Join(env.Cwd, "sub/deep/d.go"), old, old)
	same := time.Now().Add(-time.Minute)
	for _, f := range []string{"a.go", "b.txt"} {
		os.Chtimes(filepath.Join(env.Cwd, f), same, same)
	}
	tests := []struct{ name, args, want string }{
		{"** matches any depth, newest first, ignored folders skipped", `{"pattern":"**/*.go"}`, ".hidden/e.go\na.go\nsub/c.go\nsub/deep/d.go"},
		{"* stays in one folder", `{"pattern":"*.go"}`, "a.go"},
		{"a static prefix narrows the walk", `{"pattern":"sub/**/*.go"}`, "sub/c.go\nsub/deep/d.go"},
		{"path sets the search folder; results stay relative to cwd", `{"pattern":"*.go","path":"sub"}`, "sub/c.go"},
		{"braces give alternatives", `{"pattern":"*.{go,txt}"}`, "a.go\nb.txt"},
		{"no match says so", `{"pattern":"*.rs"}`, "(no matches)"},
		{"limit caps the list", `{"pattern":"**/*.go","limit":1}`, ".hidden/e.go\n\n[Showing 1 of 4 matches. Use limit parameter to see more.]"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := call(t, Glob{}, env, tt.args)
			if !r.Success {
				t.Fatalf("%+v", r)
			}
			if tt.name == "** matches any depth, newest first, ignored folders skipped" {
				// Files written in the same instant tie on mtime; compare as sets except the old one.
				lines := strings.Split(r.Output, "\n")
				if len(lines) != 4 || lines[3] != "sub/deep/d.go" {
					t.Fatalf("got %q", r.Output)
				}
				return
			}
			if tt.name == "limit caps the list" {
				if !strings.HasSuffix(r.Output, "[Showing 1 of 4 matches. Use limit parameter to see more.]") {
					t.Fatalf("got %q", r.Output)
				}
				return
			}
			if r.Output != tt.want {
				t.Errorf("got %q, want %q", r.Output, tt.want)
			}
		})
	}
	for _, bad := range []string{`{"pattern":"../*"}`, `{"pattern":"*","path":".."}`, `{"pattern":"[x"}`} {
		if r := call(t, Glob{}, env, bad); r.Success {
			t.Errorf("%s: %+v", bad, r)
		}
	}
}

func TestGrep(t *testing.T) {
	env := world(t, map[string]string{
		"a.go":     "package a\nfunc Foo() {}\n// end\n",
		"b.txt":    "Foo bar\nno\nFoo again\n",
		"sub/c.go": "nothing here\n",
		"bin":      "Foo\x00",
	})
	tests := []struct{ name, args, want string }{
		{"files_with_matches is the default", `{"pattern":"Foo"}`, "a.go\nb.txt"},
		{"count gives per-file counts", `{"pattern":"Foo","outputMode":"count"}`, "a.go:1\nb.txt:2"},
		{"content shows lines with numbers", `{"pattern":"again","outputMode":"content"}`, "b.txt:3:Foo again"},
		{"context lines use - and groups split with --", `{"pattern":"^Foo","outputMode":"content","contextLines":0,"path":"b.txt"}`, "b.txt:1:Foo bar\n--\nb.txt:3:Foo again"},
		{"contextLines include neighbours", `{"pattern":"func","outputMode":"content","contextLines":1,"glob":"*.go"}`, "a.go:1-package a\na.go:2:func Foo() {}\na.go:3-// end"},
		{"glob filters by name in any folder", `{"pattern":"nothing","glob":"*.go"}`, "sub/c.go"},
		{"headLimit truncates with a marker", `{"pattern":"Foo","outputMode":"content","headLimit":1}`, "a.go:2:func Foo() {}\n(+3 more results truncated by headLimit)"},
		{"no match says so", `{"pattern":"zzz"}`, "(no matches)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := call(t, Grep{}, env, tt.args)
			if !r.Success || r.Output != tt.want {
				t.Errorf("got %+v, want %q", r, tt.want)
			}
		})
	}
	for _, bad := range []string{`{"pattern":"("}`, `{"pattern":"x","outputMode":"lines"}`, `{"pattern":"x","path":"/etc"}`} {
		if r := call(t, Grep{}, env, bad); r.Success {
			t.Errorf("%s: %+v", bad, r)
		}
	}
}

func TestSearchesSkipFilesDeniedToRead(t *testing.T) {
	env := world(t, map[string]string{".env": "TOKEN=s3cret\n", "a.go": "// TOKEN here\n"})
	env.ReadDenied = func(abs string) bool { return filepath.Base(abs) == ".env" }
	if r := call(t, Grep{}, env, `{"pattern":"TOKEN","outputMode":"content"}`); r.Output != "a.go:1:// TOKEN here" {
		t.Errorf("Grep over the tree: %+v", r)
	}
	if r := call(t, Grep{}, env, `{"pattern":".","path":".env"}`); r.Success || strings.Contains(r.Output, "s3cret") {
		t.Errorf("Grep of the denied file: %+v", r)
	}
	if r := call(t, Glob{}, env, `{"pattern":"*"}`); strings.Contains(r.Output, ".env") {
		t.Errorf("Glob lists the denied file: %+v", r)
	}
}

func TestTruncateOutput(t *testing.T) {
	short := strings.Repeat("x", 30000)
	if TruncateOutput(short) != short {
		t.Error("30,000 characters were truncated")
	}
	long := strings.Repeat("a", 15000) + strings.Repeat("m", 20000) + strings.Repeat("z", 15000)
	got := TruncateOutput(long)
	want := strings.Repeat("a", 15000) + "\n\n[... output truncated: 50,000 chars total, showing first and last 15,000 chars ...]\n\n" + strings.Repeat("z", 15000)
	if got != want {
		t.Errorf("truncated output differs (len %d)", len(got))
	}
	// characters, not bytes: 40,000 two-byte runes keep 15,000 runes a side
	runes := strings.Repeat("é", 40000)
	got = TruncateOutput(runes)
	if !strings.HasPrefix(got, strings.Repeat("é", 15000)+"\n\n[... output truncated: 40,000 chars") || !strings.HasSuffix(got, "]\n\n"+strings.Repeat("é", 15000)) {
		t.Error("rune truncation wrong")
	}
}

func TestThousands(t *testing.T) {
	for n, want := range map[int]string{0: "0", 999: "999", 1000: "1,000", 1234567: "1,234,567"} {
		if got := thousands(n); got != want {
			t.Errorf("thousands(%d) = %q, want %q", n, got, want)
		}
	}
}

// A path or pattern the model sends is quoted cut to 200 characters when
// it is refused: a huge one must not fill the tool result.
func TestRefusedPathsAreQuotedCut(t *testing.T) {
	cwd := t.TempDir()
	long := "../" + strings.Repeat("x", 5000)
	for _, tc := range []struct {
		tool Tool
		args string
	}{
		{Read{}, `{"filePath":"` + long + `"}`},
		{Glob{}, `{"pattern":"/` + strings.Repeat("y", 5000) + `"}`},
		{Glob{}, `{"pattern":"` + long + `"}`},
	} {
		r := tc.tool.Run(context.Background(), json.RawMessage(tc.args), Env{Cwd: cwd})
		if r.Success || len(r.Error) > 400 || !strings.Contains(r.Error, " bytes)") {
			t.Errorf("%s: error of %d bytes, want the input cut: %.300s", tc.tool.Schema().Name, len(r.Error), r.Error)
		}
	}
}

// A step asks for each schema several times; it is built once per process
// and is the same bytes every time.
func TestSchemasAreBuiltOnce(t *testing.T) {
	for _, tool := range All() {
		a, b := tool.Schema(), tool.Schema()
		if string(a.Parameters) != string(b.Parameters) || &a.Parameters[0] != &b.Parameters[0] {
			t.Errorf("%s: schema built again", a.Name)
		}
		if !json.Valid(a.Parameters) {
			t.Errorf("%s: parameters are not JSON", a.Name)
		}
	}
}

// A pattern whose folder part is a symlink out of the working directories
// (link_out/**) lists nothing beyond them; an --add-dir folder it may.
func TestGlobDoesNotFollowALinkOut(t *testing.T) {
	env := world(t, map[string]string{"a.go": ""})
	outside := t.TempDir()
	if err := os.WriteFile(filepath.Join(outside, "secret.txt"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, filepath.Join(env.Cwd, "link_out")); err != nil {
		t.Skip("no symlinks here:", err)
	}
	r := call(t, Glob{}, env, `{"pattern":"link_out/**"}`)
	if r.Success || strings.Contains(r.Output, "secret") || !strings.Contains(r.Error, "leads outside the working directories") {
		t.Fatalf("%+v", r)
	}
	env.Dirs = []string{outside}
	if r := call(t, Glob{}, env, `{"pattern":"link_out/**"}`); !r.Success || !strings.Contains(r.Output, "secret.txt") {
		t.Fatalf("with the folder added: %+v", r)
	}
}

// A Read whose lines pass the output limit stops at the last whole line
// that fits and says where to read on: cut in the middle, the model got
// a header claiming lines it never saw and a fragment with no number.
func TestReadStopsAtTheLastWholeLineThatFits(t *testing.T) {
	line := strings.Repeat("0123456789", 9)
	var b strings.Builder
	for range 2000 {
		b.WriteString(line + "\n")
	}
	r := call(t, Read{}, world(t, map[string]string{"big.txt": b.String()}), `{"filePath":"big.txt"}`)
	if !r.Success || strings.Contains(r.Output, "output truncated") || utf8.RuneCountInString(r.Output) > maxOutputChars {
		t.Fatalf("%d characters, %.200q", utf8.RuneCountInString(r.Output), r.Output)
	}
	lines := strings.Split(r.Output, "\n")
	last := lines[len(lines)-1]
	n, err := strconv.Atoi(strings.TrimSpace(strings.SplitN(last, "\t", 2)[0]))
	if err != nil || !strings.HasSuffix(last, line) {
		t.Fatalf("the last line is not whole and numbered: %q", last)
	}
	if want := fmt.Sprintf("[File: big.txt (lines 1-%d of 2000; the output limit stops here: read on with offset %d)]", n, n+1); lines[0] != want {
		t.Errorf("header %q, want %q", lines[0], want)
	}
}

// A file that is one line of tens of megabytes is read in bounded memory:
// only the part of the line that is shown is kept.
func TestReadOfOneHugeLineKeepsOnlyWhatItShows(t *testing.T) {
	env := world(t, map[string]string{"one.txt": strings.Repeat("q", 32<<20)})
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	r := call(t, Read{}, env, `{"filePath":"one.txt"}`)
	runtime.ReadMemStats(&after)
	if !r.Success || !strings.Contains(r.Output, "line cut at 2000 characters of 33,554,432 bytes") {
		t.Fatalf("%.300q", r.Output)
	}
	if grew := after.TotalAlloc - before.TotalAlloc; grew > 4<<20 {
		t.Errorf("reading a 32 MB line allocated %d MB", grew>>20)
	}
}

// A file with CRLF line ends is edited with text quoted with LF ones, as
// models write it, and keeps CRLF line ends throughout.
func TestEditKeepsAFilesCRLFLineEnds(t *testing.T) {
	tests := []struct{ name, content, old, repl, want string }{
		{"LF text matches CRLF lines", "one\r\ntwo\r\nthree\r\n", "one\ntwo", "ONE\nTWO", "ONE\r\nTWO\r\nthree\r\n"},
		{"new lines get CRLF", "one\r\ntwo\r\nthree\r\n", "two", "two\nextra", "one\r\ntwo\r\nextra\r\nthree\r\n"},
		{"CRLF text as it is", "one\r\ntwo\r\n", "one\r\ntwo", "1\r\n2", "1\r\n2\r\n"},
		{"an LF file stays LF", "a\nb\n", "a", "x\ny", "x\ny\nb\n"},
		{"a mixed file: only the quoted lines' ends", "a\r\nb\nc\r\n", "a\nb", "A\nB", "A\r\nB\nc\r\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			env := world(t, map[string]string{"f.txt": tt.content})
			args, _ := json.Marshal(map[string]string{"filePath": "f.txt", "oldString": tt.old, "newString": tt.repl})
			if r := call(t, Edit{}, env, string(args)); !r.Success {
				t.Fatalf("%+v", r)
			}
			if got, _ := os.ReadFile(filepath.Join(env.Cwd, "f.txt")); string(got) != tt.want {
				t.Errorf("file = %q, want %q", got, tt.want)
			}
		})
	}
}

// Grep takes Claude Code's type, offset and -n as Claude-trained models
// send them, rather than dropping them and answering another question.
func TestGrepTakesClaudesTypeOffsetAndLineNumbers(t *testing.T) {
	env := world(t, map[string]string{"a.go": "foo\n", "doc.md": "foo one\nfoo two\nfoo three\n", "b.txt": "foo\n"})
	tests := []struct{ args, want string }{
		{`{"pattern":"foo","type":"md"}`, "doc.md"},
		{`{"pattern":"foo","type":"go"}`, "a.go"},
		{`{"pattern":"foo","outputMode":"content","type":"md","offset":1,"headLimit":1}`, "doc.md:2:foo two\n(+1 more results truncated by headLimit)"},
		{`{"pattern":"foo","outputMode":"content","type":"md","offset":9}`, "(no results past offset 9: 3 in all)"},
		{`{"pattern":"two","outputMode":"content","-n":false}`, "doc.md:foo two"},
	}
	for _, tt := range tests {
		if r := call(t, Grep{}, env, tt.args); !r.Success || r.Output != tt.want {
			t.Errorf("Grep %s = %+v, want %q", tt.args, r, tt.want)
		}
	}
	if r := call(t, Grep{}, env, `{"pattern":"foo","type":"nosuch"}`); r.Success || !strings.Contains(r.Error, "Unknown file type: nosuch") {
		t.Errorf("an unknown type: %+v", r)
	}
}

// run_in_background returns at once, the command running on with its
// output in a file, as a dev server must.
func TestBashRunInBackgroundReturnsAtOnce(t *testing.T) {
	env := world(t, nil)
	start := time.Now()
	r := call(t, Bash{}, env, `{"command":"echo started; sleep 2; echo finished","run_in_background":true}`)
	if camel := call(t, Bash{}, env, `{"command":"sleep 3","runInBackground":true}`); !strings.HasPrefix(camel.Output, "Running in the background") {
		t.Errorf("runInBackground: %+v", camel)
	}
	if !r.Success || time.Since(start) > 1500*time.Millisecond {
		t.Fatalf("after %v: %+v", time.Since(start), r)
	}
	var pid int
	var log string
	if _, err := fmt.Sscanf(r.Output, "Running in the background, pid %d. Its output goes to %s", &pid, &log); err != nil {
		t.Fatalf("%q: %v", r.Output, err)
	}
	if runtime.GOOS != "windows" && !strings.Contains(r.Output, "stop it with `kill -- -") {
		t.Errorf("the advice does not stop the process group: %q", r.Output)
	}
	log = strings.TrimSuffix(log, ":")
	t.Cleanup(func() { os.Remove(log) })
	deadline := time.Now().Add(10 * time.Second)
	for {
		got, _ := os.ReadFile(log)
		if string(got) == "started\nfinished\n" {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the background command's output: %q", got)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// A command that opens an editor ends at once rather than waiting for the
// time limit: there is no terminal for one.
func TestAnEditorACommandStartsEndsAtOnce(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("no git")
	}
	env := world(t, nil)
	// an editor that waits for its terminal as vim does, wherever vim is not
	waiter := filepath.Join(t.TempDir(), "wait-editor")
	if err := os.WriteFile(waiter, []byte("#!/bin/sh\nsleep 30\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("EDITOR", waiter)
	t.Setenv("GIT_EDITOR", waiter)
	start := time.Now()
	r := call(t, Bash{}, env, `{"command":"git init -q . && git -c user.name=a -c user.email=a@b commit --allow-empty; echo rc=$?","timeout":20000}`)
	if !r.Success || !strings.Contains(r.Output, "rc=1") || time.Since(start) > 10*time.Second {
		t.Fatalf("after %v: %+v", time.Since(start), r)
	}
}

// A symlink loop is called one, not a path outside the working directory.
func TestASymlinkLoopIsCalledOne(t *testing.T) {
	env := world(t, nil)
	if err := os.Symlink("loopb", filepath.Join(env.Cwd, "loopa")); err != nil {
		t.Skip(err)
	}
	if err := os.Symlink("loopa", filepath.Join(env.Cwd, "loopb")); err != nil {
		t.Fatal(err)
	}
	if r := call(t, Read{}, env, `{"filePath":"loopa"}`); r.Success || !strings.Contains(r.Error, "Too many levels of symbolic links") {
		t.Errorf("%+v", r)
	}
}

// Text copied from Read's output with its line numbers still matches.
func TestEditTakesTextCopiedWithReadsLineNumbers(t *testing.T) {
	env := world(t, map[string]string{"f.txt": "alpha\nbeta\ngamma\n"})
	r := call(t, Edit{}, env, `{"filePath":"f.txt","oldString":"2\tbeta\n3\tgamma","newString":"2\tBETA\n3\tGAMMA"}`)
	if got, _ := os.ReadFile(filepath.Join(env.Cwd, "f.txt")); !r.Success || string(got) != "alpha\nBETA\nGAMMA\n" {
		t.Errorf("%+v, file %q", r, got)
	}
	r = call(t, Edit{}, env, `{"filePath":"f.txt","oldString":"9\tnope","newString":"x"}`)
	if r.Success {
		t.Errorf("a numbered line the file does not hold matched: %+v", r)
	}
	// Tab-separated data that looks numbered is only ever its own text.
	for _, tt := range []struct{ file, old, repl string }{
		{"id\tyear\tqty\n1\t2020\t20\n2\t2021\t20\n", "4\t20", "4\t21"},           // no such line 4
		{"id\tname\tage\n1\tAlice\t30\n2\tBob\t25\n", "3\tBob\t25", "3\tBob\t26"}, // Bob is on line 3, row 2
		{"1\t2\t3\n4\t5\t6\n", "9\t5\t6", "0\t5\t6"},
		{"a\n2020\t5\nb\n", "2\t20", "2\t21"},            // a prefix of line 2 is no copy of it
		{"id\tyear\n1\t2020\n2\t2020\n", "3\t2", "3\t9"}, // nor of line 3
	} {
		env := world(t, map[string]string{"t.tsv": tt.file})
		for _, all := range []bool{false, true} {
			args, _ := json.Marshal(map[string]any{"filePath": "t.tsv", "oldString": tt.old, "newString": tt.repl, "replaceAll": all})
			r := call(t, Edit{}, env, string(args))
			if got, _ := os.ReadFile(filepath.Join(env.Cwd, "t.tsv")); r.Success || string(got) != tt.file {
				t.Errorf("%q -> %q (replaceAll %v) on %q: %+v, file %q", tt.old, tt.repl, all, tt.file, r, got)
			}
		}
	}
}

// Glob lists the files Read could open: a link to a file inside yes; a
// link to a folder, to nothing, to itself or out of the working
// directories no.
func TestGlobListsOnlyLinksToFilesItCouldRead(t *testing.T) {
	env := world(t, map[string]string{"real.txt": "x", "sub/f.txt": "y"})
	outside := t.TempDir()
	os.WriteFile(filepath.Join(outside, "secret.txt"), []byte("s"), 0o600)
	for link, target := range map[string]string{
		"good.lnk": "real.txt", "dir.lnk": "sub", "dangling.lnk": "nowhere", "loopa": "loopb", "loopb": "loopa",
		"out.lnk": filepath.Join(outside, "secret.txt"),
	} {
		if err := os.Symlink(target, filepath.Join(env.Cwd, link)); err != nil {
			t.Skip(err)
		}
	}
	r := call(t, Glob{}, env, `{"pattern":"*"}`)
	got := strings.Split(r.Output, "\n")
	slices.Sort(got)
	if want := []string{"good.lnk", "real.txt"}; !slices.Equal(got, want) {
		t.Errorf("Glob * = %q, want %q", got, want)
	}
}

// Edit refuses a binary file as Read does: the model cannot have seen it.
func TestEditRefusesABinaryFile(t *testing.T) {
	env := world(t, map[string]string{"img.png": "\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR"})
	r := call(t, Edit{}, env, `{"filePath":"img.png","oldString":"IHDR","newString":"IHDX"}`)
	if got, _ := os.ReadFile(filepath.Join(env.Cwd, "img.png")); r.Success || !strings.Contains(r.Error, "Binary file not supported") || !strings.Contains(string(got), "IHDR") {
		t.Errorf("%+v", r)
	}
}

// An editor the settings' env names is the one commands get.
func TestTheSettingsEditorStands(t *testing.T) {
	env := world(t, nil)
	env.Env = []string{"EDITOR=myed"}
	r := call(t, Bash{}, env, `{"command":"echo \"$EDITOR|${GIT_EDITOR-}|${VISUAL-}\""}`)
	if !r.Success || !strings.HasPrefix(r.Output, "myed|") || strings.Contains(r.Output, "true") {
		t.Errorf("%+v", r)
	}
}

// Context after a match on the last line shows no line past the end.
func TestGrepContextStopsAtTheLastLine(t *testing.T) {
	env := world(t, map[string]string{"f.txt": "a\nfoo\n"})
	r := call(t, Grep{}, env, `{"pattern":"foo","outputMode":"content","-C":1}`)
	if !r.Success || r.Output != "f.txt:1-a\nf.txt:2:foo" {
		t.Errorf("%q", r.Output)
	}
}
