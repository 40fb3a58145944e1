package main_test

import (
	"fmt"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"trail/core/provider/wire/wiretest"
)

// Claude Code's BASH_DEFAULT_TIMEOUT_MS and BASH_MAX_TIMEOUT_MS (its
// env-vars page; users set them in ~/.claude/settings.json's env for long
// builds) are the Bash tool's limits here too, from the environment or the
// settings' env: a call naming no timeout gets the default, a call naming
// more than the maximum gets the maximum.
func TestClaudeCodesBashTimeouts(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.setenv("BASH_DEFAULT_TIMEOUT_MS=300")
	writeClaudeSettings(t, e, map[string]any{"env": map[string]any{"BASH_MAX_TIMEOUT_MS": "700"}})
	s := e.script(calls(
		call("Bash", map[string]any{"command": "sleep 5"}),
		call("Bash", map[string]any{"command": "sleep 5", "timeout": 100000}),
		call("Bash", map[string]any{"command": "sleep 5", "timeout": 500}),
	), answer("done"))
	e.must("", "run", "--provider", "script", "--script", s, "--allow-tool", "Bash", "go")
	results := e.toolResults(e.onlySession())
	for c, want := range map[string]string{"call_0_0": "Command timed out after 300ms", "call_0_1": "Command timed out after 700ms", "call_0_2": "Command timed out after 500ms"} {
		if got, _ := results[c]["error"].(string); got != want {
			t.Errorf("%s: error %q, want %q", c, got, want)
		}
	}

	e.setenv("BASH_DEFAULT_TIMEOUT_MS=5m")
	if r := e.run("", "run", "--provider", "echo", "hi"); r.code != 2 || !strings.Contains(r.stderr, `BASH_DEFAULT_TIMEOUT_MS "5m" is no time in milliseconds`) {
		t.Errorf("BASH_DEFAULT_TIMEOUT_MS=5m: %s", r)
	}
	// a bad value in a settings file's env names that file, not the shell
	e = newEnv(t)
	writeClaudeSettings(t, e, map[string]any{"env": map[string]any{"BASH_MAX_TIMEOUT_MS": "10min"}})
	if r := e.run("", "run", "--provider", "echo", "hi"); r.code != 2 || !strings.Contains(r.stderr, `BASH_MAX_TIMEOUT_MS "10min" is no time in milliseconds (in the "env" of `+filepath.Join(e.user, ".claude", "settings.json")+")") || !strings.Contains(r.stderr, "remove it from that file") {
		t.Errorf("a bad BASH_MAX_TIMEOUT_MS in the settings' env: %s", r)
	}
	// refused whatever would win over it, as config --check says
	e = newEnv(t)
	e.setenv("API_TIMEOUT_MS=abc")
	if r := e.run("", "run", "--provider", "echo", "--timeout", "30s", "hi"); r.code != 2 || !strings.Contains(r.stderr, "from 1 to 2147483647") {
		t.Errorf("a bad API_TIMEOUT_MS beside --timeout: %s", r)
	}
	e.writeFile(".trail/settings.json", `{"timeout": "30s"}`)
	if r := e.run("", "run", "--provider", "echo", "hi"); r.code != 2 {
		t.Errorf("a bad API_TIMEOUT_MS beside a settings file's timeout: %s", r)
	}
}

// The model is told the limits it may ask for, as Claude Code tells it: a
// default of an hour with no maximum set lets a call ask for the hour.
func TestBashTimeoutsReachTheToolSchema(t *testing.T) {
	t.Parallel()
	srv := wiretest.NewServer(t, wiretest.Replay(wiretest.Transcript(t, "anthropic/text.sse")), wiretest.Replay(wiretest.Transcript(t, "anthropic/text.sse")))
	e := anthropicEnv(t)
	e.setenv("ANTHROPIC_BASE_URL=" + srv.URL)
	e.must("", "run", "--no-stdin", "hi")
	if body := string(srv.Body(0)); !strings.Contains(body, "Optional timeout in milliseconds (max 600000). Default is 120000 (2 minutes)") {
		t.Errorf("the Bash schema with no limits set: %s", body)
	}
	e.setenv("BASH_DEFAULT_TIMEOUT_MS=3600000")
	e.must("", "run", "--no-stdin", "hi")
	if body := string(srv.Body(1)); !strings.Contains(body, "Optional timeout in milliseconds (max 3600000). Default is 3600000 (60 minutes)") {
		t.Errorf("the Bash schema with an hour's default: %s", body)
	}
}

