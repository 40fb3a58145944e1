package tools

import (
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// lstatMode is the mode of name in dir, the link itself when it is one.
func lstatMode(t *testing.T, dir, name string) os.FileMode {
	t.Helper()
	fi, err := os.Lstat(filepath.Join(dir, name))
	if err != nil {
		t.Fatal(err)
	}
	return fi.Mode()
}

func readString(t *testing.T, p string) string {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestWriteAndEditGoThroughASymlinkAndKeepIt(t *testing.T) {
	for _, tt := range []struct {
		name       string
		tool       Tool
		args, want string
	}{
		{"Write", Write{}, `{"filePath":"link.sh","content":"#!/bin/sh\necho new\n"}`, "#!/bin/sh\necho new\n"},
		{"Edit", Edit{}, `{"filePath":"link.sh","oldString":"old","newString":"new"}`, "#!/bin/sh\necho new\n"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			env := world(t, map[string]string{"bin/real.sh": "#!/bin/sh\necho old\n"})
			real := filepath.Join(env.Cwd, "bin/real.sh")
			if err := os.Chmod(real, 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.Symlink("bin/real.sh", filepath.Join(env.Cwd, "link.sh")); err != nil {
				t.Fatal(err)
			}
			if r := call(t, tt.tool, env, tt.args); !r.Success {
				t.Fatalf("%+v", r)
			}
			if m := lstatMode(t, env.Cwd, "link.sh"); m&os.ModeSymlink == 0 {
				t.Errorf("link.sh became %v, want it still a symlink", m)
			}
			if got := readString(t, real); got != tt.want {
				t.Errorf("bin/real.sh = %q, want %q", got, tt.want)
			}
			if m := lstatMode(t, env.Cwd, "bin/real.sh"); m.Perm() != 0o755 {
				t.Errorf("bin/real.sh mode %v, want 0755 kept", m.Perm())
			}
			for _, dir := range []string{env.Cwd, filepath.Join(env.Cwd, "bin")} {
				ents, _ := os.ReadDir(dir)
				for _, e := range ents {
					if strings.Contains(e.Name(), ".tmp-") {
						t.Errorf("temp file left: %s", e.Name())
					}
				}
			}
		})
	}
}

func TestWriteThroughALinkToAFolderAndAChainOfLinks(t *testing.T) {
	env := world(t, map[string]string{"real/f.txt": "old", "g.txt": "old"})
	os.Symlink("real", filepath.Join(env.Cwd, "dirlink"))
	os.Symlink("g.txt", filepath.Join(env.Cwd, "l1"))
	os.Symlink("l1", filepath.Join(env.Cwd, "l2"))
	if r := call(t, Write{}, env, `{"filePath":"dirlink/f.txt","content":"via folder"}`); !r.Success {
		t.Fatalf("%+v", r)
	}
	if got := readString(t, filepath.Join(env.Cwd, "real/f.txt")); got != "via folder" {
		t.Errorf("real/f.txt = %q", got)
	}
	if r := call(t, Write{}, env, `{"filePath":"l2","content":"via chain"}`); !r.Success {
		t.Fatalf("%+v", r)
	}
	if got := readString(t, filepath.Join(env.Cwd, "g.txt")); got != "via chain" {
		t.Errorf("g.txt = %q", got)
	}
	for _, l := range []string{"dirlink", "l1", "l2"} {
		if lstatMode(t, env.Cwd, l)&os.ModeSymlink == 0 {
			t.Errorf("%s is no longer a symlink", l)
		}
	}
}

func TestWriteRefusesADanglingSymlink(t *testing.T) {
	env := world(t, nil)
	os.Symlink("missing.txt", filepath.Join(env.Cwd, "dangling.txt"))
	os.Symlink("nowhere", filepath.Join(env.Cwd, "gone"))
	outside := filepath.Join(t.TempDir(), "planted")
	os.Symlink(outside, filepath.Join(env.Cwd, "out.txt"))
	tests := []struct{ name, tool, args, wantErr string }{
		{"a link to a missing file", "Write", `{"filePath":"dangling.txt","content":"x"}`, "Cannot write dangling.txt: dangling.txt is a symbolic link to missing.txt, which does not exist"},
		{"a link to a missing file, by Edit", "Edit", `{"filePath":"dangling.txt","oldString":"a","newString":"b"}`, "dangling.txt is a symbolic link to missing.txt"},
		{"a missing folder behind a link", "Write", `{"filePath":"gone/f.txt","content":"x"}`, "gone is a symbolic link to nowhere, which does not exist"},
		{"a link to a missing file outside", "Write", `{"filePath":"out.txt","content":"x"}`, "is a symbolic link to " + outside},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := call(t, Write{}, env, tt.args)
			if tt.tool == "Edit" {
				r = call(t, Edit{}, env, tt.args)
			}
			if r.Success || !strings.Contains(r.Error, tt.wantErr) {
				t.Fatalf("got %+v, want error containing %q", r, tt.wantErr)
			}
		})
	}
	for _, l := range []string{"dangling.txt", "gone", "out.txt"} {
		if lstatMode(t, env.Cwd, l)&os.ModeSymlink == 0 {
			t.Errorf("%s is no longer a symlink", l)
		}
	}
	for _, p := range []string{filepath.Join(env.Cwd, "missing.txt"), filepath.Join(env.Cwd, "nowhere"), outside} {
		if _, err := os.Lstat(p); err == nil {
			t.Errorf("%s was created", p)
		}
	}
}

