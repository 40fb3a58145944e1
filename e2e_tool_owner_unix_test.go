//go:build unix

package main_test

import (
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// nobody is the user the permission checks of these tests run as when
// the tests run as root (as they do in containers): root may write any
// file, so only another user shows what a read-only file means.
const nobody = 65534

// ownedTree is a world-traversable folder for a step run as another user:
// a copy of the binary, a home, and a project.
type ownedTree struct {
	root, bin, home, proj string
	uid                   int
}

func newOwnedTree(t *testing.T) *ownedTree {
	t.Helper()
	base := "" // the tests' own temp folder
	if os.Getuid() == 0 {
		base = "/tmp" // the tests' folder is root's alone; nobody must reach this one
	}
	root, err := os.MkdirTemp(base, "trail-owner-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(root) })
	o := &ownedTree{root: root, bin: filepath.Join(root, "trail"), home: filepath.Join(root, "home"), proj: filepath.Join(root, "proj"), uid: os.Getuid()}
	if o.uid == 0 {
		o.uid = nobody
	}
	for _, d := range []string{o.home, o.proj} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	src, err := os.Open(trailBin)
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	dst, err := os.OpenFile(o.bin, os.O_CREATE|os.O_WRONLY, 0o755)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.Copy(dst, src); err != nil {
		t.Fatal(err)
	}
	dst.Close()
	if err := os.Chmod(root, 0o755); err != nil {
		t.Fatal(err)
	}
	o.chown(t, o.home, o.proj)
	return o
}

func (o *ownedTree) chown(t *testing.T, paths ...string) {
	t.Helper()
	if os.Getuid() != 0 {
		return
	}
	for _, p := range paths {
		if err := os.Chown(p, o.uid, o.uid); err != nil {
			t.Fatal(err)
		}
	}
}

func (o *ownedTree) write(t *testing.T, rel, content string, mode os.FileMode) string {
	t.Helper()
	p := filepath.Join(o.proj, rel)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	o.chown(t, filepath.Dir(p), p)
	if err := os.Chmod(p, mode); err != nil {
		t.Fatal(err)
	}
	return p
}

// run runs one scripted step in the project as the tree's user.
func (o *ownedTree) run(t *testing.T, script string) {
	t.Helper()
	sp := filepath.Join(o.root, "script.json")
	if err := os.WriteFile(sp, []byte(script), 0o644); err != nil {
		t.Fatal(err)
	}
	c := exec.Command(o.bin, "run", "--provider", "script", "--script", sp, "--no-stdin", "--permission-mode", "bypassPermissions", "-o", "json", "go")
	c.Dir = o.proj
	c.Env = []string{"HOME=" + o.home, "TRAIL_HOME=" + filepath.Join(o.home, "trail"), "PATH=" + os.Getenv("PATH")}
	if os.Getuid() == 0 {
		c.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: uint32(o.uid), Gid: uint32(o.uid)}}
	}
	out, err := c.CombinedOutput()
	for try := 0; errors.Is(err, syscall.ETXTBSY) && try < 20; try++ {
		// The copy was just written: a child another parallel test forked
		// in that moment holds its write descriptor until it execs (Go
		// issue 22315). Waiting lets it go.
		time.Sleep(50 * time.Millisecond)
		c = &exec.Cmd{Path: c.Path, Args: c.Args, Dir: c.Dir, Env: c.Env, SysProcAttr: c.SysProcAttr}
		out, err = c.CombinedOutput()
	}
	if err != nil {
		t.Fatalf("trail run: %v\n%s", err, out)
	}
}

