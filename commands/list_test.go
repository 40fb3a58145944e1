package commands

import (
	"slices"
	"strings"
	"testing"
	"time"

	"trail/store"
)

func TestListFilters(t *testing.T) {
	now := time.Date(2026, 11, 21, 12, 0, 0, 0, time.UTC)
	heads := func() []store.Head {
		return []store.Head{
			{ID: "now", Cwd: "/a", UpdatedAt: "2026-11-21T12:00:00.000Z"},
			{ID: "hour", Cwd: "/b", UpdatedAt: "2026-11-21T11:00:00.000Z", Status: "requires_action"},
			{ID: "week", Cwd: "/a", UpdatedAt: "2026-11-14T12:00:00.000Z"},
			{ID: "broken", Corrupt: true},
		}
	}
	tests := []struct {
		name string
		opts ListOptions
		want []string
	}{
		{"no filter keeps everything", ListOptions{}, []string{"now", "hour", "week", "broken"}},
		{"--since 2h", ListOptions{Since: 2 * time.Hour, HasSince: true}, []string{"now", "hour"}},
		{"--since 0s keeps only what was updated this instant", ListOptions{HasSince: true}, []string{"now"}},
		{"--cwd", ListOptions{Cwd: "/a"}, []string{"now", "week"}},
		{"--status idle counts a record without status", ListOptions{Status: "idle"}, []string{"now", "week"}},
		{"--status corrupt", ListOptions{Status: "corrupt"}, []string{"broken"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var ids []string
			for _, h := range filterHeads(heads(), &tt.opts, now) {
				ids = append(ids, h.ID)
			}
			if !slices.Equal(ids, tt.want) {
				t.Errorf("got %v, want %v", ids, tt.want)
			}
		})
	}
}

func TestOneLineCutKeepsWhatIsAlreadyOneLine(t *testing.T) {
	for _, tt := range []struct {
		in   string
		n    int
		want string
	}{
		{"", 5, ""},
		{"fix the tests", 50, "fix the tests"},
		{" lead", 50, "lead"},
		{"trail ", 50, "trail"},
		{"two  spaces", 50, "two spaces"},
		{"tab\there", 50, "tab here"},
		{"nbsp\u00a0here", 50, "nbsp here"},
		{"héllo wörld…", 12, "héllo wörld…"},
		{"héllo wörld…", 11, "héllo wörl…"},
		{"abcdef", 5, "abcd…"},
	} {
		if got := oneLineCut(tt.in, tt.n); got != tt.want {
			t.Errorf("oneLineCut(%q, %d) = %q, want %q", tt.in, tt.n, got, tt.want)
		}
		// The fast path answers exactly as the slow one.
		slow := strings.Join(strings.Fields(tt.in), " ")
		if r := []rune(slow); len(r) > tt.n {
			slow = string(r[:tt.n-1]) + "…"
		}
		if got := oneLineCut(tt.in, tt.n); got != slow {
			t.Errorf("oneLineCut(%q, %d) = %q, the full path gives %q", tt.in, tt.n, got, slow)
		}
	}
}
