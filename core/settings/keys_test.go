package settings

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func writeKeysFile(t *testing.T, body string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "settings.json")
	if err := os.WriteFile(p, []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

// A key Claude Code accepts is known, so a real .claude/settings.json never
// warns; any other key is reported once, permissions' own keys included.
func TestUnknownKeys(t *testing.T) {
	tests := []struct {
		name, body string
		want       string
	}{
		{"trail's keys", `{"provider":"echo","model":"m","baseUrl":"http://x","systemPrompt":"s","maxTurns":1,"timeout":"9s","autoCompactThreshold":0.5,"env":{},"hooks":{},"permissions":{"allow":[],"ask":[],"deny":[],"defaultMode":"plan"}}`, "[]"},
		{"Claude Code's keys", `{"$schema":"https://json.schemastore.org/claude-code-settings.json","theme":"dark","statusLine":{"type":"command","command":"x"},"apiKeyHelper":"h","cleanupPeriodDays":7,"includeCoAuthoredBy":false,"enabledPlugins":{},"sandbox":{"enabled":true},"outputStyle":"Explanatory","permissions":{"additionalDirectories":["../d"],"disableBypassPermissionsMode":"disable"}}`, "[]"},
		// a user's ~/.claude/settings.json as published in their notes:
		// Claude Code wrote feedbackSurveyState there after its survey
		{"what Claude Code writes itself", `{"$schema":"https://json.schemastore.org/claude-code-settings.json","model":"opusplan","feedbackSurveyState":{"lastShownTime":1754052702842},"enabledMcpjsonServers":["eventuali"]}`, "[]"},
		{"misspelt keys, each once", `{"provder":"echo","modle":"m","modle":"n","permissions":{"allw":["Bash"]}}`, "[provder modle permissions.allw]"},
		{"not an object", `[]`, "[]"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := writeKeysFile(t, tt.body)
			s, err := Load([]string{p}, nil, "")
			if err != nil {
				if tt.body == `[]` {
					return // Load refuses it; Inspect reports it
				}
				t.Fatal(err)
			}
			var keys []string
			for _, u := range s.Unknown {
				if u.File != p {
					t.Errorf("unknown key %q names %q", u.Key, u.File)
				}
				keys = append(keys, u.Key)
			}
			if got := fmt.Sprint(keys); got != tt.want && !(tt.want == "[]" && len(keys) == 0) {
				t.Errorf("unknown keys %s, want %s", got, tt.want)
			}
		})
	}
}

// Inspect shows each value in effect with its file, merged as Load merges:
// the last file decides a scalar, rules add up; a broken file counts for
// nothing and is reported, and the files after it are still read.
func TestInspect(t *testing.T) {
	dir := t.TempDir()
	a := filepath.Join(dir, "a.json")
	b := filepath.Join(dir, "b.json")
	bad := filepath.Join(dir, "bad.json")
	os.WriteFile(a, []byte(`{"provider":"openai","model":"m1","permissions":{"allow":["Read"]},"env":{"A":"1"}}`), 0o600)
	os.WriteFile(bad, []byte(`{"model": }`), 0o600)
	os.WriteFile(b, []byte(`{"model":"m2","permissions":{"allow":["Bash(git diff *)"]},"theme":"dark","typo":1}`), 0o600)
	entries, files := Inspect([]string{a, filepath.Join(dir, "missing.json"), bad, b}, nil, "")
	var got []string
	for _, e := range entries {
		got = append(got, fmt.Sprintf("%s=%s@%s", e.Key, e.Value, filepath.Base(e.File)))
	}
	want := `provider="openai"@a.json model="m2"@b.json permissions.allow="Read"@a.json permissions.allow="Bash(git diff *)"@b.json env.A="1"@a.json`
	if strings.Join(got, " ") != want {
		t.Errorf("entries\n got %s\nwant %s", strings.Join(got, " "), want)
	}
	if len(files) != 4 || !files[0].Found || files[1].Found || files[2].Err == nil || len(files[3].Unknown) != 1 || files[3].Unknown[0].Key != "typo" {
		t.Errorf("files: %+v", files)
	}
}
