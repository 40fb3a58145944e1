package commands

import (
	"encoding/json"
	"testing"

	"trail/core/settings"
)

func TestConfigRowsResolveAModelAlias(t *testing.T) {
	const file = "/u/.claude/settings.json"
	model := settings.Entry{Key: "model", Value: json.RawMessage(`"opus"`), File: file}
	envOf := func(kv map[string]string) func(string) string { return func(k string) string { return kv[k] } }
	tests := []struct {
		name                     string
		env                      map[string]string
		entries                  []settings.Entry
		resolved, why, wantWarns string
	}{
		{name: "anthropic: the newest Opus", env: map[string]string{"ANTHROPIC_API_KEY": "k"},
			entries: []settings.Entry{model}, resolved: "claude-opus-5"},
		{name: "anthropic: what ANTHROPIC_DEFAULT_OPUS_MODEL says", env: map[string]string{"ANTHROPIC_API_KEY": "k", "ANTHROPIC_DEFAULT_OPUS_MODEL": "claude-opus-4-6"},
			entries: []settings.Entry{model}, resolved: "claude-opus-4-6", why: "ANTHROPIC_DEFAULT_OPUS_MODEL"},
		{name: "anthropic: the files' env stands in for the environment", env: map[string]string{"ANTHROPIC_API_KEY": "k"},
			entries:  []settings.Entry{model, {Key: "env.ANTHROPIC_DEFAULT_OPUS_MODEL", Value: json.RawMessage(`"claude-opus-4-7"`), File: file}},
			resolved: "claude-opus-4-7", why: "ANTHROPIC_DEFAULT_OPUS_MODEL"},
		{name: "openai: its default, and a problem for --check", env: map[string]string{"OPENAI_API_KEY": "k"},
			entries: []settings.Entry{model}, resolved: "gpt-4o", why: "openai's default",
			wantWarns: `model "opus" is a Claude Code alias for an Anthropic model, which the openai provider cannot use: using gpt-4o (pass --model to choose another)`},
		{name: "echo: a label, left alone", env: map[string]string{"TRAIL_PROVIDER": "echo"}, entries: []settings.Entry{model}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rows := configRows(envOf(tt.env), tt.entries)
			for _, r := range rows {
				if r.Key != "model" {
					continue
				}
				if r.Resolved != tt.resolved || r.ResolvedWhy != tt.why || r.Warning != tt.wantWarns {
					t.Errorf("model row resolved %q (%q), warning %q; want %q (%q), %q", r.Resolved, r.ResolvedWhy, r.Warning, tt.resolved, tt.why, tt.wantWarns)
				}
			}
			problems := modelProblems(rows)
			if (tt.wantWarns != "") != (len(problems) == 1) || len(problems) > 1 || len(problems) == 1 && problems[0].File != file {
				t.Errorf("problems = %+v", problems)
			}
		})
	}
}
