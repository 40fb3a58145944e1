//go:build unix

package settings

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"trail/core/errs"
)

// A settings path that names something other than a regular file is
// refused by name, without a read that could wait forever (a FIFO nobody
// writes to) or fill memory (a device that never ends).
func TestSettingsThatAreNotAFileAreRefusedWithoutBlocking(t *testing.T) {
	tests := []struct {
		name  string
		setup func(t *testing.T, p string)
		want  string
	}{
		{"a FIFO nobody writes to", func(t *testing.T, p string) {
			if err := syscall.Mkfifo(p, 0o600); err != nil {
				t.Skipf("no FIFOs: %v", err)
			}
		}, "it is a named pipe, not a regular file"},
		{"a folder", func(t *testing.T, p string) {
			if err := os.Mkdir(p, 0o700); err != nil {
				t.Fatal(err)
			}
		}, "it is a folder, not a regular file"},
		{"a link to an endless device", func(t *testing.T, p string) {
			if err := os.Symlink("/dev/zero", p); err != nil {
				t.Fatal(err)
			}
		}, "it is a device, not a regular file"},
		{"a file over the size bound", func(t *testing.T, p string) {
			f, err := os.Create(p)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			if err := f.Truncate(maxSize + 1); err != nil { // sparse: no disk used
				t.Fatal(err)
			}
		}, "a settings file may be at most 4194304"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cwd := t.TempDir()
			p := filepath.Join(cwd, ".trail", "settings.json")
			if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
				t.Fatal(err)
			}
			tt.setup(t, p)
			done := make(chan error, 1)
			go func() {
				_, err := Load(Paths("", t.TempDir(), cwd), nil, "")
				done <- err
			}()
			var err error
			select {
			case err = <-done:
			case <-time.After(10 * time.Second):
				t.Fatal("reading the settings blocked")
			}
			var bad *errs.InvalidDataError
			if !errors.As(err, &bad) || bad.Path != p || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("Load: %v, want an InvalidDataError naming %s saying %q", err, p, tt.want)
			}
			if bad.Hint() == "" {
				t.Error("no hint")
			}
		})
	}
}

func TestSettingsThroughALinkAreRead(t *testing.T) {
	cwd := t.TempDir()
	real := writeSettings(t, t.TempDir(), "dotfiles/settings.json", `{"model":"linked"}`)
	if err := os.MkdirAll(filepath.Join(cwd, ".trail"), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(real, filepath.Join(cwd, ".trail", "settings.json")); err != nil {
		t.Fatal(err)
	}
	s, err := Load(Paths("", t.TempDir(), cwd), nil, "")
	if err != nil || s.Model != "linked" {
		t.Fatalf("settings through a link: %+v, %v", s, err)
	}
}
