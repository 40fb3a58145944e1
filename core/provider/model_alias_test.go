package provider

import (
	"strconv"
	"strings"
	"testing"

	"trail/core/settings"
)

func TestClaudeCodeAliasesResolveForAnthropic(t *testing.T) {
	none := func(string) string { return "" }
	vars := map[string]string{
		"ANTHROPIC_DEFAULT_OPUS_MODEL":   "claude-opus-4-1-20250805",
		"ANTHROPIC_DEFAULT_SONNET_MODEL": "claude-sonnet-4-5-20250929",
		"ANTHROPIC_DEFAULT_HAIKU_MODEL":  "claude-3-5-haiku-latest",
	}
	set := func(k string) string { return vars[k] }
	tests := []struct {
		model  string
		env    func(string) string
		want   string
		wantOK bool
	}{
		{"opus", none, "claude-opus-5", true},
		{"sonnet", none, "claude-sonnet-5", true},
		{"haiku", none, "claude-haiku-4-5", true},
		{"best", none, "claude-opus-5", true},
		{"opusplan", none, "claude-sonnet-5", true},
		{"Opus", none, "claude-opus-5", true},
		{"default", none, "claude-sonnet-4-5", true},
		{"default", set, "claude-sonnet-4-5", true},
		{"sonnet[1m]", none, "claude-sonnet-5", true},
		{"opus[1m]", none, "claude-opus-5", true},
		{"claude-sonnet-4-5[1m]", none, "claude-sonnet-4-5", true},
		{"opus", set, "claude-opus-4-1-20250805", true},
		{"opusplan", set, "claude-sonnet-4-5-20250929", true},
		{"sonnet[1m]", set, "claude-sonnet-4-5-20250929", true},
		{"haiku", set, "claude-3-5-haiku-latest", true},
		{"claude-opus-4-6", set, "claude-opus-4-6", false},
		{"opus-4", none, "opus-4", false},
		{"", none, "", false},
	}
	for _, tt := range tests {
		got, ok := ResolveAlias(tt.model, tt.env)
		if got != tt.want || ok != tt.wantOK {
			t.Errorf("ResolveAlias(%q) = %q, %v; want %q, %v", tt.model, got, ok, tt.want, tt.wantOK)
		}
	}
}

// An alias names the newest model of its family that the table knows: a
// row added for a newer Opus must move "opus" along with it.
func TestAliasesNameTheNewestRowOfTheirFamily(t *testing.T) {
	for _, f := range []aliasFamily{opusFamily, sonnetFamily, haikuFamily} {
		family := strings.Split(f.id, "-")[1] // claude-<family>-<version>
		if _, ok := ModelInfo(f.id); !ok {
			t.Errorf("%s has no row in the model table", f.id)
		}
		newest, newestV := "", []int(nil)
		for _, r := range models.Get() {
			v, ok := familyVersion(r.Prefix, family)
			if ok && laterVersion(v, newestV) {
				newest, newestV = r.Prefix, v
			}
		}
		if newest != f.id {
			t.Errorf("the %s alias resolves to %s, but the table's newest %s is %s", family, f.id, family, newest)
		}
	}
}

// familyVersion reads "claude-opus-4-8" as [4 8] for family "opus".
func familyVersion(prefix, family string) ([]int, bool) {
	rest, ok := strings.CutPrefix(prefix, "claude-"+family+"-")
	if !ok {
		return nil, false
	}
	var v []int
	for _, p := range strings.Split(rest, "-") {
		n, err := strconv.Atoi(p)
		if err != nil {
			return nil, false
		}
		v = append(v, n)
	}
	return v, true
}

func laterVersion(a, b []int) bool {
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			return a[i] > b[i]
		}
	}
	return len(a) > len(b)
}

