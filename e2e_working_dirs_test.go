package main_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The file tools reach the session's folder and the folders Claude Code's
// permissions.additionalDirectories and --add-dir name, and nothing else:
// a path outside them all is refused with a hint naming both.
func TestFileToolsReachAdditionalDirectories(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	shared := filepath.Join(filepath.Dir(e.cwd), "shared-"+filepath.Base(e.cwd))
	extra := filepath.Join(filepath.Dir(e.cwd), "extra-"+filepath.Base(e.cwd))
	for _, d := range []string{shared, extra} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(d, "notes.txt"), []byte("note in "+filepath.Base(d)+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	e.writeFile(".claude/settings.json", `{"permissions": {"additionalDirectories": ["../`+filepath.Base(shared)+`", "./missing"]}}`)
	s := e.script(calls(
		call("Read", map[string]any{"file_path": "../" + filepath.Base(shared) + "/notes.txt"}),
		call("Write", map[string]any{"file_path": filepath.Join(extra, "out.txt"), "content": "o"}),
		call("Grep", map[string]any{"pattern": "note", "path": shared}),
		call("Read", map[string]any{"file_path": "/etc/hostname"}),
	), answer("done"))
	r := e.must("", "run", "--dangerously-skip-permissions", "--add-dir", extra, "--provider", "script", "--script", s, "go")
	if r.stderr != "" {
		t.Errorf("a folder of the settings missing here is left out quietly: %s", r)
	}
	if r := e.run("", "run", "--add-dir", "nope", "--provider", "echo", "hi"); r.code != 2 || !strings.Contains(r.stderr, `--add-dir "nope" is not a folder`) {
		t.Errorf("--add-dir of no folder: %s", r)
	}
	id := e.onlySession()
	res := e.toolResults(id)
	if out := res["call_0_0"]; out["success"] != true || !strings.Contains(out["output"].(string), "note in shared-") {
		t.Errorf("Read in additionalDirectories: %v", out)
	}
	if b, err := os.ReadFile(filepath.Join(extra, "out.txt")); err != nil || string(b) != "o" || res["call_0_1"]["success"] != true {
		t.Errorf("Write in --add-dir: %v, %v", res["call_0_1"], err)
	}
	if out := res["call_0_2"]; out["success"] != true || !strings.Contains(out["output"].(string), "notes.txt") {
		t.Errorf("Grep in additionalDirectories: %v", out)
	}
	if out := res["call_0_3"]; out["success"] != false || !strings.Contains(out["error"].(string), "outside the working directories (the session's folder; --add-dir or permissions.additionalDirectories add others)") {
		t.Errorf("a path outside them all: %v", out)
	}
	// Without the flag, the folder it named is out of reach again.
	r = e.must("", "run", "-o", "json", "--dangerously-skip-permissions", "--provider", "script", "--script",
		e.script(calls(call("Read", map[string]any{"file_path": filepath.Join(extra, "notes.txt")})), answer("done")), "go")
	if out := e.toolResults(jsonResult(t, r)["session_id"].(string))["call_0_0"]; out["success"] != false {
		t.Errorf("--add-dir outlived its step: %v", out)
	}
}

// A session started through a symlinked path is the folder's session from
// its real path too (and the other way round): --last and list --here
// compare folders, not spellings.
func TestLastAndHereSeeThroughSymlinks(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	link := filepath.Join(t.TempDir(), "link")
	if err := os.Symlink(e.cwd, link); err != nil {
		t.Skip("no symlinks here:", err)
	}
	c := e.cmd("run", "--provider", "echo", "--name", "via-link", "from the link")
	c.Dir, c.Env = link, append(c.Env, "PWD="+link) // as a shell that cd'd through the link says
	if out, err := c.CombinedOutput(); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	if rec := e.record(e.onlySession()); rec["cwd"] != link {
		t.Fatalf("the session's cwd is %v, want the link's spelling", rec["cwd"])
	}
	if r := e.must("", "resume", "--last", "--provider", "echo", "again"); r.stdout != "echo: again\n" {
		t.Fatalf("resume --last from the real path: %s", r)
	}
	if r := e.must("", "list", "--here", "--json"); !strings.Contains(r.stdout, "via-link") {
		t.Errorf("list --here from the real path: %s", r)
	}
}

// Errors that point at the right thing: a home that is a file, a
// --settings that is a device, a --dir that is not there.
func TestErrorsNameWhatIsWrong(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	file := e.writeFile("not-a-folder", "x")
	r := e.run("", "--home", file, "run", "--provider", "echo", "hi")
	if r.code != 2 || !strings.Contains(r.stderr, `trail's home "`+file+`" is not a folder`) {
		t.Errorf("a home that is a file: %s", r)
	}
	if r := e.run("", "--settings", os.DevNull, "run", "--provider", "echo", "hi"); r.code != 7 || !strings.Contains(r.stderr, "hint: --settings takes a regular JSON file") {
		t.Errorf("--settings /dev/null: %s", r)
	}
	if r := e.run("", "migrate-history", "--dir", "missing"); r.code != 3 || !strings.Contains(r.stderr, "not found") {
		t.Errorf("migrate-history --dir missing: %s", r)
	}
}
