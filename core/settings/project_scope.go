package settings

// What a project's own settings files may not set. A cloned repository
// brings its .claude and .trail folders, and running trail in it reads
// them; Claude Code (since v2.1.257) takes defaultMode bypassPermissions
// and auto only from the user's files, --settings and flags, since either
// lets calls through unasked. trail does the same: such a value in a
// project's file is ignored (Permissions.IgnoredMode), and a step and
// trail config say so.

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"slices"
)

// userOnlyModes are the defaultMode values only the user may set.
var userOnlyModes = []string{"bypassPermissions", "auto"}

// ProjectPaths are the files of Paths a project brings: those of cwd's
// .claude and .trail folders, unless one is also a user's file (trail run
// in the home folder, where ./.claude/settings.json is the user's).
func ProjectPaths(claudeDir, trailHome, cwd string) []string {
	var user []string
	if claudeDir != "" {
		user = append(user, filepath.Join(claudeDir, "settings.json"))
	}
	user = append(user, filepath.Join(trailHome, "settings.json"))
	var out []string
	for _, p := range []string{
		filepath.Join(cwd, ".claude", "settings.json"),
		filepath.Join(cwd, ".claude", "settings.local.json"),
		filepath.Join(cwd, ".trail", "settings.json"),
		filepath.Join(cwd, ".trail", "settings.local.json"),
	} {
		if !slices.Contains(user, p) {
			out = append(out, p)
		}
	}
	return out
}

// ignoredMode reports whether a defaultMode of mode in the file at path is
// ignored: a project's file setting a mode only the user may.
func (s *Settings) ignoredMode(path, mode string) bool {
	return s.project[path] && slices.Contains(userOnlyModes, mode)
}

// IgnoredModeProblem says why a project's defaultMode is not used.
func IgnoredModeProblem(mode string) string {
	return fmt.Sprintf("permissions.defaultMode %q is ignored: a project's settings may not set it (set it in your user settings, ~/.claude/settings.json or $CLAUDE_CONFIG_DIR/settings.json, or pass --permission-mode)", mode)
}

// markIgnored notes on entries (of one file) the values a step ignores.
func (s *Settings) markIgnored(entries []Entry) {
	for i, e := range entries {
		var mode string
		if e.Key == "permissions.defaultMode" && json.Unmarshal(e.Value, &mode) == nil && s.ignoredMode(e.File, mode) {
			entries[i].Ignored = IgnoredModeProblem(mode)
		}
	}
}

func pathSet(paths []string) map[string]bool {
	m := make(map[string]bool, len(paths))
	for _, p := range paths {
		m[p] = true
	}
	return m
}