func TestResolveTurnsAliasesIntoModelIDs(t *testing.T) {
	const file = "/home/u/.claude/settings.json"
	tests := []struct {
		name        string
		flags       Flags
		env         map[string]string
		settings    settings.Settings
		wantModel   string
		wantFrom    string
		wantWritten string
		wantWarning string // a part of it
	}{
		{name: "an alias in a settings file is resolved for anthropic",
			env: map[string]string{"ANTHROPIC_API_KEY": "k"}, settings: settings.Settings{Model: "opus", ModelFrom: file},
			wantModel: "claude-opus-5", wantFrom: file, wantWritten: "opus"},
		{name: "the environment's ANTHROPIC_DEFAULT_OPUS_MODEL chooses what opus is",
			env:      map[string]string{"ANTHROPIC_API_KEY": "k", "ANTHROPIC_DEFAULT_OPUS_MODEL": "claude-opus-4-6"},
			settings: settings.Settings{Model: "opus", ModelFrom: file}, wantModel: "claude-opus-4-6", wantFrom: file, wantWritten: "opus"},
		{name: "so does the settings' env",
			env:       map[string]string{"ANTHROPIC_API_KEY": "k"},
			settings:  settings.Settings{Model: "opus", ModelFrom: file, Env: map[string]string{"ANTHROPIC_DEFAULT_OPUS_MODEL": "claude-opus-4-7"}},
			wantModel: "claude-opus-4-7", wantFrom: file, wantWritten: "opus"},
		{name: "an alias on the command line is resolved for anthropic too",
			flags: Flags{Model: "haiku"}, env: map[string]string{"ANTHROPIC_API_KEY": "k"}, wantModel: "claude-haiku-4-5", wantWritten: "haiku"},
		{name: "a full id is sent as it is", env: map[string]string{"ANTHROPIC_API_KEY": "k"},
			settings: settings.Settings{Model: "claude-opus-4-6", ModelFrom: file}, wantModel: "claude-opus-4-6", wantFrom: file},
		{name: "an alias from a settings file is not sent to openai: its default is, with a warning naming the file",
			env: map[string]string{"OPENAI_API_KEY": "k"}, settings: settings.Settings{Model: "sonnet[1m]", ModelFrom: file},
			wantModel: "gpt-4o", wantFrom: file, wantWritten: "sonnet[1m]", wantWarning: file + `: model "sonnet[1m]" is a Claude Code alias`},
		{name: "default from a settings file is openai's default, without a warning",
			env: map[string]string{"OPENAI_API_KEY": "k"}, settings: settings.Settings{Model: "default", ModelFrom: file},
			wantModel: "gpt-4o", wantFrom: file, wantWritten: "default"},
		{name: "--model opus goes to an OpenAI-compatible server as given",
			flags: Flags{Model: "opus"}, env: map[string]string{"OPENAI_BASE_URL": "http://127.0.0.1:1/v1"},
			settings: settings.Settings{Model: "sonnet", ModelFrom: file}, wantModel: "opus"},
		{name: "TRAIL_MODEL=opus goes to openai as given",
			env: map[string]string{"OPENAI_API_KEY": "k", "TRAIL_MODEL": "opus"}, wantModel: "opus"},
		{name: "echo keeps the settings' model as its label",
			flags: Flags{Name: "echo"}, settings: settings.Settings{Model: "opus", ModelFrom: file}, wantModel: "opus", wantFrom: file},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := tt.settings
			c, err := Resolve(tt.flags, func(k string) string { return tt.env[k] }, &s, nil, "/work")
			if err != nil {
				t.Fatal(err)
			}
			if c.Model != tt.wantModel || c.ModelFrom != tt.wantFrom || c.ModelAsWritten != tt.wantWritten {
				t.Errorf("model %q from %q written %q; want %q from %q written %q", c.Model, c.ModelFrom, c.ModelAsWritten, tt.wantModel, tt.wantFrom, tt.wantWritten)
			}
			if (tt.wantWarning == "") != (c.Warning == "") || !strings.Contains(c.Warning, tt.wantWarning) {
				t.Errorf("warning %q, want one with %q", c.Warning, tt.wantWarning)
			}
		})
	}
}
