package main_test

import (
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/tidwall/gjson"

	"trail/core/provider/wire/wiretest"
)

// Claude Code's model aliases in its settings files ("model": "opus") are
// resolved before a request is sent: the API knows no model named "opus".

func TestAClaudeCodeModelAliasIsSentAsAModelID(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, model string
		env         []string
		want        string
	}{
		{"opus is the newest Opus", "opus", nil, "claude-opus-5"},
		{"ANTHROPIC_DEFAULT_OPUS_MODEL chooses what opus is", "opus", []string{"ANTHROPIC_DEFAULT_OPUS_MODEL=claude-opus-4-6"}, "claude-opus-4-6"},
		{"sonnet[1m] is Sonnet, without the 1M window", "sonnet[1m]", nil, "claude-sonnet-5"},
		{"default is trail's default", "default", nil, "claude-sonnet-4-5"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			srv := wiretest.NewServer(t, wiretest.Replay(wiretest.Transcript(t, "anthropic/text.sse")))
			e := anthropicEnv(t)
			e.setenv("ANTHROPIC_BASE_URL=" + srv.URL)
			e.setenv(tt.env...)
			e.writeFile(filepath.Join(e.user, ".claude", "settings.json"), `{"model": "`+tt.model+`"}`)
			r := e.must("", "run", "Hello")
			if r.stdout != "Hello!\n" || r.stderr != "" {
				t.Fatalf("%s", r)
			}
			if got := gjson.GetBytes(srv.Body(0), "model").String(); got != tt.want {
				t.Errorf("model sent = %q, want %q", got, tt.want)
			}
			if p := e.record(e.onlySession())["provider"].(map[string]any); p["model"] != tt.want {
				t.Errorf("record provider = %v", p)
			}
		})
	}
}

// A settings file written for Claude Code does not send its alias to an
// OpenAI-compatible server: the default goes, with one warning naming the
// file. --model on the command line goes as given.
func TestAClaudeCodeAliasIsNotSentToOpenAI(t *testing.T) {
	t.Parallel()
	srv := wiretest.NewServer(t, wiretest.Replay(wiretest.Transcript(t, "openai/text.sse")), wiretest.Replay(wiretest.Transcript(t, "openai/text.sse")))
	e := newEnv(t)
	e.setenv("OPENAI_API_KEY=sk-e2e-test", "OPENAI_BASE_URL="+srv.URL+"/v1")
	file := e.writeFile(filepath.Join(e.user, ".claude", "settings.json"), `{"model": "opus"}`)
	r := e.must("", "run", "Hello!")
	want := "trail: warning: " + file + `: model "opus" is a Claude Code alias for an Anthropic model, which the openai provider cannot use: using gpt-4o (pass --model to choose another)` + "\n"
	if r.stderr != want {
		t.Errorf("stderr = %q\nwant     %q", r.stderr, want)
	}
	if got := gjson.GetBytes(srv.Body(0), "model").String(); got != "gpt-4o" {
		t.Errorf("model sent = %q, want gpt-4o", got)
	}
	r = e.must("", "run", "-m", "opus", "Hello!")
	if r.stderr != "" {
		t.Errorf("stderr with --model = %q", r.stderr)
	}
	if got := gjson.GetBytes(srv.Body(1), "model").String(); got != "opus" {
		t.Errorf("model sent with --model opus = %q, want opus", got)
	}
}

// A server that does not know the model a settings file named: the hint
// names the file and the key, not the flag nobody passed.
func TestAnUnknownModelFromSettingsNamesTheFile(t *testing.T) {
	t.Parallel()
	srv := wiretest.NewServer(t, wiretest.Status(404, wiretest.Body(t, "anthropic/404_model.json")))
	e := anthropicEnv(t)
	e.setenv("ANTHROPIC_BASE_URL=" + srv.URL)
	file := e.writeFile(filepath.Join(e.cwd, ".claude", "settings.json"), `{"model": "claude-opus-9-9"}`)
	r := e.run("", "run", "Hello")
	if r.code != 6 {
		t.Fatalf("want exit 6: %s", r)
	}
	want := `hint: the model "claude-opus-9-9" comes from "model" in ` + file + ": set a model id the server knows there, or pass --model; the prompt is kept: trail resume " + e.onlySession() + " (no prompt) asks again\n"
	if !strings.HasSuffix(r.stderr, want) || strings.Count(r.stderr, "\n") != 2 {
		t.Errorf("stderr = %q\nwant the hint %q", r.stderr, want)
	}
}

// trail config shows an alias with the id a step sends; --check reports an
// alias the provider in effect cannot use.
func TestConfigShowsWhatAModelAliasResolvesTo(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.writeFile(filepath.Join(e.user, ".claude", "settings.json"), `{"model": "opus"}`)
	e.setenv("ANTHROPIC_API_KEY=" + anthropicKey)
	r := e.must("", "config")
	if !regexp.MustCompile(`(?m)^model +"opus" → claude-opus-5 +~/\.claude/settings\.json$`).MatchString(r.stdout) {
		t.Errorf("trail config:\n%s", r.stdout)
	}
	e.writeFile(".claude/settings.json", `{"env": {"ANTHROPIC_DEFAULT_OPUS_MODEL": "claude-opus-4-6"}}`)
	r = e.must("", "config", "--check")
	if !regexp.MustCompile(`(?m)^model +"opus" → claude-opus-4-6 \(ANTHROPIC_DEFAULT_OPUS_MODEL\) +~/\.claude/settings\.json$`).MatchString(r.stdout) {
		t.Errorf("trail config with the settings' ANTHROPIC_DEFAULT_OPUS_MODEL:\n%s", r.stdout)
	}

	o := newEnv(t)
	o.writeFile(filepath.Join(o.user, ".claude", "settings.json"), `{"model": "opus"}`)
	o.setenv("OPENAI_API_KEY=sk-e2e-test")
	r = o.run("", "config", "--check")
	want := `~/.claude/settings.json: model "opus" is a Claude Code alias for an Anthropic model, which the openai provider cannot use: using gpt-4o`
	if r.code != 7 || !strings.Contains(r.stdout, want) || r.stderr != "trail: config --check found 1 problem\n" {
		t.Errorf("config --check with openai: %s", r)
	}
}
