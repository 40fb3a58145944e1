package store

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// outsideFile is a file outside the home that a link inside it points to;
// it must never change.
func outsideFile(t *testing.T, content string) (path string, check func()) {
	t.Helper()
	path = filepath.Join(t.TempDir(), "outside.txt")
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return path, func() {
		t.Helper()
		got, err := os.ReadFile(path)
		if err != nil || string(got) != content {
			t.Errorf("the file outside the home changed: %q, %v", got, err)
		}
	}
}

func symlink(t *testing.T, target, link string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(link), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
}

func isLink(t *testing.T, path string) bool {
	t.Helper()
	st, err := os.Lstat(path)
	return err == nil && st.Mode()&os.ModeSymlink != 0
}

func TestASymlinkedRecordIsRefusedNeverFollowedOrReplaced(t *testing.T) {
	s := newStore(t)
	target, unchanged := outsideFile(t, string(fixture(t, "trail.json")))
	symlink(t, target, s.RecordPath("a"))

	_, err := s.Load("a")
	var nr *NotRegularError
	if !errors.As(err, &nr) || nr.Path != s.RecordPath("a") || nr.Kind != "a symbolic link" {
		t.Fatalf("Load: %v", err)
	}
	if !strings.Contains(err.Error(), s.RecordPath("a")+" is a symbolic link, not a regular file") {
		t.Errorf("the error does not name the link: %v", err)
	}
	heads, err := s.ListHeads()
	if err != nil || len(heads) != 1 || !heads[0].Corrupt || !errors.As(heads[0].Err, &nr) {
		t.Errorf("ListHeads = %+v, %v", heads, err)
	}
	if ok, err := s.Exists("a"); !ok || err != nil {
		t.Errorf("Exists = %v, %v: a link where the record goes is there", ok, err)
	}
	if err := s.Save(&Record{ID: "a", Name: "over"}); !errors.As(err, &nr) {
		t.Errorf("Save over the link: %v", err)
	}
	if !isLink(t, s.RecordPath("a")) {
		t.Error("the link was replaced by a file")
	}
	unchanged()
}

func TestASymlinkedLockFileIsRefused(t *testing.T) {
	for _, tt := range []struct {
		name     string
		dangling bool
	}{
		{"a link to a file outside", false},
		{"a dangling link, which a create would follow", true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			s := newStore(t)
			if err := s.EnsureLayout(); err != nil {
				t.Fatal(err)
			}
			target, unchanged := outsideFile(t, "not a lock\n")
			if tt.dangling {
				target = filepath.Join(t.TempDir(), "created-outside")
			}
			symlink(t, target, s.LockPath("a"))
			_, err := s.Lock(t.Context(), "a", 0)
			var nr *NotRegularError
			if !errors.As(err, &nr) || nr.Path != s.LockPath("a") {
				t.Fatalf("Lock: %v", err)
			}
			if tt.dangling {
				if _, err := os.Lstat(target); !errors.Is(err, os.ErrNotExist) {
					t.Errorf("a file was created outside the home: %v", err)
				}
			} else {
				unchanged()
			}
		})
	}
}

func TestAFIFOLockFileIsRefused(t *testing.T) {
	s := newStore(t)
	if err := s.EnsureLayout(); err != nil {
		t.Fatal(err)
	}
	if err := mkfifo(s.LockPath("a")); err != nil {
		t.Skipf("no FIFOs: %v", err)
	}
	if _, err := s.Lock(t.Context(), "a", 0); !errors.As(err, new(*NotRegularError)) {
		t.Fatalf("Lock: %v", err)
	}
}

func TestMigrateRefusesASymlinkedBackup(t *testing.T) {
	s := newStore(t)
	writeRecord(t, s, "robota", fixture(t, "robota.json"))
	target, unchanged := outsideFile(t, "my notes\n")
	symlink(t, target, s.RecordPath("robota")+".bak")
	rep, err := s.MigrateHistory(MigrateOptions{Backup: true, NewID: seqIDs()})
	if err != nil || rep.Failed != 1 || !errors.As(rep.Failures[0].Err, new(*NotRegularError)) {
		t.Fatalf("report %+v, %v", rep, err)
	}
	if !isLink(t, s.RecordPath("robota")+".bak") {
		t.Error("the backup link was replaced")
	}
	if got, _ := os.ReadFile(s.RecordPath("robota")); !bytes.Equal(got, fixture(t, "robota.json")) {
		t.Error("the record was migrated without its backup")
	}
	unchanged()
}

