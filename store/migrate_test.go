package store

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// migrateFixture fills a sessions folder with one record of each kind.
func migrateFixture(t *testing.T) *FS {
	t.Helper()
	s := newStore(t)
	writeRecord(t, s, "robota", fixture(t, "robota.json"))                            // needs history
	writeRecord(t, s, "trail", fixture(t, "trail.json"))                              // has history
	writeRecord(t, s, "nomsgs", []byte(`{"id":"nomsgs","messages":[],"history":[]}`)) // nothing to do
	writeRecord(t, s, "broken", fixture(t, "truncated.json"))                         // corrupt
	writeRecord(t, s, "tmp", []byte(`{"id":"x","messages":[{"role":"user"}]}`))
	os.Rename(s.RecordPath("tmp"), filepath.Join(s.SessionsDir(), "bad name.json")) // not an id
	return s
}

func hashes(t *testing.T, dir string) map[string][32]byte {
	t.Helper()
	out := map[string][32]byte{}
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		data, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		out[e.Name()] = sha256.Sum256(data)
	}
	return out
}

func seqIDs() func() string {
	n := 0
	return func() string { n++; return fmt.Sprintf("new-%d", n) }
}

func TestMigrateHistory(t *testing.T) {
	s := migrateFixture(t)
	before := hashes(t, s.SessionsDir())
	orig := fixture(t, "robota.json")

	rep, err := s.MigrateHistory(MigrateOptions{Wait: time.Second, NewID: seqIDs()})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Migrated != 1 || rep.Skipped != 2 || rep.Failed != 2 || rep.Total != 5 {
		t.Errorf("report %+v", rep)
	}
	var failed []string
	for _, f := range rep.Failures {
		failed = append(failed, filepath.Base(f.Path))
	}
	if !slices.Equal(failed, []string{"bad name.json", "broken.json"}) {
		t.Errorf("failures %v", rep.Failures)
	}
	if !errors.Is(rep.Failures[0].Err, ErrInvalidID) || !errors.As(rep.Failures[1].Err, new(*CorruptError)) {
		t.Errorf("failure reasons %v", rep.Failures)
	}
	after := hashes(t, s.SessionsDir())
	for name, h := range before {
		if name != "robota.json" && after[name] != h {
			t.Errorf("%s changed", name)
		}
	}

	r, err := s.Load("robota")
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		`{"id":"m1","timestamp":"2025-01-02T03:04:06.000Z","category":"chat","type":"user","data":` + compact(t, mustDecode(t, orig).Messages[0]) + `}`,
		`{"id":"m2","timestamp":"2025-01-02T03:04:09.000Z","category":"chat","type":"assistant","data":` + compact(t, mustDecode(t, orig).Messages[1]) + `}`,
		`{"id":"new-1","timestamp":"2025-01-02T03:09:00.000Z","category":"chat","type":"user","data":` + compact(t, mustDecode(t, orig).Messages[2]) + `}`,
	}
	if len(r.History) != 3 {
		t.Fatalf("history %d", len(r.History))
	}
	for i, h := range r.History {
		if compact(t, h) != want[i] {
			t.Errorf("history[%d]\n%s\nwant\n%s", i, compact(t, h), want[i])
		}
	}
	// Every other member keeps its value and order.
	o := mustDecode(t, orig)
	if !slices.EqualFunc(o.Fields, r.Fields, func(a, b Field) bool { return a.Key == b.Key && compact(t, a.Value) == compact(t, b.Value) }) {
		t.Errorf("fields changed:\n%v\n%v", o.Fields, r.Fields)
	}
	if !slices.EqualFunc(o.Messages, r.Messages, func(a, b json.RawMessage) bool { return compact(t, a) == compact(t, b) }) {
		t.Error("messages changed")
	}
	if _, err := os.Stat(s.RecordPath("robota") + ".bak"); !errors.Is(err, os.ErrNotExist) {
		t.Error("backup written without Backup")
	}

	rep, err = s.MigrateHistory(MigrateOptions{NewID: seqIDs()})
	if err != nil || rep.Migrated != 0 || rep.Skipped != 3 || rep.Failed != 2 {
		t.Errorf("second run %+v %v", rep, err)
	}
}

func TestMigrateHistoryDryRunChangesNothing(t *testing.T) {
	s := migrateFixture(t)
	before := hashes(t, s.SessionsDir())
	rep, err := s.MigrateHistory(MigrateOptions{DryRun: true})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Migrated != 1 || rep.Total != 5 {
		t.Errorf("report %+v", rep)
	}
	after := hashes(t, s.SessionsDir())
	if fmt.Sprint(before) != fmt.Sprint(after) {
		t.Errorf("dry run changed the folder:\n%v\n%v", before, after)
	}
}

func TestMigrateHistoryBackupAndDir(t *testing.T) {
	src := fixture(t, "robota.json")
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "robota-0001.json"), src, 0o644)
	s := newStore(t) // Home elsewhere: --dir decides
	rep, err := s.MigrateHistory(MigrateOptions{Dir: dir, Backup: true})
	if err != nil || rep.Migrated != 1 {
		t.Fatalf("%+v %v", rep, err)
	}
	bak, err := os.ReadFile(filepath.Join(dir, "robota-0001.json.bak"))
	if err != nil || !bytes.Equal(bak, src) {
		t.Errorf("backup: %v", err)
	}
	if st, _ := os.Stat(filepath.Join(dir, "robota-0001.json.bak")); st.Mode().Perm() != 0o600 {
		t.Errorf("backup mode %v", st.Mode().Perm())
	}
	out, _ := os.ReadFile(filepath.Join(dir, "robota-0001.json"))
	if r := mustDecode(t, out); len(r.History) != 3 || r.History[2] == nil || !strings.Contains(string(r.History[2]), `"id": "0`) {
		t.Errorf("history ids should default to UUIDv7: %s", r.History[2])
	}
	if _, err := s.MigrateHistory(MigrateOptions{Dir: filepath.Join(dir, "missing")}); err == nil {
		t.Error("a missing --dir is not an error")
	}
	if rep, err := New(t.TempDir()).MigrateHistory(MigrateOptions{}); err != nil || rep.Total != 0 {
		t.Errorf("no sessions folder yet: %+v %v", rep, err)
	}
}

