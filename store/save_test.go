package store

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

func TestSaveThenLoad(t *testing.T) {
	s := newStore(t)
	r := mustDecode(t, fixture(t, "robota.json"))
	if err := s.Save(r); err != nil {
		t.Fatal(err)
	}
	got, err := s.Load(r.ID)
	if err != nil {
		t.Fatal(err)
	}
	if string(mustEncode(t, got)) != string(mustEncode(t, r)) {
		t.Errorf("loaded record differs from the saved one")
	}
	if ok, err := s.Exists(r.ID); !ok || err != nil {
		t.Errorf("Exists = %v, %v", ok, err)
	}
}

func TestSaveModesAndNoTempLeft(t *testing.T) {
	s := newStore(t)
	if err := s.Save(&Record{ID: "a"}); err != nil {
		t.Fatal(err)
	}
	for path, want := range map[string]os.FileMode{
		s.Home: 0o700 | os.ModeDir, s.SessionsDir(): 0o700 | os.ModeDir, s.LogsDir(): 0o700 | os.ModeDir,
		s.RecordPath("a"): 0o600,
	} {
		st, err := os.Stat(path)
		if err != nil {
			t.Fatal(err)
		}
		if st.Mode() != want {
			t.Errorf("%s: mode %v, want %v", path, st.Mode(), want)
		}
	}
	assertOnlyFiles(t, s.SessionsDir(), "a.json")
}

// Save writes a long record a part at a time; the file must be the bytes
// Encode gives, whatever falls on a part's edge.
func TestSaveOfALongRecordIsItsEncoding(t *testing.T) {
	s := newStore(t)
	r := mustDecode(t, fixture(t, "robota.json"))
	for i := 0; len(r.Messages) < 3*flushAt/60; i++ {
		r.Messages = append(r.Messages, json.RawMessage(`{"role":"user","content":"line `+strings.Repeat("é", i%50)+`"}`))
		r.History = append(r.History, json.RawMessage(`{"type":"chat","n":`+strconv.Itoa(i)+`}`))
	}
	if err := s.Save(r); err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(s.RecordPath(r.ID))
	if err != nil {
		t.Fatal(err)
	}
	if want := mustEncode(t, r); string(got) != string(want) || len(got) < 2*flushAt {
		t.Fatalf("saved %d bytes, Encode gives %d (equal: %v)", len(got), len(want), string(got) == string(want))
	}
}

func TestEnsureLayoutLeavesExistingFoldersAlone(t *testing.T) {
	home := t.TempDir()
	if err := os.Chmod(home, 0o755); err != nil {
		t.Fatal(err)
	}
	s := New(home)
	if err := s.EnsureLayout(); err != nil {
		t.Fatal(err)
	}
	if st, _ := os.Stat(home); st.Mode().Perm() != 0o755 {
		t.Errorf("existing home chmod-ed to %v", st.Mode().Perm())
	}
	if st, _ := os.Stat(s.SessionsDir()); st.Mode().Perm() != 0o700 {
		t.Errorf("new sessions folder is %v", st.Mode().Perm())
	}
}

