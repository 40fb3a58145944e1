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

// The environment beats every settings file (SPEC 2), in config as in a
// step: TRAIL_PROVIDER, TRAIL_MODEL and the provider's base URL variable
// replace the files' values, --check judges them, and the provider a step
// would choose from the API keys is named with its reason.
func TestConfigShowsTheEnvironment(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.writeFile(".trail/settings.json", `{"provider": "openai", "model": "gpt-4o"}`)
	e.setenv("TRAIL_PROVIDER=echo", "TRAIL_MODEL=foo")
	r := e.must("", "config")
	for _, want := range []string{
		`(?m)^provider +"echo" +env TRAIL_PROVIDER$`,
		`(?m)^model +"foo" +env TRAIL_MODEL$`,
	} {
		if !regexp.MustCompile(want).MatchString(r.stdout) {
			t.Errorf("trail config lacks %s:\n%s", want, r.stdout)
		}
	}
	r = e.must("", "config", "--json")
	var doc struct {
		Settings []struct {
			Key     string          `json:"key"`
			Value   json.RawMessage `json:"value"`
			File    string          `json:"file"`
			Env     string          `json:"env"`
			Default bool            `json:"default"`
		} `json:"settings"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &doc); err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, s := range doc.Settings {
		got[s.Key] = string(s.Value) + " " + s.File + s.Env + map[bool]string{true: "default"}[s.Default]
	}
	if got["provider"] != `"echo" TRAIL_PROVIDER` || got["model"] != `"foo" TRAIL_MODEL` || got["maxTurns"] != "0 default" {
		t.Errorf("config --json settings: %v", got)
	}

	// what the environment sets is checked as a file's value is
	bad := newEnv(t)
	bad.setenv("TRAIL_PROVIDER=bogus")
	if r := bad.run("", "config", "--check"); r.code != 7 || !strings.Contains(r.stdout, `env TRAIL_PROVIDER: provider "bogus" is not one of`) {
		t.Errorf("config --check, TRAIL_PROVIDER=bogus: %s", r)
	}
	if r := bad.run("", "run", "hi"); r.code != 2 {
		t.Errorf("the step refuses what --check refused: %s", r)
	}

	// no provider named: the one a step would choose, and why
	keys := newEnv(t)
	keys.setenv("ANTHROPIC_API_KEY=sk-ant-test-0123456789abcdefghij", "ANTHROPIC_BASE_URL=http://127.0.0.1:9")
	r = keys.must("", "config")
	for _, want := range []string{
		`(?m)^provider +anthropic +default: ANTHROPIC_API_KEY is set$`,
		`(?m)^model +claude-\S+ +default: anthropic's default$`,
		`(?m)^baseUrl +"http://127\.0\.0\.1:9" +env ANTHROPIC_BASE_URL$`,
	} {
		if !regexp.MustCompile(want).MatchString(r.stdout) {
			t.Errorf("trail config lacks %s:\n%s", want, r.stdout)
		}
	}
	if strings.Contains(r.stdout, "0123456789abcdefghij") {
		t.Errorf("config shows the API key:\n%s", r.stdout)
	}

	// a gateway in Claude Code's env block is the base URL, and shown
	// as it is (an address is no secret; a proxy's password is)
	gw := newEnv(t)
	gw.setenv("ANTHROPIC_API_KEY=sk-ant-test-0123456789abcdefghij")
	gw.writeFile(filepath.Join(gw.user, ".claude", "settings.json"),
		`{"env": {"ANTHROPIC_BASE_URL": "https://llm-gateway.corp.example/anthropic", "HTTPS_PROXY": "http://build:Pr0xyPassw0rd@proxy.corp.example:8080"}}`)
	r = gw.must("", "config")
	for _, want := range []string{
		`(?m)^baseUrl +"https://llm-gateway\.corp\.example/anthropic" +~/\.claude/settings\.json$`,
		`(?m)^env\.HTTPS_PROXY +"\[REDACTED\]" +~/\.claude/settings\.json$`,
	} {
		if !regexp.MustCompile(want).MatchString(r.stdout) {
			t.Errorf("trail config lacks %s:\n%s", want, r.stdout)
		}
	}
}

// A refused settings file says what is wrong in JSON's words, never Go's
// type names, and config's failures are a line on stderr as well as the
// table on stdout (which may be a file nobody reads).
func TestSettingsErrorsSpeakJSON(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	for body, want := range map[string]string{
		`[1]`:                                 "value must be an object, not a list",
		`{"permissions": {"allow": "Bash"}}`:  "permissions.allow must be a list of strings, not a string",
		`{"hooks": {"PreToolUse": {"x": 1}}}`: "hooks.PreToolUse must be a list of objects, not an object",
		`{"maxTurns": "5"}`:                   "maxTurns must be a whole number, not a string",
	} {
		e.writeFile(".trail/settings.json", body)
		r := e.run("", "config")
		if r.code != 7 || !strings.Contains(r.stdout, want) || !strings.Contains(r.stderr, want) || strings.Contains(r.stderr+r.stdout, "settings.") && strings.Contains(r.stderr+r.stdout, "[]") {
			t.Errorf("%s: %s", body, r)
		}
		if r := e.run("", "run", "--provider", "echo", "hi"); r.code != 7 || !strings.Contains(r.stderr, want) {
			t.Errorf("run with %s: %s", body, r)
		}
	}
	e.writeFile(".trail/settings.json", `{"provider": "ehco", "modle": "m"}`)
	if r := e.run("", "config", "--check"); r.code != 7 || r.stderr != "trail: config --check found 2 problems\n" {
		t.Errorf("config --check: %s", r)
	}
}

