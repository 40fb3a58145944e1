package core

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"trail/core/errs"
	"trail/store"
)

func writeRecord(t *testing.T, st *store.FS, id, name, cwd, updated string) {
	t.Helper()
	if err := st.EnsureLayout(); err != nil {
		t.Fatal(err)
	}
	body := fmt.Sprintf(`{"id":%q,"name":%q,"cwd":%q,"createdAt":%q,"updatedAt":%q,"messages":[],"history":[]}`, id, name, cwd, updated, updated)
	if err := os.WriteFile(st.RecordPath(id), []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
}

func TestResolveSession(t *testing.T) {
	st := store.New(filepath.Join(t.TempDir(), "home"))
	writeRecord(t, st, "0193aaaa-1", "alpha", "/a", "2026-01-01T00:00:01.000Z")
	writeRecord(t, st, "0193aaab-2", "beta", "/b", "2026-01-01T00:00:03.000Z")
	writeRecord(t, st, "0193bbbb-3", "twin", "/a", "2026-01-01T00:00:02.000Z")
	writeRecord(t, st, "0193cccc-4", "twin", "/a", "2026-01-01T00:00:00.000Z")
	writeRecord(t, st, "review-2", "", "/a", "2026-01-01T00:00:00.000Z")
	writeRecord(t, st, "0193dddd-5", "review", "/a", "2026-01-01T00:00:00.000Z")
	writeRecord(t, st, "0193eeee-6", "0193eeee", "/a", "2026-01-01T00:00:00.000Z")
	tests := []struct {
		name    string
		ref     SessionRef
		want    string
		wantErr any
	}{
		{"a full id", SessionRef{Ref: "0193bbbb-3"}, "0193bbbb-3", nil},
		{"a unique prefix", SessionRef{Ref: "0193b"}, "0193bbbb-3", nil},
		{"an ambiguous prefix", SessionRef{Ref: "0193aa"}, "", &errs.AmbiguousError{}},
		{"a prefix under 4 characters is not a prefix", SessionRef{Ref: "019"}, "", &errs.NotFoundError{}},
		{"a name", SessionRef{Ref: "beta"}, "0193aaab-2", nil},
		{"a name two sessions share", SessionRef{Ref: "twin"}, "", &errs.AmbiguousError{}},
		{"a name that is also another session's id prefix", SessionRef{Ref: "review"}, "", &errs.AmbiguousError{}},
		{"a name that is its own session's id prefix", SessionRef{Ref: "0193eeee"}, "0193eeee-6", nil},
		{"a name with spaces is looked up", SessionRef{Ref: "no such name"}, "", &errs.NotFoundError{}},
		{"a path is refused", SessionRef{Ref: "../../etc/passwd"}, "", &errs.UsageError{}},
		{"--last of a directory", SessionRef{Last: true, Cwd: "/a"}, "0193bbbb-3", nil},
		{"--last --any-dir", SessionRef{Last: true, AnyDir: true, Cwd: "/a"}, "0193aaab-2", nil},
		{"--last of an empty directory", SessionRef{Last: true, Cwd: "/none"}, "", &errs.NotFoundError{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ResolveSession(st, tt.ref)
			switch want := tt.wantErr.(type) {
			case nil:
				if err != nil || got != tt.want {
					t.Fatalf("got %q, %v; want %q", got, err, tt.want)
				}
			case *errs.AmbiguousError:
				if !errors.As(err, &want) || len(want.Candidates) != 2 {
					t.Fatalf("want ambiguous with 2 candidates, got %v", err)
				}
			case *errs.NotFoundError:
				if !errors.As(err, &want) {
					t.Fatalf("want not found, got %q, %v", got, err)
				}
			case *errs.UsageError:
				if !errors.As(err, &want) {
					t.Fatalf("want usage error, got %v", err)
				}
			}
		})
	}
}

// A session that has only its log is found by its id, its short id or a
// prefix, and each answers that the log is all there is, naming the
// repair: no command takes it for a session it can load.
func TestALogOnlySessionResolvesToItsRepair(t *testing.T) {
	st := store.New(filepath.Join(t.TempDir(), "home"))
	writeRecord(t, st, "session_1767600099999_q7w8e9r0t", "", "/a", "2026-01-01T00:00:00.000Z")
	id := "session_1767600000000_r0b0t4xyz"
	if err := os.WriteFile(st.LogPath(id), []byte("{}\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, ref := range []string{id, "r0b0t4", "r0b0", "session_1767600000"} {
		_, err := ResolveSession(st, SessionRef{Ref: ref})
		var nf *errs.NotFoundError
		if !errors.As(err, &nf) || nf.LogOnly != id || !strings.Contains(nf.Fix, "trail replay "+id+" --write-record") {
			t.Errorf("%s: %v", ref, err)
		}
	}
}