// Edit and Write honour a read-only file, and write a file they may write
// whose folder takes no new file; the model is told which file.
func TestEditAndWriteHonourFilePermissions(t *testing.T) {
	t.Parallel()
	o := newOwnedTree(t)
	ro := o.write(t, "ro.txt", "ro content\n", 0o444)
	ro2 := o.write(t, "ro2.txt", "keep\n", 0o444)
	locked := o.write(t, "locked/f.txt", "old\n", 0o666)
	if err := os.Chmod(filepath.Dir(locked), 0o555); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.Chmod(filepath.Dir(locked), 0o755) })
	o.run(t, `[{"toolCalls":[{"name":"Read","arguments":{"filePath":"ro2.txt"}}]},{"toolCalls":[{"name":"Edit","arguments":{"filePath":"ro.txt","oldString":"ro content","newString":"changed"}},
		{"name":"Write","arguments":{"filePath":"ro2.txt","content":"overwritten\n"}},
		{"name":"Edit","arguments":{"filePath":"locked/f.txt","oldString":"old","newString":"new"}}]},{"text":"done"}]`)
	for p, want := range map[string]string{ro: "ro content\n", ro2: "keep\n", locked: "new\n"} {
		if got, _ := os.ReadFile(p); string(got) != want {
			t.Errorf("%s = %q, want %q", filepath.Base(p), got, want)
		}
	}
	records, _ := filepath.Glob(filepath.Join(o.home, "trail", "sessions", "*.json"))
	if len(records) != 1 {
		t.Fatalf("records: %v", records)
	}
	rec, _ := os.ReadFile(records[0])
	if !strings.Contains(string(rec), "ro.txt: permission denied") || !strings.Contains(string(rec), "ro2.txt: permission denied") || strings.Contains(string(rec), ".tmp-") {
		t.Errorf("the two refusals do not say permission denied, or a result names a temp file:\n%s", rec)
	}
}

// An edited file stays the same file: its hard links see the change, and
// a file of another owner keeps that owner (root editing a bind-mounted
// project must not leave root's files behind).
func TestEditKeepsHardLinksAndOwners(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	a := e.writeFile("a.txt", "shared\n")
	if err := os.Link(a, filepath.Join(e.cwd, "b.txt")); err != nil {
		t.Fatal(err)
	}
	owned := e.writeFile("owned.txt", "owned\n")
	w := e.writeFile("w.txt", "w\n")
	asRoot := os.Getuid() == 0
	if asRoot {
		for _, p := range []string{owned, w} {
			if err := os.Chown(p, 1234, 1234); err != nil {
				t.Fatal(err)
			}
		}
	}
	s := e.script(calls(call("Read", map[string]any{"filePath": "w.txt"})), calls(
		call("Edit", map[string]any{"filePath": "a.txt", "oldString": "shared", "newString": "edited"}),
		call("Edit", map[string]any{"filePath": "owned.txt", "oldString": "owned", "newString": "edited"}),
		call("Write", map[string]any{"filePath": "w.txt", "content": "written\n"})), answer("done"))
	e.must("", "run", "--provider", "script", "--script", s, "--permission-mode", "acceptEdits", "go")
	if got := e.read("b.txt"); got != "edited\n" {
		t.Errorf("the hard link b.txt = %q: the edit split the link", got)
	}
	if !asRoot {
		return
	}
	for _, p := range []string{owned, w} {
		fi, err := os.Stat(p)
		if err != nil {
			t.Fatal(err)
		}
		if st := fi.Sys().(*syscall.Stat_t); st.Uid != 1234 || st.Gid != 1234 {
			t.Errorf("%s is owned by %d:%d, want 1234:1234 kept", filepath.Base(p), st.Uid, st.Gid)
		}
	}
	if e.read("owned.txt") != "edited\n" || e.read("w.txt") != "written\n" {
		t.Errorf("owned.txt %q, w.txt %q", e.read("owned.txt"), e.read("w.txt"))
	}
}

// A Grep says which files and folders it could not read: a miss there is
// no miss.
func TestGrepNamesWhatItCouldNotRead(t *testing.T) {
	t.Parallel()
	o := newOwnedTree(t)
	o.write(t, "src/ok.go", "// TODO one\n", 0o644)
	o.write(t, "src/locked.go", "// TODO two\n", 0o000)
	o.write(t, "src/lockdir/z.go", "// TODO three\n", 0o644)
	if err := os.Chmod(filepath.Join(o.proj, "src", "lockdir"), 0o000); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.Chmod(filepath.Join(o.proj, "src", "lockdir"), 0o755) })
	o.run(t, `[{"toolCalls":[{"name":"Grep","arguments":{"pattern":"TODO"}},{"name":"Grep","arguments":{"pattern":"TODO","path":"src/lockdir"}}]},{"text":"done"}]`)
	records, _ := filepath.Glob(filepath.Join(o.home, "trail", "sessions", "*.json"))
	if len(records) != 1 {
		t.Fatalf("records: %v", records)
	}
	rec, _ := os.ReadFile(records[0])
	if !strings.Contains(string(rec), "(2 paths could not be read, so not searched: src/locked.go, src/lockdir/)") || !strings.Contains(string(rec), "src/lockdir: permission denied") {
		t.Errorf("the Grep result does not name what it could not read:\n%s", rec)
	}
}