func TestSaveFailureLeavesOldRecordAndNoTemp(t *testing.T) {
	s := newStore(t)
	old := &Record{ID: "a", Name: "old"}
	if err := s.Save(old); err != nil {
		t.Fatal(err)
	}
	before, _ := os.ReadFile(s.RecordPath("a"))
	// A value that does not encode fails before any file is touched.
	bad := &Record{ID: "a", Name: "new"}
	bad.Fields.SetRaw("x", json.RawMessage(`{`))
	if err := s.Save(bad); err == nil {
		t.Fatal("saved a record with an invalid raw value")
	}
	// One that fails after part of it went to the temp file (Save encodes
	// straight into it) leaves the old record and no temp file either.
	late := &Record{ID: "a", Name: "late"}
	for len(late.Messages)*100 < 2*flushAt {
		late.Messages = append(late.Messages, json.RawMessage(`{"role":"user","content":"`+strings.Repeat("x", 80)+`"}`))
	}
	late.Messages = append(late.Messages, json.RawMessage(`{"role":`))
	if err := s.Save(late); err == nil || !strings.Contains(err.Error(), "messages[") {
		t.Fatalf("saved a record with a bad last message: %v", err)
	}
	if now, _ := os.ReadFile(s.RecordPath("a")); string(now) != string(before) {
		t.Fatal("a failed save changed the record")
	}
	assertOnlyFiles(t, s.SessionsDir(), "a.json")
	// A rename that fails removes the temp file and clears its note.
	if err := s.Save(&Record{ID: "b"}); err != nil {
		t.Fatal(err)
	}
	lk, err := s.Lock(context.Background(), "b", 0)
	if err != nil {
		t.Fatal(err)
	}
	defer lk.Unlock()
	rename = func(string, string) error { return errors.New("disk on fire") }
	t.Cleanup(func() { rename = os.Rename })
	if err := s.Save(&Record{ID: "b", Name: "new"}); err == nil || !strings.Contains(err.Error(), "save session b: rename ") {
		t.Fatalf("a failed rename: %v", err)
	}
	if note, _ := os.ReadFile(s.LockPath("b")); len(note) != 0 {
		t.Errorf("the lock file still notes %q", note)
	}
	rename = os.Rename
	// A folder where the record should be is refused, not replaced.
	os.Remove(s.RecordPath("b"))
	if err := os.MkdirAll(filepath.Join(s.RecordPath("b"), "x"), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := s.Save(&Record{ID: "b"}); !errors.As(err, new(*NotRegularError)) {
		t.Fatalf("save over a folder: %v", err)
	}
	after, _ := os.ReadFile(s.RecordPath("a"))
	if string(before) != string(after) {
		t.Errorf("old record changed")
	}
	assertOnlyFiles(t, s.SessionsDir(), "a.json", "b.json", "b.lock")
}

func assertOnlyFiles(t *testing.T, dir string, want ...string) {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, e := range entries {
		got = append(got, e.Name())
	}
	if strings.Join(got, ",") != strings.Join(want, ",") {
		t.Errorf("%s holds %v, want %v", dir, got, want)
	}
}

func TestLoadErrors(t *testing.T) {
	s := newStore(t)
	if _, err := s.Load("nope"); !errors.Is(err, ErrNotFound) || !strings.Contains(err.Error(), "nope") {
		t.Errorf("missing record: %v", err)
	}
	path := writeRecord(t, s, "bad", fixture(t, "truncated.json"))
	before, _ := os.ReadFile(path)
	_, err := s.Load("bad")
	var ce *CorruptError
	if !errors.As(err, &ce) || ce.Path != path || ce.Offset != int64(len(before)) {
		t.Fatalf("corrupt record: %v", err)
	}
	if after, _ := os.ReadFile(path); string(after) != string(before) {
		t.Errorf("Load changed a corrupt record")
	}
}

func TestEveryIDMethodValidatesFirst(t *testing.T) {
	s := New(t.TempDir())
	bad := "../escape"
	checks := map[string]error{}
	_, checks["Load"] = s.Load(bad)
	checks["Save"] = s.Save(&Record{ID: bad})
	_, checks["Exists"] = s.Exists(bad)
	_, checks["Lock"] = s.Lock(t.Context(), bad, 0)
	_, checks["ReadHead"] = s.ReadHead(bad)
	checks["Delete"] = s.Delete(bad)
	for name, err := range checks {
		if !errors.Is(err, ErrInvalidID) || !strings.Contains(err.Error(), `"../escape"`) {
			t.Errorf("%s: %v", name, err)
		}
	}
	assertOnlyFiles(t, s.Home) // nothing created
}

func TestValidateID(t *testing.T) {
	for id, ok := range map[string]bool{
		"0193a5b0-7e1f-7cc0-8a4e-3f2b1c0d9e8f": true,
		"a":                                    true,
		"A.b_c-9":                              true,
		strings.Repeat("x", 128):               true,
		strings.Repeat("x", 129):               false,
		"":                                     false,
		".hidden":                              false,
		"-flag":                                false,
		"_x":                                   false,
		"..":                                   false,
		"a/b":                                  false,
		"a b":                                  false,
		"é":                                    false,
		"a\x00":                                false,
	} {
		if err := ValidateID(id); (err == nil) != ok {
			t.Errorf("ValidateID(%q) = %v", id, err)
		}
	}
}

// A record copied to a new name (or whose id member is wrong or missing)
// is the session its file names: saving it must not write over the session
// its id member names.
func TestLoadTakesTheIDFromTheFileName(t *testing.T) {
	s := newStore(t)
	orig := fixture(t, "trail.json")
	origID := mustDecode(t, orig).ID
	writeRecord(t, s, origID, orig)
	writeRecord(t, s, "copy", orig)
	writeRecord(t, s, "noid", []byte(`{"cwd":"/w","messages":[]}`))
	for _, id := range []string{"copy", "noid"} {
		r, err := s.Load(id)
		if err != nil {
			t.Fatal(err)
		}
		if r.ID != id {
			t.Fatalf("Load(%q).ID = %q", id, r.ID)
		}
		r.Title = "changed"
		if err := s.Save(r); err != nil {
			t.Fatal(err)
		}
		if saved, err := s.Load(id); err != nil || saved.Title != "changed" {
			t.Errorf("%s was not saved to its own file: %v", id, err)
		}
	}
	if after, _ := os.ReadFile(s.RecordPath(origID)); string(after) != string(orig) {
		t.Error("saving the copy rewrote the original session's record")
	}
}

// A FIFO where a record should be is reported, never opened for a read
// that waits for a writer.
func TestReadsDoNotBlockOnAFIFO(t *testing.T) {
	s := newStore(t)
	writeRecord(t, s, "a", fixture(t, "trail.json"))
	if err := mkfifo(s.RecordPath("pipe")); err != nil {
		t.Skipf("no FIFOs: %v", err)
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		heads, err := s.ListHeads()
		if err != nil || len(heads) != 2 || heads[1].ID != "pipe" || !heads[1].Corrupt || !errors.As(heads[1].Err, new(*NotRegularError)) {
			t.Errorf("ListHeads = %+v, %v", heads, err)
		}
		if _, err := s.Load("pipe"); !errors.As(err, new(*NotRegularError)) {
			t.Errorf("Load of a FIFO: %v", err)
		}
	}()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("reading the sessions folder blocked on a FIFO")
	}
}
