package core

import (
	"errors"
	"fmt"
	"path/filepath"
	"testing"

	"trail/core/errs"
	"trail/store"
)

func heads(idNames ...string) []store.Head {
	var hs []store.Head
	for i := 0; i < len(idNames); i += 2 {
		hs = append(hs, store.Head{ID: idNames[i], Name: idNames[i+1]})
	}
	return hs
}

// Short ids come from the random end of a UUIDv7, six characters unless
// another session needs more told apart, never more than eight.
func TestShortIDs(t *testing.T) {
	tests := []struct {
		name  string
		heads []store.Head
		want  map[string]string
	}{
		{"sessions of the same minute differ at the end",
			heads("01a20afb-1c2d-7000-8000-3f9a2c000001", "", "01a20afb-1c2d-7000-8000-77b0e1000002", ""),
			map[string]string{"01a20afb-1c2d-7000-8000-3f9a2c000001": "3f9a2c", "01a20afb-1c2d-7000-8000-77b0e1000002": "77b0e1"}},
		{"a shared start of the random part makes both longer",
			heads("01a20afb-1c2d-7000-8000-3f9a2c500001", "", "01a20afb-1c2d-7000-8000-3f9a2c700002", ""),
			map[string]string{"01a20afb-1c2d-7000-8000-3f9a2c500001": "3f9a2c5", "01a20afb-1c2d-7000-8000-3f9a2c700002": "3f9a2c7"}},
		{"eight shared characters give the full id",
			heads("01a20afb-1c2d-7000-8000-3f9a2c5d0001", "", "01a20afb-1c2d-7000-8000-3f9a2c5d0002", ""),
			map[string]string{"01a20afb-1c2d-7000-8000-3f9a2c5d0001": "01a20afb-1c2d-7000-8000-3f9a2c5d0001", "01a20afb-1c2d-7000-8000-3f9a2c5d0002": "01a20afb-1c2d-7000-8000-3f9a2c5d0002"}},
		{"a random part that starts another session's id grows past it",
			heads("01a20afb-1c2d-7000-8000-01a20a000001", "", "01a20afb-1c2d-7000-8000-77b0e1000002", ""),
			map[string]string{"01a20afb-1c2d-7000-8000-01a20a000001": "01a20a0", "01a20afb-1c2d-7000-8000-77b0e1000002": "77b0e1"}},
		{"a short id another session is named grows past the name",
			heads("01a20afb-1c2d-7000-8000-3f9a2c000001", "", "01a20afb-1c2d-7000-8000-77b0e1000002", "3f9a2c"),
			map[string]string{"01a20afb-1c2d-7000-8000-3f9a2c000001": "3f9a2c0", "01a20afb-1c2d-7000-8000-77b0e1000002": "77b0e1"}},
		{"an id that is not a UUID is shortened from its start, or kept whole",
			heads("nightly-build-report", "", "nightly-test-report", "", "weekly-report", "", "x1", ""),
			map[string]string{"nightly-build-report": "nightly-build-report", "nightly-test-report": "nightly-test-report", "weekly-report": "weekly", "x1": "x1"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := ShortIDs(tt.heads)
			if fmt.Sprint(got) != fmt.Sprint(tt.want) {
				t.Fatalf("got  %v\nwant %v", got, tt.want)
			}
		})
	}
}

// Every short id resolves to its own session, among many made in one
// millisecond.
func TestEveryShortIDResolves(t *testing.T) {
	st := store.New(filepath.Join(t.TempDir(), "home"))
	var ids []string
	for i := range 100 {
		id := fmt.Sprintf("01a20afb-1c2d-7000-8000-%012x", uint64(i)*0x9e3779b97f4a7c15>>16)
		ids = append(ids, id)
		writeRecord(t, st, id, "", "/a", "2026-01-01T00:00:00.000Z")
	}
	hs, err := st.ListHeads()
	if err != nil {
		t.Fatal(err)
	}
	short := ShortIDs(hs)
	for _, id := range ids {
		s := short[id]
		if len(s) > shortMax && s != id {
			t.Fatalf("short id of %s is %q", id, s)
		}
		got, err := ResolveSession(st, SessionRef{Ref: s})
		if err != nil || got != id {
			t.Fatalf("%s (short %s) resolved to %q, %v", id, s, got, err)
		}
	}
}

// An ambiguous reference lists its sessions newest first with their short
// ids; a name two sessions hold says so.
func TestAmbiguousReferencesListCandidates(t *testing.T) {
	st := store.New(filepath.Join(t.TempDir(), "home"))
	writeRecord(t, st, "01a20afb-1c2d-7000-8000-3f9a2c000001", "dup", "/a", "2026-01-01T00:00:01.000Z")
	writeRecord(t, st, "01a20afb-1c2d-7000-8000-77b0e1000002", "dup", "/a", "2026-01-01T00:00:02.000Z")
	_, err := ResolveSession(st, SessionRef{Ref: "01a20afb"})
	var amb *errs.AmbiguousError
	if !errors.As(err, &amb) || amb.ByName || len(amb.Candidates) != 2 {
		t.Fatalf("got %v", err)
	}
	if c := amb.Candidates[0]; c.ShortID != "77b0e1" || c.Name != "dup" {
		t.Fatalf("newest first with its short id: %+v", amb.Candidates)
	}
	_, err = ResolveSession(st, SessionRef{Ref: "dup"})
	if !errors.As(err, &amb) || !amb.ByName {
		t.Fatalf("a shared name: %v", err)
	}
	var nf *errs.NotFoundError
	if _, err = ResolveSession(st, SessionRef{Ref: "triage"}); !errors.As(err, &nf) || nf.Fix != `no session is named "triage"; see trail list (trail run --name NAME names a session)` {
		t.Fatalf("an unknown name: %v", err)
	}
}
