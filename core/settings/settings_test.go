package settings

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"trail/core/errs"
)

func writeSettings(t *testing.T, dir, name, body string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestSettingsMergeLaterWinsAndListsConcatenate(t *testing.T) {
	user, home, cwd := t.TempDir(), t.TempDir(), t.TempDir()
	writeSettings(t, user, ".claude/settings.json", `{"model":"a","permissions":{"allow":["Read"],"deny":["Bash(rm *)"]},
		"hooks":{"Stop":[{"hooks":[{"type":"command","command":"one"}]}]},"env":{"A":"1","B":"1"}}`)
	writeSettings(t, home, "settings.json", `{"model":"b","timeout":"30s","autoCompactThreshold":0.5}`)
	writeSettings(t, cwd, ".claude/settings.local.json", `{"permissions":{"allow":["Glob"],"defaultMode":"acceptEdits"},
		"hooks":{"Stop":[{"hooks":[{"type":"command","command":"two"}]}]},"env":{"B":"2"}}`)
	writeSettings(t, cwd, ".trail/settings.json", `{"provider":"echo","autoCompactThreshold":false,"maxTurns":7}`)
	extra := writeSettings(t, t.TempDir(), "extra.json", `{"model":"z"}`)

	s, err := Load(Paths(filepath.Join(user, ".claude"), home, cwd), nil, extra)
	if err != nil {
		t.Fatal(err)
	}
	if s.Model != "z" || s.Provider != "echo" || s.Timeout != 30*time.Second {
		t.Errorf("scalars: model %q provider %q timeout %v", s.Model, s.Provider, s.Timeout)
	}
	if s.ModelFrom != extra { // errors about the model name the file that set it
		t.Errorf("model from %q, want %q", s.ModelFrom, extra)
	}
	if strings.Join(s.Permissions.Allow, ",") != "Read,Glob" || strings.Join(s.Permissions.Deny, ",") != "Bash(rm *)" {
		t.Errorf("rules: allow %v deny %v", s.Permissions.Allow, s.Permissions.Deny)
	}
	if s.Permissions.DefaultMode != "acceptEdits" {
		t.Errorf("defaultMode = %q", s.Permissions.DefaultMode)
	}
	if len(s.Hooks["Stop"]) != 2 || s.Hooks["Stop"][1].Hooks[0].Command != "two" {
		t.Errorf("hooks not concatenated: %+v", s.Hooks)
	}
	if !s.AutoCompactOff || s.AutoCompactThreshold != nil {
		t.Errorf("a later false must turn auto-compaction off: off=%v threshold=%v", s.AutoCompactOff, s.AutoCompactThreshold)
	}
	if s.MaxTurns == nil || *s.MaxTurns != 7 || s.Env["A"] != "1" || s.Env["B"] != "2" {
		t.Errorf("maxTurns %v env %v", s.MaxTurns, s.Env)
	}
	if len(s.Files) != 5 {
		t.Errorf("files read = %v", s.Files)
	}
}

func TestSettingsErrorsNameTheFileAndLine(t *testing.T) {
	dir := t.TempDir()
	bad := writeSettings(t, dir, "bad.json", "{\n  \"model\": \"x\",\n  nope\n}")
	_, err := Load([]string{bad}, nil, "")
	var inv *errs.InvalidDataError
	if !errors.As(err, &inv) || !strings.Contains(err.Error(), bad) || !strings.Contains(err.Error(), "line 3") {
		t.Fatalf("err = %v", err)
	}
	wrongType := writeSettings(t, dir, "type.json", `{"maxTurns": "many"}`)
	if _, err := Load([]string{wrongType}, nil, ""); !errors.As(err, &inv) {
		t.Fatalf("a wrong type must be invalid data, got %v", err)
	}
	threshold := writeSettings(t, dir, "th.json", `{"autoCompactThreshold": 1.5}`)
	if _, err := Load([]string{threshold}, nil, ""); !errors.As(err, &inv) {
		t.Fatalf("threshold 1.5 must be refused, got %v", err)
	}
	var usage *errs.UsageError
	if _, err := Load(nil, nil, filepath.Join(dir, "missing.json")); !errors.As(err, &usage) {
		t.Fatalf("a missing --settings file must be a usage error, got %v", err)
	}
	if _, err := Load([]string{filepath.Join(dir, "absent.json")}, nil, ""); err != nil {
		t.Fatalf("absent optional files are skipped, got %v", err)
	}
}

// A timeout in seconds a Duration cannot hold is refused, not wrapped to a
// negative timeout (or rounded to none) that the step would then ignore.
func TestSettingsTimeoutOutOfRangeIsRefused(t *testing.T) {
	dir := t.TempDir()
	for _, raw := range []string{"1e300", "9223372037", "1e-300"} {
		p := writeSettings(t, dir, "t.json", `{"timeout": `+raw+`}`)
		var inv *errs.InvalidDataError
		if _, err := Load([]string{p}, nil, ""); !errors.As(err, &inv) || !strings.Contains(err.Error(), "out of range") {
			t.Errorf("timeout %s: err = %v, want out of range", raw, err)
		}
	}
	p := writeSettings(t, dir, "ok.json", `{"timeout": 9223372036}`)
	if s, err := Load([]string{p}, nil, ""); err != nil || s.Timeout <= 0 {
		t.Errorf("the longest timeout: %v, %v", s, err)
	}
}

// The provider keys: maxTokens, thinking (or Claude Code's
// alwaysThinkingEnabled), streamOptions and promptCaching.
func TestProviderKeys(t *testing.T) {
	tests := []struct {
		files             []string
		maxTokens         int
		thinking          string
		noStream, noCache bool
		wantErr           string
	}{
		{files: []string{`{"maxTokens": 16000}`}, maxTokens: 16000},
		{files: []string{`{"alwaysThinkingEnabled": true}`}, thinking: "on"},
		{files: []string{`{"alwaysThinkingEnabled": true}`, `{"thinking": false}`}, thinking: "off"},
		{files: []string{`{"thinking": 8000, "alwaysThinkingEnabled": false}`}, thinking: "8000"},
		{files: []string{`{"thinking": true}`, `{}`}, thinking: "on"},
		{files: []string{`{"streamOptions": false, "promptCaching": false}`}, noStream: true, noCache: true},
		{files: []string{`{"streamOptions": false}`, `{"streamOptions": true}`}},
		{files: []string{`{"maxTokens": 0}`}, wantErr: "maxTokens must be 1 or more"},
		{files: []string{`{"thinking": "lots"}`}, wantErr: "thinking must be true, false or a budget"},
		{files: []string{`{"thinking": -5}`}, wantErr: "thinking must be true, false or a budget"},
		// a value trail would refuse at the flag (--max-turns -1), or no
		// environment can hold: refused, not carried into every Bash call
		{files: []string{`{"maxTurns": -1}`}, wantErr: "maxTurns must be 0 (no cap) or more"},
		{files: []string{`{"env": {"A": "x\u0000y"}}`}, wantErr: `env "A" cannot be set`},
		{files: []string{`{"env": {"B=C": "1"}}`}, wantErr: `env "B=C" cannot be set`},
		{files: []string{`{"env": {"": "e"}}`}, wantErr: `env "" cannot be set`},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.files, " then "), func(t *testing.T) {
			dir := t.TempDir()
			var paths []string
			for i, f := range tt.files {
				paths = append(paths, writeSettings(t, dir, string(rune('a'+i))+".json", f))
			}
			s, err := Load(paths, nil, "")
			if tt.wantErr != "" {
				var bad *errs.InvalidDataError
				if !errors.As(err, &bad) || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err = %v, want an invalid-data error with %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if s.MaxTokens != tt.maxTokens || s.Thinking != tt.thinking || s.StreamOptionsOff != tt.noStream || s.PromptCachingOff != tt.noCache {
				t.Errorf("got maxTokens %d thinking %q streamOptionsOff %v promptCachingOff %v", s.MaxTokens, s.Thinking, s.StreamOptionsOff, s.PromptCachingOff)
			}
		})
	}
}