// A hook event written slightly wrong would never run: it warns like a
// misspelt key, naming the event it is near, and --check fails on it. An
// event trail does not know and that is near none is left alone: Claude
// Code adds events with each release.
func TestAMisspeltHookEventWarns(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	hook := `[{"hooks": [{"type": "command", "command": "true"}]}]`
	e.writeFile(".trail/settings.json", `{"provider": "echo", "hooks": {"PreToolUSe": `+hook+`, "pretooluse": `+hook+`, "SomeNewEvent2027": `+hook+`, "Stop": `+hook+`}}`)
	r := e.must("", "run", "hi")
	for _, want := range []string{
		`unknown key "hooks.PreToolUSe", ignored (did you mean "hooks.PreToolUse"?)`,
		`unknown key "hooks.pretooluse", ignored (did you mean "hooks.PreToolUse"?)`,
	} {
		if !strings.Contains(r.stderr, want) {
			t.Errorf("run lacks %q: %s", want, r)
		}
	}
	if strings.Contains(r.stderr, "SomeNewEvent2027") || strings.Contains(r.stderr, `"hooks.Stop"`) {
		t.Errorf("a far or known event warned: %s", r)
	}
	if r := e.run("", "config", "--check"); r.code != 7 || !strings.Contains(r.stdout, `"hooks.PreToolUSe"`) {
		t.Errorf("config --check: %s", r)
	}
}

// A refused file shows every value a step would refuse, not only the
// first, so it is fixed in one go; a value refused by its type is not
// judged again by its content.
func TestConfigCheckShowsEveryBadValueOfAFile(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.writeFile(".trail/settings.json", `{"maxTurns": "5", "stream": "yes", "timeout": "abc", "logRequests": "x", "provider": "ehco", "permissions": {"allow": "Bash"}, "thinking": "x"}`)
	r := e.run("", "config", "--check")
	_, problems, _ := strings.Cut(r.stdout, "PROBLEMS:")
	for _, want := range []string{
		"maxTurns must be a whole number, not a string",
		"stream must be true or false, not a string",
		`timeout "abc" is not a duration`,
		`logRequests must be "digest" or "full", got "x"`,
		`provider "ehco" is not one of`,
		"permissions.allow must be a list of strings, not a string",
		`thinking must be true, false or a budget in tokens, got "x"`,
	} {
		if strings.Count(problems, want) != 1 {
			t.Errorf("config --check shows %q %d times:\n%s", want, strings.Count(problems, want), r.stdout)
		}
	}
	if r.code != 7 || r.stderr != "trail: config --check found 7 problems\n" || strings.Contains(r.stdout, `maxTurns "5"`) {
		t.Errorf("config --check: %s", r)
	}
}

// What a step would never use is a problem for --check: a hook matcher in
// permission-rule syntax or one that is not a regular expression (neither
// ever runs its hook), and an allow rule every step skips.
func TestConfigCheckFindsHooksThatNeverRun(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	hook := func(m string) string {
		return `{"matcher": "` + m + `", "hooks": [{"type": "command", "command": "touch ran"}]}`
	}
	e.writeFile(".claude/settings.json", `{"permissions": {"allow": ["mcp__*"]}, "hooks": {"PostToolUse": [`+
		hook(`Write(*.py)|Edit(*.py)`)+`, `+hook(`[unclosed`)+`, `+hook(`Edit|Write`)+`, `+hook(`^Bash$`)+`, `+hook(`mcp__.*`)+`]}}`)
	r := e.run("", "config", "--check")
	_, problems, _ := strings.Cut(r.stdout, "PROBLEMS:")
	for _, want := range []string{
		`matcher "Write(*.py)|Edit(*.py)" is permission-rule syntax, but a matcher names tools, so it matches none: match the tool ("Write") and put the rule in the hook's "if" ("if": "Write(*.py)")`,
		`matcher "[unclosed" is not a regular expression trail can read`,
		`allow rule "mcp__*" is skipped by every step`,
	} {
		if !strings.Contains(problems, want) {
			t.Errorf("config --check lacks %q:\n%s", want, r.stdout)
		}
	}
	if r.code != 7 || r.stderr != "trail: config --check found 3 problems\n" {
		t.Errorf("config --check: %s", r)
	}
}

