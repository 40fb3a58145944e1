//go:build unix

package logfmt

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// outside is a file outside the log folder that must never change.
func outside(t *testing.T, content string) (string, func()) {
	t.Helper()
	p := filepath.Join(t.TempDir(), "outside.jsonl")
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return p, func() {
		t.Helper()
		if got, err := os.ReadFile(p); err != nil || string(got) != content {
			t.Errorf("the file outside changed: %q, %v", got, err)
		}
	}
}

func TestOpenWriterRefusesWhatIsNotARegularLog(t *testing.T) {
	// An unterminated last line: following the link, the torn-tail repair
	// would cut it, then lines would be appended.
	const torn = `{"timestamp":"t","sessionId":"s1","event":"a","seq":0}` + "\n" + `{"event":`
	tests := []struct {
		name  string
		setup func(t *testing.T, log string) (check func())
		kind  string
	}{
		{"a link to a file outside", func(t *testing.T, log string) func() {
			target, unchanged := outside(t, torn)
			if err := os.Symlink(target, log); err != nil {
				t.Fatal(err)
			}
			return unchanged
		}, "a symbolic link"},
		{"a dangling link, which a create would follow", func(t *testing.T, log string) func() {
			target := filepath.Join(t.TempDir(), "created.jsonl")
			if err := os.Symlink(target, log); err != nil {
				t.Fatal(err)
			}
			return func() {
				if _, err := os.Lstat(target); !errors.Is(err, os.ErrNotExist) {
					t.Errorf("a file was created outside: %v", err)
				}
			}
		}, "a symbolic link"},
		{"a FIFO, which would block the open", func(t *testing.T, log string) func() {
			if err := syscall.Mkfifo(log, 0o600); err != nil {
				t.Skipf("no FIFOs: %v", err)
			}
			return func() {}
		}, "a named pipe"},
		{"a folder", func(t *testing.T, log string) func() {
			if err := os.Mkdir(log, 0o700); err != nil {
				t.Fatal(err)
			}
			return func() {}
		}, "a folder"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			log := filepath.Join(t.TempDir(), "s1.jsonl")
			check := tt.setup(t, log)
			_, err := OpenWriter(log, Options{SessionID: "s1"})
			var nr *NotRegularError
			if !errors.As(err, &nr) || nr.Path != log || nr.Kind != tt.kind {
				t.Fatalf("OpenWriter: %v", err)
			}
			if want := log + " is " + tt.kind + ", not a regular file"; !strings.Contains(err.Error(), want) {
				t.Errorf("error %q does not say %q", err, want)
			}
			check()
		})
	}
}

func TestASymlinkedPayloadFolderIsRefused(t *testing.T) {
	dir := t.TempDir()
	log := filepath.Join(dir, "s1.jsonl")
	elsewhere := t.TempDir()
	if err := os.Symlink(elsewhere, filepath.Join(dir, "s1.payloads")); err != nil {
		t.Fatal(err)
	}
	_, err := OpenWriter(log, Options{SessionID: "s1"})
	var nr *NotRegularError
	if !errors.As(err, &nr) || nr.Want != "a folder" || nr.Kind != "a symbolic link" {
		t.Fatalf("OpenWriter: %v", err)
	}
	if _, err := os.Stat(log); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the log was created: %v", err)
	}
	if ents, _ := os.ReadDir(elsewhere); len(ents) != 0 {
		t.Errorf("files appeared outside: %v", ents)
	}
}

// A payload folder swapped for a link after the log was opened is caught
// by the first payload: the line fails, and nothing is written outside.
func TestAPayloadFolderLinkedMidStepIsRefused(t *testing.T) {
	dir := t.TempDir()
	w := openTest(t, filepath.Join(dir, "s1.jsonl"), Options{PayloadThreshold: 16})
	elsewhere := t.TempDir()
	if err := os.Symlink(elsewhere, filepath.Join(dir, "s1.payloads")); err != nil {
		t.Fatal(err)
	}
	err := w.Log("big", F("text", strings.Repeat("x", 100)))
	if !errors.As(err, new(*NotRegularError)) {
		t.Fatalf("Log: %v", err)
	}
	if ents, _ := os.ReadDir(elsewhere); len(ents) != 0 {
		t.Errorf("files appeared outside: %v", ents)
	}
}

func TestAPayloadFileThatIsALinkIsRefused(t *testing.T) {
	dir := t.TempDir()
	w := openTest(t, filepath.Join(dir, "s1.jsonl"), Options{PayloadThreshold: 16})
	value := `"` + strings.Repeat("x", 100) + `"`
	payloads := filepath.Join(dir, "s1.payloads")
	if err := os.Mkdir(payloads, 0o700); err != nil {
		t.Fatal(err)
	}
	target, unchanged := outside(t, "mine")
	if err := os.Symlink(target, filepath.Join(payloads, sha([]byte(value))+".json")); err != nil {
		t.Fatal(err)
	}
	if err := w.Log("big", F("text", strings.Repeat("x", 100))); !errors.As(err, new(*NotRegularError)) {
		t.Fatalf("Log: %v", err)
	}
	unchanged()
}