// A wrong type is named by its full path, map keys and indices included,
// as the user would find it in the file.
func TestTypeErrorsNameTheFullPath(t *testing.T) {
	dir := t.TempDir()
	for _, tt := range []struct{ body, want string }{
		{`{"hooks":{"PreToolUse":{"matcher":"Bash","hooks":[]}}}`, "hooks.PreToolUse must be a list of objects, not an object"},
		{`{"hooks":{"PreToolUse":[{"matcher":"Bash","hooks":[{"type":"command","command":"true","timeout":"30"}]}]}}`, "hooks.PreToolUse[0].hooks[0].timeout must be a number, not a string"},
		{`{"permissions":{"allow":["a", 3]}}`, "permissions.allow[1] must be a string, not a number"},
		{`{"env":{"A":"x","B":1}}`, "env.B must be a string, not a number"},
		{`[1]`, "value must be an object, not a list"},
	} {
		p := writeSettings(t, dir, "s.json", tt.body)
		if _, err := Load([]string{p}, nil, ""); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: err %v, want %q", tt.body, err, tt.want)
		}
	}
}

// A file saved with a UTF-8 byte-order mark (Notepad, PowerShell) reads
// as the JSON after it.
func TestSettingsWithAByteOrderMark(t *testing.T) {
	p := writeSettings(t, t.TempDir(), "s.json", "\xef\xbb\xbf{\"model\": \"m1\"}")
	s, err := Load([]string{p}, nil, "")
	if err != nil || s.Model != "m1" {
		t.Fatalf("model %q, err %v", s.Model, err)
	}
}
