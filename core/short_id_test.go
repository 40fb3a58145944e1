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
		{"Robota ids (session_<ms>_<base36>) are shortened from their random end",
			heads("session_1767600000000_r0b0t4xyz", "", "session_1767600099999_q7w8e9r0t", "", "session_1767600099999_q7w8zzzzz", ""),
			map[string]string{"session_1767600000000_r0b0t4xyz": "r0b0t4", "session_1767600099999_q7w8e9r0t": "q7w8e9", "session_1767600099999_q7w8zzzzz": "q7w8zz"}},
		{"an id of Robota's shape beside a UUID keeps both kinds apart",
			heads("session_1767600000000_3f9a2c5xy", "", "01a20afb-1c2d-7000-8000-3f9a2c000001", ""),
			map[string]string{"session_1767600000000_3f9a2c5xy": "3f9a2c5", "01a20afb-1c2d-7000-8000-3f9a2c000001": "3f9a2c0"}},
		{"an id like Robota's but with no time in it is shortened from its start",
			heads("session_later_r0b0t4xyz", ""),
			map[string]string{"session_later_r0b0t4xyz": "sessio"}},
		{"an id like Robota's but not base36 at its end is shortened from its start",
			heads("session_1767600000000_R0B0T4XYZ", ""),
			map[string]string{"session_1767600000000_R0B0T4XYZ": "sessio"}},
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

// Two Robota sessions are told apart by their random ends, and each is
// found by its short id or a prefix of its random end.
func TestRobotaSessionsResolveByTheirRandomEnd(t *testing.T) {
	st := store.New(filepath.Join(t.TempDir(), "home"))
	a, b := "session_1767600000000_r0b0t4xyz", "session_1767600099999_q7w8e9r0t"
	writeRecord(t, st, a, "", "/a", "2026-01-01T00:00:00.000Z")
	writeRecord(t, st, b, "", "/a", "2026-01-01T00:00:01.000Z")
	hs, err := st.ListHeads()
	if err != nil {
		t.Fatal(err)
	}
	short := ShortIDs(hs)
	if short[a] != "r0b0t4" || short[b] != "q7w8e9" {
		t.Fatalf("short ids %v", short)
	}
	for ref, want := range map[string]string{"r0b0t4": a, "r0b0": a, "q7w8e9r0t": b, "session_1767600000000": a} {
		got, err := ResolveSession(st, SessionRef{Ref: ref})
		if err != nil || got != want {
			t.Errorf("%s resolved to %q, %v; want %s", ref, got, err, want)
		}
	}
	var amb *errs.AmbiguousError
	if _, err := ResolveSession(st, SessionRef{Ref: "sessio"}); !errors.As(err, &amb) || len(amb.Candidates) != 2 {
		t.Errorf("the prefix both ids share: %v", err)
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