// config --check finds a value of Claude Code's variables that every step
// would refuse, in a settings file's env or in the environment.
func TestConfigCheckFindsClaudeCodesVariables(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	writeClaudeSettings(t, e, map[string]any{"env": map[string]any{"BASH_MAX_TIMEOUT_MS": "10min", "MAX_THINKING_TOKENS": "8000"}})
	e.setenv("CLAUDE_CODE_MAX_OUTPUT_TOKENS=lots")
	r := e.run("", "config", "--check")
	if r.code != 7 {
		t.Fatalf("config --check: %s", r)
	}
	for _, want := range []string{`~/.claude/settings.json: BASH_MAX_TIMEOUT_MS "10min" is no time in milliseconds`, `env CLAUDE_CODE_MAX_OUTPUT_TOKENS: CLAUDE_CODE_MAX_OUTPUT_TOKENS "lots" is no number of tokens`} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("config --check lacks %q:\n%s", want, r.stdout)
		}
	}
	if strings.Contains(r.stdout, "MAX_THINKING_TOKENS \"8000\"") || strings.Count(r.stdout, "is no ") != 2 {
		t.Errorf("config --check finds more than the two bad values:\n%s", r.stdout)
	}
}

// API_TIMEOUT_MS, which gateways' Claude Code guides set for a slow model,
// is trail's timeout where no settings file or flag sets one: a server
// silent for longer ends the step (exit 6) after it, not after 2 minutes.
func TestAPITimeoutMSIsTheTimeout(t *testing.T) {
	t.Parallel()
	srv := wiretest.NewServer(t, wiretest.Hang(), wiretest.Hang())
	e := anthropicEnv(t)
	e.setenv("ANTHROPIC_BASE_URL="+srv.URL, "API_TIMEOUT_MS=300")
	r := e.run("", "run", "--max-retries", "0", "--no-stdin", "hi")
	if r.code != 6 || !strings.Contains(r.stderr, "no data from the server for 300ms") || r.elapsed > 15*time.Second {
		t.Errorf("API_TIMEOUT_MS=300 and a silent server: %s (after %s)", r, r.elapsed)
	}
	if r := e.must("", "config"); !regexp.MustCompile(`(?m)^timeout +"300ms" +env API_TIMEOUT_MS$`).MatchString(r.stdout) {
		t.Errorf("config does not show the timeout's source:\n%s", r.stdout)
	}
	r = e.run("", "run", "--max-retries", "0", "--timeout", "0.5", "--no-stdin", "hi")
	if r.code != 6 || !strings.Contains(r.stderr, "no data from the server for 500ms") {
		t.Errorf("--timeout beside API_TIMEOUT_MS: %s", r)
	}
}

// Gateways' Claude Code guides put the token in ~/.claude/settings.json's
// env (Z.ai's, Moonshot's, DeepSeek's), and some users keep an
// apiKeyHelper there. trail reads keys from the environment only, so the
// failure says where the key is and what to export, never the key; and
// config --check warns of them.
func TestAKeyClaudeCodeKeepsInSettingsIsNamedNotRead(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	const token = "sk-gateway-0123456789abcdef"
	writeClaudeSettings(t, e, map[string]any{"env": map[string]any{"ANTHROPIC_AUTH_TOKEN": token, "ANTHROPIC_BASE_URL": "http://127.0.0.1:9", "API_TIMEOUT_MS": "3000000"}})
	r := e.run("", "run", "--no-stdin", "hi")
	if r.code != 2 || !strings.Contains(r.stderr, `settings.json sets ANTHROPIC_AUTH_TOKEN in its "env"`) || !strings.Contains(r.stderr, "export ANTHROPIC_AUTH_TOKEN in the shell") || strings.Contains(r.stderr, token) {
		t.Errorf("a gateway's token in the settings' env: %s", r)
	}
	r = e.run("", "config", "--check")
	if r.code != 0 || !strings.Contains(r.stdout, "ANTHROPIC_AUTH_TOKEN here is not read: trail reads API keys from the environment only") || strings.Contains(r.stdout, token) {
		t.Errorf("config --check of a gateway's token in the settings' env: %s", r)
	}
	e.setenv("ANTHROPIC_AUTH_TOKEN=" + token)
	if r := e.run("", "config", "--check"); strings.Contains(r.stdout, "is not read") {
		t.Errorf("config --check warns of a token the environment holds too: %s", r)
	}

	e = newEnv(t)
	writeClaudeSettings(t, e, map[string]any{"apiKeyHelper": "~/bin/get-key.sh"})
	r = e.run("", "run", "--provider", "anthropic", "--no-stdin", "hi")
	if r.code != 2 || !strings.Contains(r.stderr, `names an apiKeyHelper, which trail never runs`) || !strings.Contains(r.stderr, `export ANTHROPIC_API_KEY="$(~/bin/get-key.sh)"`) {
		t.Errorf("an apiKeyHelper: %s", r)
	}
	if r := e.run("", "config", "--check"); !strings.Contains(r.stdout, "apiKeyHelper is not run") {
		t.Errorf("config --check of an apiKeyHelper: %s", r)
	}
}

