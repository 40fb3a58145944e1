package main_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// migrate-history --dir says what is wrong with the folder it was given:
// not a folder (usage), empty (usage, never the default folder), missing
// (not found), and a trail home instead of its sessions folder (a hint
// naming that folder; nothing migrated).
func TestMigrateHistoryDirFeedback(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.rawLogs = true // Robota wrote these files, not trail
	e.robotaHome()
	e.writeFile(filepath.Join(e.home, "settings.json"), "{}")
	record := e.recordPath(robotaID)
	before, _ := os.ReadFile(record)
	tests := []struct {
		name       string
		dir        []string
		wantCode   int
		wantStdout string
		wantStderr string
	}{
		{"a device is not a folder", []string{"--dir", os.DevNull}, 2, "",
			`trail: --dir "` + os.DevNull + `" is not a folder` + "\nhint: --dir names a folder of session records"},
		{"a record file is not a folder", []string{"--dir", record}, 2, "",
			`trail: --dir "` + record + `" is not a folder`},
		{"a missing folder is not found", []string{"--dir", filepath.Join(e.home, "missing")}, 3, "",
			`trail: folder "` + filepath.Join(e.home, "missing") + `" not found`},
		{"the home names its sessions folder", []string{"--dir", e.home}, 0, "Migrated: 0, Skipped: 0, Failed: 0, Total: 0\n",
			"it looks like a trail home, whose records are in its sessions folder\nhint: trail migrate-history --dir " + filepath.Join(e.home, "sessions") + "\n"},
		{"an empty --dir is not the default folder", []string{"--dir", ""}, 2, "", "trail: --dir is empty"},
		{"--dir= is empty too", []string{"--dir="}, 2, "", "trail: --dir is empty"},
	}
	for _, tt := range tests {
		r := e.run("", append([]string{"migrate-history"}, tt.dir...)...)
		if r.code != tt.wantCode || r.stdout != tt.wantStdout || !strings.Contains(r.stderr, tt.wantStderr) {
			t.Errorf("%s: %s\nwant exit %d, stdout %q, stderr with %q", tt.name, r, tt.wantCode, tt.wantStdout, tt.wantStderr)
		}
		if after, _ := os.ReadFile(record); string(after) != string(before) {
			t.Fatalf("%s: the record was rewritten", tt.name)
		}
	}
	// The hint's command does the migration.
	r := e.must("", "migrate-history", "--dir", filepath.Join(e.home, "sessions"))
	if r.stdout != "Migrated: 1, Skipped: 0, Failed: 0, Total: 1\n" {
		t.Fatalf("migrate-history --dir sessions: %s", r)
	}
}
