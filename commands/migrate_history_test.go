package commands

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func copyRecord(t *testing.T, dir, fixture, id string) {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "testdata", "records", fixture))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, id+".json"), b, 0o600); err != nil {
		t.Fatal(err)
	}
}

func TestMigrateHistoryCommand(t *testing.T) {
	ios, _, out, errOut := TestIO()
	d := testDeps(t, ios)
	dir := filepath.Join(d.Env("TRAIL_HOME"), "sessions")
	copyRecord(t, dir, "robota.json", "robota-0001")
	copyRecord(t, dir, "trail.json", "trail-0001")
	copyRecord(t, dir, "truncated.json", "broken")
	broken, _ := os.ReadFile(filepath.Join(dir, "broken.json"))

	code := runTrail(t, d, "migrate-history", "--backup")
	if code != ExitInvalidData {
		t.Fatalf("exit %d, want 7 (a record failed)", code)
	}
	if out.String() != "Migrated: 1, Skipped: 1, Failed: 1, Total: 3\n" {
		t.Errorf("stdout %q", out)
	}
	if lines := strings.Split(strings.TrimSpace(errOut.String()), "\n"); len(lines) != 1 ||
		!strings.HasPrefix(lines[0], "trail: ") || !strings.Contains(lines[0], filepath.Join(dir, "broken.json")) {
		t.Errorf("stderr %q", errOut)
	}
	if after, _ := os.ReadFile(filepath.Join(dir, "broken.json")); string(after) != string(broken) {
		t.Error("the corrupt record was rewritten")
	}
	if _, err := os.Stat(filepath.Join(dir, "robota-0001.json.bak")); err != nil {
		t.Errorf("--backup: %v", err)
	}
	// The history ids of messages without one come from the injected ids.
	rec, _ := os.ReadFile(filepath.Join(dir, "robota-0001.json"))
	if !strings.Contains(string(rec), `"id": "id-0001"`) {
		t.Errorf("history ids: %s", rec)
	}
	out.Reset()
	os.Remove(filepath.Join(dir, "broken.json"))
	if code := runTrail(t, d, "migrate-history"); code != ExitOK || out.String() != "Migrated: 0, Skipped: 2, Failed: 0, Total: 2\n" {
		t.Errorf("second run: exit %d, %q", code, out)
	}
}

func TestMigrateHistoryCommandOptions(t *testing.T) {
	ios, _, out, errOut := TestIO()
	d := testDeps(t, ios)
	other := t.TempDir()
	copyRecord(t, other, "robota.json", "robota-0001")
	before, _ := os.ReadFile(filepath.Join(other, "robota-0001.json"))
	if code := runTrail(t, d, "migrate-history", "--dir", other, "--dry-run"); code != ExitOK {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if out.String() != "Migrated: 1, Skipped: 0, Failed: 0, Total: 1\n" || !strings.Contains(errOut.String(), "dry run") {
		t.Errorf("stdout %q stderr %q", out, errOut)
	}
	if after, _ := os.ReadFile(filepath.Join(other, "robota-0001.json")); string(after) != string(before) {
		t.Error("--dry-run changed the record")
	}
	for _, args := range [][]string{
		{"migrate-history", "extra"},
		{"migrate-history", "--dry-run", "--backup"},
		{"migrate-history", "--dir", ""},
		{"migrate-history", "--dir", filepath.Join(other, "robota-0001.json")},
	} {
		if code := runTrail(t, d, args...); code != ExitUsage {
			t.Errorf("%v: exit %d, want 2", args, code)
		}
	}
	if code := runTrail(t, d, "migrate-history", "--dir", filepath.Join(other, "missing")); code != ExitNotFound {
		t.Errorf("a --dir that does not exist: exit %d, want 3 (not found)", code)
	}
}