// CLAUDE_CONFIG_DIR moves Claude Code's folder, its settings.json with it
// (Claude Code's envUtils): the user's settings are read there, and
// ~/.claude/settings.json is then not the user's.
func TestClaudeConfigDirHoldsTheUsersSettings(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	conf := filepath.Join(e.user, "claude-work")
	e.writeFile(filepath.Join(conf, "settings.json"), `{"permissions": {"deny": ["Bash(touch *)"]}}`)
	writeClaudeSettings(t, e, map[string]any{"permissions": map[string]any{"allow": []string{"Bash"}}})
	e.setenv("CLAUDE_CONFIG_DIR=" + conf)
	s := e.script(calls(call("Bash", map[string]any{"command": "touch made"}), call("Bash", map[string]any{"command": "sleep 5"})), answer("done"))
	e.must("", "run", "--provider", "script", "--script", s, "--permission-mode", "acceptEdits", "go")
	results := e.toolResults(e.onlySession())
	if e.exists("made") || !strings.Contains(fmt.Sprint(results["call_0_0"]["error"]), "denied") {
		t.Errorf("the deny rule in $CLAUDE_CONFIG_DIR/settings.json did not hold: %v", results["call_0_0"])
	}
	if got := fmt.Sprint(results["call_0_1"]["error"]); !strings.Contains(got, "not approved") {
		t.Errorf("~/.claude/settings.json's allow rule applied beside CLAUDE_CONFIG_DIR: %v", results["call_0_1"])
	}
	r := e.must("", "config")
	if !regexp.MustCompile(`(?m)^  ~/claude-work/settings\.json +read$`).MatchString(r.stdout) || strings.Contains(r.stdout, "~/.claude/settings.json") {
		t.Errorf("config's files beside CLAUDE_CONFIG_DIR:\n%s", r.stdout)
	}
	// Written with ~ (an env file no shell expanded), it is under HOME: a
	// folder named "~" in a repository is no user's settings.
	e.writeFile(filepath.Join("~", "claude-work", "settings.json"), `{"permissions": {"defaultMode": "bypassPermissions"}}`)
	e.setenv("CLAUDE_CONFIG_DIR=~/claude-work")
	if r := e.must("", "config"); strings.Contains(r.stdout, "bypassPermissions") || !regexp.MustCompile(`(?m)^  ~/claude-work/settings\.json +read$`).MatchString(r.stdout) {
		t.Errorf("CLAUDE_CONFIG_DIR=~/claude-work read the working folder's ~ folder:\n%s", r.stdout)
	}
	e.writeFile(filepath.Join("~nobody", "claude-work", "settings.json"), `{"permissions": {"defaultMode": "bypassPermissions"}}`)
	e.setenv("CLAUDE_CONFIG_DIR=~nobody/claude-work")
	if r := e.must("", "config"); strings.Contains(r.stdout, "bypassPermissions") {
		t.Errorf("CLAUDE_CONFIG_DIR=~nobody/claude-work read the working folder's ~nobody folder:\n%s", r.stdout)
	}
}