// A hook's "if" that cannot work as written fails --check: one on an
// event that is not about a tool (the hook never runs), one that does not
// parse (it runs for every call).
func TestConfigCheckFindsIfsThatCannotWork(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.writeFile(".claude/settings.json", `{"hooks": {
		"Stop": [{"hooks": [{"type": "command", "command": "true", "if": "Bash(rm *)"}]}],
		"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "true", "if": "Bash(rm *"}]},
		               {"matcher": "Bash", "hooks": [{"type": "command", "command": "true", "if": "Bash(git push *)"}]}]}}`)
	r := e.run("", "config", "--check")
	for _, want := range []string{
		`hooks.Stop hook if "Bash(rm *)" on Stop, which is not about a tool call: the hook never runs`,
		`hooks.PreToolUse hook if "Bash(rm *" does not parse`,
	} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("config --check lacks %q:\n%s", want, r.stdout)
		}
	}
	if r.code != 7 || r.stderr != "trail: config --check found 2 problems\n" {
		t.Errorf("config --check: %s", r)
	}
}

// A project's defaultMode bypassPermissions is not in effect: trail config
// shows the user's mode, and names the ignored value as a problem, which
// fails --check.
func TestConfigShowsAProjectsBypassPermissionsIgnored(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.writeFile(filepath.Join(e.user, ".claude", "settings.json"), `{"permissions": {"defaultMode": "acceptEdits"}}`)
	e.writeFile(".claude/settings.local.json", `{"permissions": {"defaultMode": "bypassPermissions"}}`)
	const problem = `./.claude/settings.local.json: permissions.defaultMode "bypassPermissions" is ignored: a project's settings may not set it`
	r := e.must("", "config")
	if !regexp.MustCompile(`(?m)^permissions\.defaultMode +"acceptEdits" +~/\.claude/settings\.json$`).MatchString(r.stdout) || !strings.Contains(r.stdout, problem) {
		t.Errorf("trail config:\n%s", r)
	}
	if r = e.run("", "config", "--check"); r.code != 7 || !strings.Contains(r.stdout, problem) || r.stderr != "trail: config --check found 1 problem\n" {
		t.Errorf("config --check: %s", r)
	}
	var doc struct {
		Settings []struct{ Key, File string }
		Problems []struct{ File, Key, Message string }
	}
	r = e.must("", "config", "--json")
	if err := json.Unmarshal([]byte(r.stdout), &doc); err != nil || len(doc.Problems) != 1 || doc.Problems[0].Key != "permissions.defaultMode" || !strings.HasSuffix(doc.Problems[0].File, "settings.local.json") {
		t.Errorf("config --json: %v\n%s", err, r.stdout)
	}
}

// --settings takes the settings as JSON too, as Claude Code's does: they
// beat every file, and errors and trail config name them
// "--settings (inline JSON)".
func TestSettingsGivenAsInlineJSON(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.writeFile(".claude/settings.json", `{"model": "from-file"}`)
	inline := `{"model": "from-flag", "permissions": {"deny": ["Bash(touch *)"]}}`
	s := e.script(calls(bashCall("touch made")), answer("done"))
	r := e.run("", "--settings", inline, "run", "--provider", "script", "--script", s, "--dangerously-skip-permissions", "go")
	if r.code != 0 || e.exists("made") || !strings.Contains(r.stderr, "denied Bash(touch made): deny rule Bash(touch *)") {
		t.Errorf("a deny rule of inline settings: made %v\n%s", e.exists("made"), r)
	}

	r = e.must("", "--settings", " "+inline, "config")
	for _, want := range []string{
		`(?m)^model +"from-flag" +--settings \(inline JSON\)$`,
		`(?m)^permissions\.deny +"Bash\(touch \*\)" +--settings \(inline JSON\)$`,
		`(?m)^  --settings \(inline JSON\) +read$`,
	} {
		if !regexp.MustCompile(want).MatchString(r.stdout) {
			t.Errorf("trail config lacks %s:\n%s", want, r.stdout)
		}
	}

	r = e.run("", "--settings", `{"model": }`, "run", "--provider", "echo", "hi")
	if r.code != 7 || !strings.HasPrefix(r.stderr, "trail: --settings (inline JSON): invalid JSON at line 1, column 12") || !strings.Contains(r.stderr, "hint: fix the JSON in --settings (inline JSON)") {
		t.Errorf("broken inline settings: %s", r)
	}
	r = e.run("", "--settings", `{"permissions": {"deny": ["Bash(touch *"]}}`, "config", "--check")
	if r.code != 7 || !strings.Contains(r.stdout, `--settings (inline JSON): permissions.deny rule "Bash(touch *"`) {
		t.Errorf("config --check of inline settings: %s", r)
	}
	r = e.run("", "--settings", "absent.json", "run", "--provider", "echo", "hi")
	if r.code != 2 || !strings.Contains(r.stderr, "absent.json does not exist\nhint: check the path given to --settings (settings given as JSON start with {)") {
		t.Errorf("a --settings file that does not exist: %s", r)
	}
}
