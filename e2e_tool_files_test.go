package main_test

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// tempFilesIn lists the names under dir that look like a tool's temp file.
func tempFilesIn(t *testing.T, dir string) []string {
	t.Helper()
	var found []string
	filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err == nil && strings.Contains(d.Name(), ".tmp-") {
			found = append(found, p)
		}
		return nil
	})
	return found
}

func TestWriteThroughASymlinkKeepsTheLinkAndTheMode(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	real := e.writeFile("real.txt", "#!/bin/sh\necho old\n")
	if err := os.Chmod(real, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("real.txt", filepath.Join(e.cwd, "link.txt")); err != nil {
		t.Fatal(err)
	}
	s := e.script(calls(call("Read", map[string]any{"filePath": "link.txt"})),
		calls(call("Write", map[string]any{"filePath": "link.txt", "content": "#!/bin/sh\necho new\n"})), answer("done"))
	e.must("", "run", "--provider", "script", "--script", s, "--permission-mode", "acceptEdits", "go")
	fi, err := os.Lstat(filepath.Join(e.cwd, "link.txt"))
	if err != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Fatalf("link.txt is no longer a symlink: %v %v", fi, err)
	}
	if got := e.read("real.txt"); got != "#!/bin/sh\necho new\n" {
		t.Errorf("real.txt = %q", got)
	}
	if fi, _ := os.Stat(real); fi.Mode().Perm() != 0o755 {
		t.Errorf("real.txt mode %v, want 0755 kept", fi.Mode().Perm())
	}
	id := e.onlySession()
	if res := e.toolResults(id)["call_1_0"]; res["success"] != true {
		t.Errorf("Write result = %v", res)
	}
	if left := tempFilesIn(t, e.cwd); left != nil {
		t.Errorf("temp files left in the project: %v", left)
	}
	if _, err := os.Lstat(filepath.Join(e.home, "sessions", id+".tmpfiles")); err == nil {
		t.Error("the temp-file journal outlived the step")
	}
}

func TestWriteRefusesADanglingSymlinkAndKeepsIt(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	os.Symlink("missing.txt", filepath.Join(e.cwd, "link.txt"))
	s := e.script(calls(call("Write", map[string]any{"filePath": "link.txt", "content": "x"})), answer("done"))
	e.must("", "run", "--provider", "script", "--script", s, "--permission-mode", "acceptEdits", "go")
	res := e.toolResults(e.onlySession())["call_0_0"]
	if res["success"] != false || !strings.Contains(res["error"].(string), "link.txt is a symbolic link to missing.txt, which does not exist") {
		t.Errorf("Write result = %v", res)
	}
	if fi, err := os.Lstat(filepath.Join(e.cwd, "link.txt")); err != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Errorf("link.txt replaced: %v %v", fi, err)
	}
	if e.exists("missing.txt") {
		t.Error("the link's target was created")
	}
}

// A SIGKILL between a Write's temp file and its rename cannot be timed, so
// the test plants what such a kill leaves: the journal line and the temp
// file. The next step that takes the lock removes that file, and only it.
func TestTheNextStepRemovesATempFileAKilledWriteLeft(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	s := e.script(answer("first"), answer("second"))
	e.must("", "run", "--provider", "script", "--script", s, "go")
	id := e.onlySession()
	cwd, err := filepath.EvalSymlinks(e.cwd)
	if err != nil {
		t.Fatal(err)
	}
	leftover := e.writeFile("src/.out.txt.tmp-3141592653", "half a file")
	unlisted := e.writeFile("src/.out.txt.tmp-2718281828", "the user's own")
	user := e.writeFile("src/out.txt", "the user's file")
	var journal strings.Builder
	for _, p := range []string{filepath.Join(cwd, "src", ".out.txt.tmp-3141592653"), filepath.Join(cwd, "src", "out.txt")} {
		b, _ := json.Marshal(p)
		journal.Write(append(b, '\n'))
	}
	jp := filepath.Join(e.home, "sessions", id+".tmpfiles")
	if err := os.WriteFile(jp, []byte(journal.String()), 0o600); err != nil {
		t.Fatal(err)
	}
	e.must("", "resume", id, "--provider", "script", "--script", s, "go on")
	if _, err := os.Lstat(leftover); err == nil {
		t.Error("the journaled temp file is still in the project")
	}
	for _, p := range []string{unlisted, user} {
		if _, err := os.Lstat(p); err != nil {
			t.Errorf("%s removed: %v", p, err)
		}
	}
	if _, err := os.Lstat(jp); err == nil {
		t.Error("the journal is still there")
	}
}

func TestASymlinkedTempJournalIsRefusedNotFollowed(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	s := e.script(answer("first"), answer("second"))
	e.must("", "run", "--provider", "script", "--script", s, "go")
	id := e.onlySession()
	victim := e.writeFile(filepath.Join(e.user, "victim"), "keep me\n")
	jp := filepath.Join(e.home, "sessions", id+".tmpfiles")
	os.Symlink(victim, jp)
	r := e.run("", "resume", id, "--provider", "script", "--script", s, "go on")
	if r.code != 7 || !strings.Contains(r.stderr, jp) || !strings.Contains(r.stderr, "symlink") {
		t.Errorf("resume with a symlinked journal: %s", r)
	}
	if b, _ := os.ReadFile(victim); string(b) != "keep me\n" {
		t.Errorf("the link's target changed: %q", b)
	}
}

func TestGrepAndGlobSkipWhatGitignoreIgnoresUnlessNoIgnore(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	os.MkdirAll(filepath.Join(e.cwd, ".git"), 0o755)
	e.writeFile(".gitignore", "build/\n")
	e.writeFile("main.go", "// TODO: ship\n")
	e.writeFile("build/gen.go", "// TODO: generated\n")
	s := e.script(calls(
		call("Grep", map[string]any{"pattern": "TODO", "glob": "*.go"}),
		call("Grep", map[string]any{"pattern": "TODO", "glob": "*.go", "noIgnore": true}),
		call("Glob", map[string]any{"pattern": "**/*.go"}),
		call("Glob", map[string]any{"pattern": "build/*.go", "noIgnore": true}),
	), answer("done"))
	e.must("", "run", "--provider", "script", "--script", s, "go")
	res := e.toolResults(e.onlySession())
	for id, want := range map[string]string{
		"call_0_0": "main.go",
		"call_0_1": "build/gen.go\nmain.go",
		"call_0_2": "main.go",
		"call_0_3": "build/gen.go",
	} {
		if got := res[id]["output"]; got != want {
			t.Errorf("%s output = %q, want %q", id, got, want)
		}
	}
	inits := e.events(e.onlySession(), "session_init")
	if len(inits) == 0 || !strings.Contains(fmt.Sprint(inits[0]["toolSchemas"]), "noIgnore") {
		t.Errorf("the tool schemas offered do not name noIgnore: %v", inits)
	}
}

func TestDeleteRemovesATempFileAKilledWriteLeft(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.must("", "run", "--provider", "echo", "go")
	id := e.onlySession()
	cwd, _ := filepath.EvalSymlinks(e.cwd)
	leftover := e.writeFile(".out.txt.tmp-42", "half a file")
	b, _ := json.Marshal(filepath.Join(cwd, ".out.txt.tmp-42"))
	jp := filepath.Join(e.home, "sessions", id+".tmpfiles")
	os.WriteFile(jp, append(b, '\n'), 0o600)
	e.must("", "delete", id, "--yes")
	for _, p := range []string{leftover, jp} {
		if _, err := os.Lstat(p); err == nil {
			t.Errorf("%s left after delete", p)
		}
	}
}
