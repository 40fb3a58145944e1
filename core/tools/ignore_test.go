package tools

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestIgnoreRules: one ignore file at /r, the examples of gitignore(5)
// first, then the corners of its pattern format.
func TestIgnoreRules(t *testing.T) {
	tests := []struct {
		rules string
		path  string
		dir   bool
		want  bool
	}{
		// gitignore(5), PATTERN FORMAT and EXAMPLES
		{"hello.*", "hello.txt", false, true},
		{"hello.*", "a/hello.java", false, true},
		{"/hello.*", "hello.c", false, true},
		{"/hello.*", "a/hello.java", false, false},
		{"foo/", "foo", true, true},
		{"foo/", "foo", false, false},
		{"foo/", "a/foo", true, true},
		{"doc/frotz", "doc/frotz", false, true},
		{"/doc/frotz", "doc/frotz", false, true},
		{"doc/frotz", "a/doc/frotz", false, false},
		{"doc/frotz/", "doc/frotz", true, true},
		{"doc/frotz/", "a/doc/frotz", true, false},
		{"frotz/", "a/frotz", true, true},
		{"foo/*", "foo/test.json", false, true},
		{"foo/*", "foo/bar", true, true},
		{"foo/*", "foo/bar/hello.c", false, false},
		{"**/foo", "foo", false, true},
		{"**/foo", "a/b/foo", true, true},
		{"**/foo/bar", "x/foo/bar", false, true},
		{"**/foo/bar", "foo/x/bar", false, false},
		{"abc/**", "abc/x", false, true},
		{"abc/**", "abc/x/y", false, true},
		{"abc/**", "abc", true, false},
		{"a/**/b", "a/b", false, true},
		{"a/**/b", "a/x/b", false, true},
		{"a/**/b", "a/x/y/b", false, true},
		{"a/**/b", "a/x/y/c", false, false},
		{"/*\n!/foo\n/foo/*\n!/foo/bar", "x", false, true},
		{"/*\n!/foo\n/foo/*\n!/foo/bar", "foo", true, false},
		{"/*\n!/foo\n/foo/*\n!/foo/bar", "foo/y", false, true},
		{"/*\n!/foo\n/foo/*\n!/foo/bar", "foo/bar", true, false},
		{"*.[oa]", "lib.a", false, true},
		{"*.[oa]", "src/internal.o", false, true},
		{"*.[oa]", "main.c", false, false},
		{"*.html\n!foo.html", "Documentation/foo.html", false, false},
		{"*.html\n!foo.html", "Documentation/gitignore.html", false, true},
		{`\#foo`, "#foo", false, true},
		{"#foo", "#foo", false, false},
		{`\!important!.txt`, "!important!.txt", false, true},
		{"foo   ", "foo", false, true},
		{`foo\ `, "foo ", false, true},
		{`foo\ `, "foo", false, false},
		// the last matching rule wins
		{"*.log\n!keep.log", "keep.log", false, false},
		{"!keep.log\n*.log", "keep.log", false, true},
		// wildcards
		{"*", "anything/at/all", false, true},
		{"**", "a/b", false, true},
		{"x/a?c", "x/abc", false, true},
		{"x/a?c", "x/a/c", false, false},
		{"x/a*c", "x/a/c", false, false},
		{"[[:digit:]]*.log", "1.log", false, true},
		{"[[:digit:]]*.log", "a.log", false, false},
		{"[!a-c]x", "dx", false, true},
		{"[!a-c]x", "bx", false, false},
		{"[^a-c]x", "bx", false, false},
		{"[]]x", "]x", false, true},
		{"[a-]x", "-x", false, true},
		{"x/[a/]b", "x/a/b", false, false},
		{"x/[!a]b", "x//b", false, false},
		{`\[x\]`, "[x]", false, true},
		{`\*`, "*", false, true},
		{`\*`, "a", false, false},
		{"[abc", "[abc", false, true},
		{"[[:nope:]]x", "ax", false, false},
		{`trailing\`, "trailing", false, false},
		{"**/", "any/dir", true, true},
		{"***/foo", "a/b/foo", false, true},
		{"a/**b", "a/xb", false, true},
		{"a/**b", "a/x/b", false, false},
		{"[%-0]x", "-x", false, true},
		{"*\n!**/", "foo", true, false},
		{"s*.rs", "src/foo.rs", false, false},
		{"path1/*", "path2/path1/foo", false, false},
		// file format
		{"build\r\n", "build", true, true},
		{"\uFEFFbuild", "build", true, true},
		{"\n\n# only a comment\n", "foo", false, false},
		{"/", "foo", false, false},
		{"!", "foo", false, false},
		{"   ", "foo", false, false},
		{"\t", "foo", false, false},
		{"*.html", "foo.HTML", false, false},
		{"dépôt/", "dépôt", true, true},
		{"[é]x", "éx", false, true},
	}
	for _, tt := range tests {
		rules := parseIgnore(tt.rules)
		m, ign := matchRules(rules, "/r", "/r/"+tt.path, filepath.Base(tt.path), tt.dir)
		if got := m && ign; got != tt.want {
			t.Errorf("%q against %q (dir %v) ignored = %v, want %v", tt.rules, tt.path, tt.dir, got, tt.want)
		}
	}
}

// tree writes files (a name ending in "/" is a folder) under a fresh dir.
func tree(t *testing.T, files map[string]string) string {
	t.Helper()
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	for name, content := range files {
		p := filepath.Join(dir, name)
		if strings.HasSuffix(name, "/") {
			os.MkdirAll(p, 0o755)
			continue
		}
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func globOut(t *testing.T, cwd, args string) string {
	t.Helper()
	r := call(t, Glob{}, envAt(cwd), args)
	if !r.Success {
		t.Fatalf("Glob %s: %+v", args, r)
	}
	return r.Output
}

func envAt(cwd string) Env { return Env{Cwd: cwd} }

// sorted output lines, for results whose order is by mtime.
func lines(s string) string {
	l := strings.Split(s, "\n")
	for i := 1; i < len(l); i++ {
		for j := i; j > 0 && l[j] < l[j-1]; j-- {
			l[j], l[j-1] = l[j-1], l[j]
		}
	}
	return strings.Join(l, "\n")
}

func TestSearchesHonourIgnoreFilesLikeRipgrep(t *testing.T) {
	repo := map[string]string{
		".git/HEAD":                     "ref: refs/heads/main\n",
		".git/info/exclude":             "*.tmp\n",
		".gitignore":                    "build/\n*.log\n!keep.log\n/vendor\n",
		"src/a.go":                      "x",
		"src/.gitignore":                "gen/\n!b.log\n",
		"src/gen/g.go":                  "x",
		"src/b.log":                     "x",
		"src/c.log":                     "x",
		"build/out.go":                  "x",
		"keep.log":                      "x",
		"vendor/v.go":                   "x",
		"lib/vendor/v.go":               "x",
		"scratch.tmp":                   "x",
		".ignore":                       "!build/\nsecret/\n",
		"secret/s.go":                   "x",
		"nested/.git/HEAD":              "x",
		"nested/n.log":                  "x",
		"node_modules/m.go":             "x",
		"arch/foo/kernel/vmlinux.lds.S": "x",
		"arch/foo/kernel/.gitignore":    "!/vmlinux*\n",
		"arch/foo/vmlinux.o":            "x",
		"arch/.gitignore":               "vmlinux*\n",
	}
	dir := tree(t, repo)
	got := lines(globOut(t, dir, `{"pattern":"**/*"}`))
	want := lines(strings.Join([]string{
		".gitignore", ".ignore", "src/a.go", "src/.gitignore", "src/b.log",
		"build/out.go", // .ignore's !build/ beats .gitignore's build/
		"keep.log",
		"lib/vendor/v.go", // /vendor is anchored to the top
		"nested/n.log",    // a nested repository: the parent's *.log stops at its top
		"arch/.gitignore", "arch/foo/kernel/.gitignore", "arch/foo/kernel/vmlinux.lds.S",
	}, "\n"))
	if got != want {
		t.Errorf("Glob **/* =\n%s\nwant\n%s", got, want)
	}
	all := lines(globOut(t, dir, `{"pattern":"**/*","noIgnore":true}`))
	for _, f := range []string{"src/gen/g.go", "src/c.log", "vendor/v.go", "scratch.tmp", "secret/s.go", "arch/foo/vmlinux.o"} {
		if !strings.Contains("\n"+all+"\n", "\n"+f+"\n") {
			t.Errorf("noIgnore: %s missing from\n%s", f, all)
		}
	}
	if strings.Contains(all, "node_modules") || strings.Contains(all, ".git/") {
		t.Errorf("noIgnore entered .git or node_modules:\n%s", all)
	}
}

func TestGitignoreNeedsARepositoryButIgnoreDoesNot(t *testing.T) {
	dir := tree(t, map[string]string{".gitignore": "*.log\n", ".ignore": "*.tmp\n", "a.log": "x", "b.tmp": "x", "c.go": "x"})
	if got := lines(globOut(t, dir, `{"pattern":"*.*"}`)); got != ".gitignore\n.ignore\na.log\nc.go" {
		t.Errorf("outside a repository: %q", got)
	}
	os.Mkdir(filepath.Join(dir, ".git"), 0o755)
	if got := lines(globOut(t, dir, `{"pattern":"*.*"}`)); got != ".gitignore\n.ignore\nc.go" {
		t.Errorf("inside a repository: %q", got)
	}
}

// Ignore files of the folders above the search folder apply, with paths
// relative to where they are; the search folder itself is searched even
// when ignored, as a folder named to ripgrep is.
func TestIgnoreFilesAboveTheSearchFolderApply(t *testing.T) {
	dir := tree(t, map[string]string{
		".git/HEAD": "x", ".gitignore": "/pkg/gen/\nbuild/\n",
		"pkg/a.go": "package a", "pkg/gen/z.go": "package a", "build/b.go": "package a",
	})
	if got := globOut(t, dir, `{"pattern":"*.go","path":"pkg/gen"}`); got != "pkg/gen/z.go" {
		t.Errorf("Glob in the ignored folder itself: %q", got)
	}
	if got := lines(globOut(t, dir, `{"pattern":"**/*.go","path":"pkg"}`)); got != "pkg/a.go" {
		t.Errorf("Glob below: %q", got)
	}
	// A pattern whose fixed prefix leads into an ignored folder finds nothing.
	if got := globOut(t, dir, `{"pattern":"build/**/*.go"}`); !strings.HasPrefix(got, "(no matches) (.gitignore or .ignore rules skipped some paths; set noIgnore") {
		t.Errorf("Glob through an ignored prefix: %q", got)
	}
	if got := globOut(t, dir, `{"pattern":"build/**/*.go","noIgnore":true}`); got != "build/b.go" {
		t.Errorf("Glob through an ignored prefix with noIgnore: %q", got)
	}
	r := call(t, Grep{}, envAt(filepath.Join(dir, "pkg")), `{"pattern":"package"}`)
	if r.Output != "a.go" {
		t.Errorf("Grep from a sub-folder cwd: %+v", r)
	}
}

func TestGrepSkipsIgnoredBuildOutputUnlessNoIgnore(t *testing.T) {
	dir := tree(t, map[string]string{".git/HEAD": "x", ".gitignore": "build/\n", "main.go": "TODO: main", "build/main.gen.go": "TODO: generated"})
	r := call(t, Grep{}, envAt(dir), `{"pattern":"TODO"}`)
	if r.Output != "main.go" {
		t.Errorf("Grep: %+v", r)
	}
	r = call(t, Grep{}, envAt(dir), `{"pattern":"TODO","noIgnore":true}`)
	if r.Output != "build/main.gen.go\nmain.go" {
		t.Errorf("Grep noIgnore: %+v", r)
	}
	r = call(t, Grep{}, envAt(dir), `{"pattern":"generated"}`)
	if r.Output != "(no matches)"+noIgnoreHint {
		t.Errorf("Grep with a hit only in ignored files: %+v", r)
	}
	r = call(t, Grep{}, envAt(dir), `{"pattern":"generated","path":"build/main.gen.go"}`)
	if r.Output != "build/main.gen.go" {
		t.Errorf("Grep of an ignored file named by path: %+v", r)
	}
}

func TestAnIgnoreFileThatIsAFIFODoesNotHang(t *testing.T) {
	dir := tree(t, map[string]string{"a.go": "x"})
	if err := mkfifo(filepath.Join(dir, ".gitignore")); err != nil {
		t.Skip("no FIFOs here:", err)
	}
	os.Mkdir(filepath.Join(dir, ".git"), 0o755)
	if got := globOut(t, dir, `{"pattern":"*.go"}`); got != "a.go" {
		t.Errorf("got %q", got)
	}
}

// FuzzIgnoreRules: any ignore file and any path compile and match without
// a panic, and one match stays far below a walk's budget.
func FuzzIgnoreRules(f *testing.F) {
	f.Add("build/\n*.log\n!keep.log\n", "src/keep.log", false)
	f.Add("/*\n!/foo\n/foo/*\n!/foo/bar", "foo/bar", true)
	f.Add("[[:alpha:]-z]\\ \n\\!x\n[!]]\n[\\", "a/b/c", false)
	f.Add("   \n! \n/ \n\\", "a", true)
	f.Add(strings.Repeat("**/a/", 30)+"b", strings.Repeat("a/", 200)+"c", false)
	f.Fuzz(func(t *testing.T, rules, rel string, isDir bool) {
		compiled := parseIgnore(rules)
		start := time.Now()
		matchRules(compiled, "/r", "/r/"+rel, filepath.Base(rel), isDir)
		if d := time.Since(start); d > 100*time.Millisecond && len(compiled) < 100 {
			t.Fatalf("%d rules against a %d-byte path took %v", len(compiled), len(rel), d)
		}
	})
}