// killedSaveEnv makes the test binary a helper that takes the lock of
// session "a", starts a save and is SIGKILLed just before the rename.
const killedSaveEnv = "TRAIL_STORE_KILLED_SAVE_HOME"

func TestHelperKilledSave(t *testing.T) {
	home := os.Getenv(killedSaveEnv)
	if home == "" {
		t.Skip("a helper process for TestAKilledSavesTempFileIsRemovedUnderTheNextLock")
	}
	s := New(home)
	if _, err := s.Lock(t.Context(), "a", 0); err != nil {
		t.Fatal(err)
	}
	rename = func(string, string) error {
		killSelf()
		select {}
	}
	_ = s.Save(&Record{ID: "a", Name: "never saved"})
	t.Fatal("still alive after SIGKILL")
}

// SPEC 3.4 and the crash campaign: a step killed between writing the temp
// file and renaming it leaves sessions/a.json.tmp-N. The next process that
// takes a's lock removes it; another session's temp file stays.
func TestAKilledSavesTempFileIsRemovedUnderTheNextLock(t *testing.T) {
	s := newStore(t)
	if err := s.Save(&Record{ID: "a", Name: "saved"}); err != nil {
		t.Fatal(err)
	}
	before, _ := os.ReadFile(s.RecordPath("a"))
	other := filepath.Join(s.SessionsDir(), "b.json.tmp-123")
	if err := os.WriteFile(other, []byte("{"), 0o600); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestHelperKilledSave$")
	cmd.Env = append(os.Environ(), killedSaveEnv+"="+s.Home)
	out, err := cmd.CombinedOutput()
	if !killedBySelf(err) {
		t.Fatalf("the helper was not killed: %v\n%s", err, out)
	}
	stale, _ := filepath.Glob(s.RecordPath("a") + ".tmp-*")
	if len(stale) != 1 {
		t.Fatalf("the killed save left %v, want one temp file", stale)
	}
	if after, _ := os.ReadFile(s.RecordPath("a")); !bytes.Equal(before, after) {
		t.Error("the record changed")
	}

	l, err := s.Lock(t.Context(), "a", 0)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Unlock()
	if _, err := os.Stat(stale[0]); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the stale temp file is still there: %v", err)
	}
	if _, err := os.Stat(other); err != nil {
		t.Errorf("another session's temp file was removed: %v", err)
	}
	if note, _ := os.ReadFile(s.LockPath("a")); len(note) != 0 {
		t.Errorf("the lock file still notes %q", note)
	}
}

func TestALockNoteNamingAnotherFileIsIgnored(t *testing.T) {
	s := newStore(t)
	if err := s.EnsureLayout(); err != nil {
		t.Fatal(err)
	}
	keep := []string{"b.json", "a.json", "a.json.tmp-12x", "a.lock.tmp-1"}
	for _, name := range keep {
		if err := os.WriteFile(filepath.Join(s.SessionsDir(), name), []byte("{}"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	for _, note := range append(keep, "../a.json.tmp-1", "") {
		if err := os.WriteFile(s.LockPath("a"), []byte(note+"\n"), 0o600); err != nil {
			t.Fatal(err)
		}
		l, err := s.Lock(t.Context(), "a", 0)
		if err != nil {
			t.Fatal(err)
		}
		l.Unlock()
	}
	for _, name := range keep {
		if _, err := os.Stat(filepath.Join(s.SessionsDir(), name)); err != nil {
			t.Errorf("%s was removed: %v", name, err)
		}
	}
}

func TestIsTempOf(t *testing.T) {
	for _, tt := range []struct {
		name string
		want bool
	}{
		{"a.json.tmp-1", true},
		{"a.json.tmp-4294967295", true},
		{"a.json.bak.tmp-7", true},
		{"a.json.tmp-", false},
		{"a.json.tmp-1x", false},
		{"a.json", false},
		{"a.json.tmp-1/x", false},
		{"ab.json.tmp-1", false},
		{"a.json.tmp-123.json", false}, // the record of session "a.json.tmp-123"
	} {
		if got := isTempOf(tt.name, "a"); got != tt.want {
			t.Errorf("isTempOf(%q, a) = %v", tt.name, got)
		}
	}
}