func TestMigrateHistoryBusySessionFails(t *testing.T) {
	s := newStore(t)
	writeRecord(t, s, "robota", fixture(t, "robota.json"))
	l, err := s.Lock(t.Context(), "robota", 0)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Unlock()
	rep, err := s.MigrateHistory(MigrateOptions{Wait: 10 * time.Millisecond})
	if err != nil || rep.Failed != 1 || !errors.As(rep.Failures[0].Err, new(*BusyError)) {
		t.Errorf("%+v %v", rep, err)
	}
}

// A cancelled context (a signal) ends the wait for a busy session's lock
// and the walk: the record is not counted as failed, and not touched.
func TestMigrateHistoryStopsWhenItsContextEnds(t *testing.T) {
	s := newStore(t)
	writeRecord(t, s, "robota", fixture(t, "robota.json"))
	before, _ := os.ReadFile(s.RecordPath("robota"))
	l, err := s.Lock(t.Context(), "robota", 0)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Unlock()
	ctx, cancel := context.WithCancel(t.Context())
	time.AfterFunc(20*time.Millisecond, cancel)
	rep, err := s.MigrateHistory(MigrateOptions{Wait: time.Hour, Ctx: ctx})
	if !errors.Is(err, context.Canceled) || rep.Failed != 0 || rep.Migrated != 0 {
		t.Errorf("%+v %v", rep, err)
	}
	if after, _ := os.ReadFile(s.RecordPath("robota")); !bytes.Equal(before, after) {
		t.Error("the record changed")
	}
}

func TestMigrateHistoryFailsOnWhatIsNotAFile(t *testing.T) {
	s := newStore(t)
	writeRecord(t, s, "robota", fixture(t, "robota.json"))
	dir := s.SessionsDir()
	if err := mkfifo(filepath.Join(dir, "pipe.json")); err != nil {
		t.Skipf("no FIFOs: %v", err)
	}
	if err := os.Symlink(s.RecordPath("robota"), filepath.Join(dir, "link.json")); err != nil {
		t.Fatal(err)
	}
	done := make(chan MigrateReport)
	go func() {
		rep, _ := s.MigrateHistory(MigrateOptions{NewID: seqIDs()})
		done <- rep
	}()
	select {
	case rep := <-done:
		if rep.Migrated != 1 || rep.Failed != 2 || rep.Total != 3 {
			t.Errorf("report %+v", rep)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("migrate-history blocked on a FIFO")
	}
	if fi, err := os.Lstat(filepath.Join(dir, "link.json")); err != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Error("the symlink was replaced")
	}
}

// SPEC 1.10: migrate keeps every other field and the key order. Encode
// would move the header first and messages/history last; a foreign record
// must come back with only its history changed.
func TestMigrateHistoryChangesOnlyTheHistory(t *testing.T) {
	for name, tt := range map[string]struct {
		record   string
		wantKeys []string
	}{
		"Robota's layout, empty history after messages": {
			record:   string(fixture(t, "robota.json")),
			wantKeys: []string{"id", "cwd", "createdAt", "updatedAt", "messages", "history", "systemPrompt", "toolSchemas", "backgroundTasks", "memoryEvents", "sandboxSnapshotId"},
		},
		"no history, header after the body, one line": {
			record:   `{"messages":[{"id":"m1","role":"user","content":"hi"}],"zz":{"b":1,"a":2},"title":"t","id":"rec"}` + "\n",
			wantKeys: []string{"messages", "history", "zz", "title", "id"},
		},
	} {
		t.Run(name, func(t *testing.T) {
			s := newStore(t)
			path := writeRecord(t, s, "rec", []byte(tt.record))
			rep, err := s.MigrateHistory(MigrateOptions{NewID: seqIDs()})
			if err != nil || rep.Migrated != 1 {
				t.Fatalf("%+v %v", rep, err)
			}
			out, _ := os.ReadFile(path)
			if keys := topKeys(t, out); !slices.Equal(keys, tt.wantKeys) {
				t.Errorf("keys %v, want %v", keys, tt.wantKeys)
			}
			r := mustDecode(t, out)
			if len(r.History) != len(r.Messages) {
				t.Fatalf("history %d entries for %d messages", len(r.History), len(r.Messages))
			}
			// Cutting the new history out gives the original bytes back.
			start := bytes.Index(out, []byte(`"history": [`)) + len(`"history": `)
			end := start + bytes.Index(out[start:], []byte("\n  ]")) + len("\n  ]")
			rest := string(out[:start]) + string(out[end:])
			orig := tt.record
			if !strings.Contains(orig, `"history"`) {
				rest = strings.Replace(rest, `,`+"\n"+`  "history": `, "", 1)
			} else {
				orig = strings.Replace(orig, `"history": []`, `"history": `, 1)
			}
			if rest != orig {
				t.Errorf("bytes outside the history changed:\n%s\nwant\n%s", rest, orig)
			}
		})
	}
}