func TestWriteGivesANewFileTheUmaskedMode(t *testing.T) {
	defer setUmask(0o027)()
	env := world(t, nil)
	if r := call(t, Write{}, env, `{"filePath":"new.txt","content":"x"}`); !r.Success {
		t.Fatalf("%+v", r)
	}
	if m := lstatMode(t, env.Cwd, "new.txt"); m.Perm() != 0o640 {
		t.Errorf("new file mode %v, want 0644 minus umask 027 = 0640", m.Perm())
	}
	// An existing file keeps bits the umask would strip.
	p := filepath.Join(env.Cwd, "shared.txt")
	os.WriteFile(p, []byte("x"), 0o600)
	os.Chmod(p, 0o666)
	if r := call(t, Write{}, env, `{"filePath":"shared.txt","content":"y"}`); !r.Success {
		t.Fatalf("%+v", r)
	}
	if m := lstatMode(t, env.Cwd, "shared.txt"); m.Perm() != 0o666 {
		t.Errorf("rewritten file mode %v, want 0666 kept", m.Perm())
	}
}

func TestEditRefusesAFIFOWithoutBlocking(t *testing.T) {
	env := world(t, nil)
	if err := mkfifo(filepath.Join(env.Cwd, "pipe")); err != nil {
		t.Skip("no FIFOs here:", err)
	}
	r := call(t, Edit{}, env, `{"filePath":"pipe","oldString":"a","newString":"b"}`)
	if r.Success || r.Error != "Path is not a file: pipe" {
		t.Errorf("%+v", r)
	}
	r = call(t, Write{}, env, `{"filePath":"pipe","content":"x"}`)
	if r.Success || !strings.Contains(r.Error, "not a regular file") {
		t.Errorf("%+v", r)
	}
	if lstatMode(t, env.Cwd, "pipe")&os.ModeNamedPipe == 0 {
		t.Error("the FIFO was replaced")
	}
}

var tempNameRE = regexp.MustCompile(`^\.f\.txt\.tmp-[0-9]+$`)

func TestWriteJournalsItsTempFileBeforeCreatingIt(t *testing.T) {
	env := world(t, map[string]string{"f.txt": "old"})
	var noted []string
	env.NoteTemp = func(p string) error {
		if _, err := os.Lstat(p); err == nil {
			t.Errorf("%s exists before it was journaled", p)
		}
		noted = append(noted, p)
		return nil
	}
	if r := call(t, Edit{}, env, `{"filePath":"f.txt","oldString":"old","newString":"new"}`); !r.Success {
		t.Fatalf("%+v", r)
	}
	if len(noted) != 1 || filepath.Dir(noted[0]) != mustCanonical(t, env.Cwd) || !tempNameRE.MatchString(filepath.Base(noted[0])) {
		t.Fatalf("journaled %q, want one canonical .f.txt.tmp-N path in the working directory", noted)
	}
	if _, err := os.Lstat(noted[0]); err == nil {
		t.Errorf("temp file %s left after a write", noted[0])
	}

	// A journal that cannot be written stops the write before the temp file exists.
	env.NoteTemp = func(p string) error { noted = append(noted, p); return errors.New("disk full") }
	r := call(t, Write{}, env, `{"filePath":"f.txt","content":"lost"}`)
	if r.Success || !strings.Contains(r.Error, "journal the temp file: disk full") {
		t.Fatalf("%+v", r)
	}
	if got := readString(t, filepath.Join(env.Cwd, "f.txt")); got != "new" {
		t.Errorf("f.txt = %q after a refused write", got)
	}
	if _, err := os.Lstat(noted[len(noted)-1]); err == nil {
		t.Error("the temp file was created although the journal failed")
	}
}

func TestLongFileNamesGetAFittingTempName(t *testing.T) {
	env := world(t, nil)
	name := strings.Repeat("n", 250)
	if r := call(t, Write{}, env, `{"filePath":"`+name+`","content":"x"}`); !r.Success {
		t.Fatalf("%+v", r)
	}
}

func mustCanonical(t *testing.T, p string) string {
	t.Helper()
	c, err := filepath.EvalSymlinks(p)
	if err != nil {
		t.Fatal(err)
	}
	return c
}
