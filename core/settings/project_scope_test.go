package settings

import (
	"path/filepath"
	"slices"
	"testing"
)

// A project's files may not set bypassPermissions or auto (Claude Code's
// rule since v2.1.257): the mode comes from the other files, and the
// ignored value is kept to be said. The user's files and --settings may.
func TestAProjectCannotSetBypassPermissionsOrAuto(t *testing.T) {
	tests := []struct {
		name                 string
		files                map[string]string // "user", "home", "claude", "local", "trail", "extra" -> defaultMode
		wantMode, wantIgnore string
		wantFrom             string // the file of the ignored mode
	}{
		{"a project's bypassPermissions is ignored", map[string]string{"claude": "bypassPermissions"}, "", "bypassPermissions", "claude"},
		{"...in settings.local.json too", map[string]string{"local": "bypassPermissions"}, "", "bypassPermissions", "local"},
		{"...and in .trail/settings.json", map[string]string{"trail": "bypassPermissions"}, "", "bypassPermissions", "trail"},
		{"a project's auto is ignored", map[string]string{"claude": "auto"}, "", "auto", "claude"},
		{"the user's mode stays in effect", map[string]string{"user": "acceptEdits", "claude": "bypassPermissions"}, "acceptEdits", "bypassPermissions", "claude"},
		{"a project may set acceptEdits", map[string]string{"claude": "acceptEdits"}, "acceptEdits", "", ""},
		{"~/.claude/settings.json may set bypassPermissions", map[string]string{"user": "bypassPermissions"}, "bypassPermissions", "", ""},
		{"trail's home may set bypassPermissions", map[string]string{"home": "bypassPermissions"}, "bypassPermissions", "", ""},
		{"--settings may set bypassPermissions", map[string]string{"claude": "plan", "extra": "bypassPermissions"}, "bypassPermissions", "", ""},
		{"a later file's own mode leaves nothing ignored", map[string]string{"claude": "bypassPermissions", "local": "plan"}, "plan", "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			user, home, cwd := t.TempDir(), t.TempDir(), t.TempDir()
			where := map[string]string{
				"user":   filepath.Join(user, ".claude", "settings.json"),
				"home":   filepath.Join(home, "settings.json"),
				"claude": filepath.Join(cwd, ".claude", "settings.json"),
				"local":  filepath.Join(cwd, ".claude", "settings.local.json"),
				"trail":  filepath.Join(cwd, ".trail", "settings.json"),
				"extra":  filepath.Join(t.TempDir(), "extra.json"),
			}
			for k, mode := range tt.files {
				writeSettings(t, filepath.Dir(where[k]), filepath.Base(where[k]), `{"permissions":{"defaultMode":"`+mode+`"}}`)
			}
			extra := ""
			if _, ok := tt.files["extra"]; ok {
				extra = where["extra"]
			}
			s, err := Load(Paths(filepath.Join(user, ".claude"), home, cwd), ProjectPaths(filepath.Join(user, ".claude"), home, cwd), extra)
			if err != nil {
				t.Fatal(err)
			}
			p := s.Permissions
			if p.DefaultMode != tt.wantMode || p.IgnoredMode != tt.wantIgnore || p.IgnoredModeFrom != where[tt.wantFrom] && tt.wantFrom != "" {
				t.Errorf("mode %q, ignored %q from %q; want %q, ignored %q from %s", p.DefaultMode, p.IgnoredMode, p.IgnoredModeFrom, tt.wantMode, tt.wantIgnore, tt.wantFrom)
			}
		})
	}
}

// Run in the home folder, ./.claude/settings.json is the user's file.
func TestProjectPathsLeaveOutTheUsersFiles(t *testing.T) {
	home := t.TempDir()
	got := ProjectPaths(filepath.Join(home, ".claude"), filepath.Join(home, ".trail"), home)
	if slices.Contains(got, filepath.Join(home, ".claude", "settings.json")) || slices.Contains(got, filepath.Join(home, ".trail", "settings.json")) || len(got) != 2 {
		t.Errorf("ProjectPaths in the home folder = %v", got)
	}
	cwd := t.TempDir()
	if got := ProjectPaths(filepath.Join(home, ".claude"), filepath.Join(home, ".trail"), cwd); len(got) != 4 {
		t.Errorf("ProjectPaths = %v, want the 4 files of .claude and .trail", got)
	}
}

// trail config shows the mode in effect, and the ignored value with why.
func TestInspectSkipsAProjectsBypassPermissions(t *testing.T) {
	user, home, cwd := t.TempDir(), t.TempDir(), t.TempDir()
	writeSettings(t, user, ".claude/settings.json", `{"permissions":{"defaultMode":"plan"}}`)
	proj := writeSettings(t, cwd, ".claude/settings.json", `{"permissions":{"defaultMode":"bypassPermissions"}}`)
	entries, files := Inspect(Paths(filepath.Join(user, ".claude"), home, cwd), ProjectPaths(filepath.Join(user, ".claude"), home, cwd), "")
	for _, e := range entries {
		if e.Key == "permissions.defaultMode" && string(e.Value) != `"plan"` {
			t.Errorf("defaultMode in effect = %s from %s, want plan", e.Value, e.File)
		}
	}
	ignored := ""
	for _, f := range files {
		for _, e := range f.Entries {
			if e.Ignored != "" {
				ignored = e.File + ": " + e.Ignored
			}
		}
	}
	if want := proj + ": " + IgnoredModeProblem("bypassPermissions"); ignored != want {
		t.Errorf("ignored = %q, want %q", ignored, want)
	}
}
