package commands

import (
	"os"
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

// A session that has only its log is a row of every format, status
// corrupt, with what its log says of it (name, cwd; the log's time as
// updatedAt), and stderr says how to rebuild its record.
func TestListShowsASessionThatHasOnlyItsLog(t *testing.T) {
	const id = "session_1767600000000_r0b0t4xyz"
	const row = id + "\t2026-01-05T08:00:00.000Z\tcorrupt\t0\trobo\t/r\n"
	for _, tt := range []struct {
		args []string
		want []string // on stdout
	}{
		{[]string{"list"}, []string{"ok\t", row}},
		{[]string{"list", "--status", "corrupt"}, []string{row}},
		{[]string{"list", "--json"}, []string{`"id":"` + id + `","shortId":"r0b0t4","status":"corrupt","logOnly":true,"path":`,
			`"fix":"trail replay ` + id + ` --write-record rebuilds the record from its log (or trail delete ` + id + ` removes the log)","name":"robo","cwd":"/r","createdAt":"2026-01-05T07:00:00.000Z"`}},
		{[]string{"list", "--jsonl"}, []string{`"id":"` + id + `","shortId":"r0b0t4","status":"corrupt","logOnly":true,`}},
	} {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			ios, _, out, errOut := TestIO()
			d := testDeps(t, ios)
			st := store.New(d.Env("TRAIL_HOME"))
			if err := st.EnsureLayout(); err != nil {
				t.Fatal(err)
			}
			os.WriteFile(st.RecordPath("ok"), []byte(`{"id":"ok","cwd":"/w","createdAt":"2026-11-21T11:00:00.000Z","updatedAt":"2026-11-21T11:00:00.000Z","messages":[]}`), 0o600)
			os.WriteFile(st.LogPath("ok"), []byte("{}\n"), 0o600)
			os.WriteFile(st.LogPath(id), []byte(`{"timestamp":"2026-01-05T07:00:00.000Z","sessionId":"`+id+`","event":"session_init","cwd":"/r","name":"robo"}`+"\n"), 0o600)
			at := time.Date(2026, 1, 5, 8, 0, 0, 0, time.UTC)
			os.Chtimes(st.LogPath(id), at, at)
			if code := runTrail(t, d, tt.args...); code != ExitOK {
				t.Fatalf("exit %d: %s", code, errOut)
			}
			for _, w := range tt.want {
				if !strings.Contains(out.String(), w) {
					t.Errorf("stdout lacks %q:\n%s", w, out)
				}
			}
			if strings.Contains(strings.Join(tt.args, " "), "corrupt") && strings.Contains(out.String(), "ok\t") {
				t.Errorf("--status corrupt lists a sound session:\n%s", out)
			}
			wantErr := "trail: warning: session " + id + " has a log but no record (" + st.LogPath(id) + ")\n" +
				"hint: trail replay " + id + " --write-record rebuilds the record from its log (or trail delete " + id + " removes the log)\n"
			if errOut.String() != wantErr {
				t.Errorf("stderr\n got %q\nwant %q", errOut, wantErr)
			}
		})
	}
}
