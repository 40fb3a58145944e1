package main_test

import (
	"encoding/json"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// claudeSettings is a .claude/settings.json of the kind Claude Code users
// keep: Claude Code's own keys beside the ones trail reads. None may warn.
const claudeSettings = `{
  "$schema": "https://json.schemastore.org/claude-code-settings.json",
  "model": "claude-sonnet-4-5",
  "theme": "dark",
  "cleanupPeriodDays": 14,
  "includeCoAuthoredBy": false,
  "statusLine": {"type": "command", "command": "~/.claude/statusline.sh"},
  "enabledPlugins": {"formatter@team": true},
  "sandbox": {"enabled": false},
  "env": {"DEPLOY_ENV": "staging"},
  "permissions": {
    "allow": ["Bash(git diff *)", "Read(./src/**)"],
    "deny": ["Read(./.env)"],
    "additionalDirectories": ["../shared"],
    "defaultMode": "default"
  },
  "hooks": {"PostToolUse": [{"matcher": "Edit|Write", "hooks": [{"type": "command", "command": "true"}]}]}
}`

// trail config shows each value with its file; --check finds unknown keys
// and bad values (exit 7); a step warns once per file and key.
func TestConfigShowsSettingsAndTheirFiles(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.writeFile(filepath.Join(e.user, ".claude", "settings.json"), claudeSettings)
	e.writeFile(".trail/settings.json", `{"provider": "echo", "modle": "m", "permissions": {"allw": ["Bash"]}}`)

	r := e.must("", "config")
	for _, want := range []string{
		`(?m)^provider +"echo" +\./\.trail/settings\.json$`,
		`(?m)^model +"claude-sonnet-4-5" +~/\.claude/settings\.json$`,
		`(?m)^permissions\.allow +"Bash\(git diff \*\)" +~/\.claude/settings\.json\npermissions\.allow +"Read\(\./src/\*\*\)"`,
		`(?m)^timeout +2m0s +default$`,
		`(?m)^  \./\.trail/settings\.json +read, 2 unknown keys$`,
		`(?m)^  \./\.trail/settings\.json: unknown key "modle", ignored \(did you mean "model"\?\)$`,
		`(?m)^  \./\.trail/settings\.json: unknown key "permissions\.allw", ignored \(did you mean "permissions\.allow"\?\)$`,
	} {
		if !regexp.MustCompile(want).MatchString(r.stdout) {
			t.Errorf("trail config lacks %s:\n%s", want, r.stdout)
		}
	}
	if strings.Contains(r.stdout, "theme") || strings.Contains(r.stdout, "cleanupPeriodDays") || r.stderr != "" {
		t.Errorf("Claude Code's own keys are neither shown nor warned about:\n%s", r)
	}

	r = e.run("", "config", "--check")
	if r.code != 7 || !strings.Contains(r.stdout, `unknown key "modle"`) {
		t.Errorf("config --check with unknown keys: %s", r)
	}

	r = e.must("", "config", "--json")
	var doc struct {
		Settings []struct{ Key, File string } `json:"settings"`
		Files    []struct {
			Path        string   `json:"path"`
			Found       bool     `json:"found"`
			UnknownKeys []string `json:"unknownKeys"`
		} `json:"files"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &doc); err != nil || len(doc.Settings) == 0 || doc.Settings[0].Key != "provider" || !strings.HasSuffix(doc.Settings[0].File, ".trail/settings.json") {
		t.Fatalf("config --json: %v\n%s", err, r.stdout)
	}

	// a step warns once per file and key, and goes on
	r = e.must("", "run", "hi")
	if r.stdout != "echo: hi\n" || strings.Count(r.stderr, "trail: warning: ") != 2 || !strings.Contains(r.stderr, `unknown key "modle", ignored (did you mean "model"?)`) {
		t.Errorf("run with unknown keys: %s", r)
	}

	// fixed: --check passes
	e.writeFile(".trail/settings.json", `{"provider": "echo"}`)
	if r = e.run("", "config", "--check"); r.code != 0 || !strings.Contains(r.stdout, "no problems found") {
		t.Errorf("config --check, clean: %s", r)
	}
	// a bad value
	e.writeFile(".trail/settings.json", `{"provider": "ehco", "permissions": {"defaultMode": "yolo"}}`)
	if r = e.run("", "config", "--check"); r.code != 7 || !strings.Contains(r.stdout, `provider "ehco" is not one of`) || !strings.Contains(r.stdout, `permissions.defaultMode "yolo"`) {
		t.Errorf("config --check, bad values: %s", r)
	}
	// a file that is not JSON: exit 7 naming it, the others still shown
	e.writeFile(".trail/settings.json", `{"provider": }`)
	if r = e.run("", "config"); r.code != 7 || !regexp.MustCompile(`\./\.trail/settings\.json +refused: invalid JSON at line 1`).MatchString(r.stdout) || !strings.Contains(r.stdout, `"claude-sonnet-4-5"`) {
		t.Errorf("config with a broken file: %s", r)
	}
}

// With no provider anywhere, the error names the settings key and files.
func TestNoProviderNamesTheSettings(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.writeFile(".trail/settings.json", `{"provder": "echo"}`)
	r := e.run("", "run", "hi")
	if r.code != 2 || !strings.Contains(r.stderr, `unknown key "provder", ignored (did you mean "provider"?)`) ||
		!strings.Contains(r.stderr, "trail: no model provider configured\nhint: ") || !strings.Contains(r.stderr, `set "provider"`) ||
		!strings.Contains(r.stderr, filepath.Join(e.cwd, ".trail", "settings.json")) || !strings.Contains(r.stderr, "trail config") {
		t.Errorf("%s", r)
	}
}
