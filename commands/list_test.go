package commands

import (
	"slices"
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
