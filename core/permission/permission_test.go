package permission

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"trail/core/chat"
	"trail/core/errs"
	"trail/core/settings"
)

func TestModeTable(t *testing.T) {
	// SPEC 5.2, row by row.
	rows := []struct {
		tools                            []string
		plan, deflt, acceptEdits, bypass string
	}{
		{[]string{"Read", "Glob", "Grep"}, DecisionAllow, DecisionAllow, DecisionAllow, DecisionAllow},
		{[]string{"Write", "Edit"}, DecisionDeny, DecisionAsk, DecisionAllow, DecisionAllow},
		{[]string{"Bash", "WebFetch", "mcp__x__y"}, DecisionDeny, DecisionAsk, DecisionAsk, DecisionAllow},
	}
	for _, row := range rows {
		for _, tool := range row.tools {
			for mode, want := range map[string]string{ModePlan: row.plan, ModeDefault: row.deflt, ModeAcceptEdits: row.acceptEdits, ModeBypass: row.bypass} {
				if got := ModeDecision(mode, tool); got != want {
					t.Errorf("%s in %s = %s, want %s", tool, mode, got, want)
				}
			}
		}
	}
}

func perms(t *testing.T, mode string, allow, deny []string) *Policy {
	t.Helper()
	p, err := Build(mode, &settings.Settings{}, allow, deny, "/proj")
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func args(kv ...string) json.RawMessage {
	m := map[string]string{}
	for i := 0; i+1 < len(kv); i += 2 {
		m[kv[i]] = kv[i+1]
	}
	b, _ := json.Marshal(m)
	return b
}

func TestPermissionCheck(t *testing.T) {
	tests := []struct {
		name        string
		mode        string
		allow, deny []string
		tool        string
		args        json.RawMessage
		want        Verdict
	}{
		{"a deny rule beats bypassPermissions", ModeBypass, nil, []string{"Bash(rm *)"}, "Bash", args("command", "rm -rf x"),
			Verdict{Decision: DecisionDeny, Source: SourceRule, Rule: "Bash(rm *)"}},
		{"a deny rule beats an allow rule", ModeDefault, []string{"Bash"}, []string{"Bash(rm *)"}, "Bash", args("command", "rm x"),
			Verdict{Decision: DecisionDeny, Source: SourceRule, Rule: "Bash(rm *)"}},
		{"a deny rule catches a later part of a compound command", ModeBypass, nil, []string{"Bash(rm *)"}, "Bash", args("command", "echo hi && rm -rf x"),
			Verdict{Decision: DecisionDeny, Source: SourceRule, Rule: "Bash(rm *)"}},
		{"an allow rule allows in default mode", ModeDefault, []string{"Bash(echo *)"}, nil, "Bash", args("command", "echo hi"),
			Verdict{Decision: DecisionAllow, Source: SourceRule, Rule: "Bash(echo *)"}},
		{"an allow rule does not cover another command", ModeDefault, []string{"Bash(echo *)"}, nil, "Bash", args("command", "rm x"),
			Verdict{Decision: DecisionAsk, Source: SourceMode, Rule: ""}},
		{"an allow rule does not cover a command chained after it", ModeDefault, []string{"Bash(echo *)"}, nil, "Bash", args("command", "echo hi; rm -rf x"),
			Verdict{Decision: DecisionAsk, Source: SourceMode, Rule: ""}},
		{"every part allowed allows the whole", ModeDefault, []string{"Bash(echo *)", "Bash(wc *)"}, nil, "Bash", args("command", "echo hi | wc -c"),
			Verdict{Decision: DecisionAllow, Source: SourceRule, Rule: "Bash(echo *), Bash(wc *)"}},
		{"a read-only part needs no rule of its own", ModeDefault, []string{"Bash(touch *)"}, nil, "Bash", args("command", "touch b.txt; echo hello && ls"),
			Verdict{Decision: DecisionAllow, Source: SourceRule, Rule: "Bash(touch *), read-only command"}},
		{"a part neither allowed nor read-only still asks", ModeDefault, []string{"Bash(touch *)"}, nil, "Bash", args("command", "touch b.txt; rm b.txt"),
			Verdict{Decision: DecisionAsk, Source: SourceMode, Rule: ""}},
		{"a redirect is not a separator", ModeDefault, []string{"Bash(go test *)"}, nil, "Bash", args("command", "go test ./... 2>&1"),
			Verdict{Decision: DecisionAllow, Source: SourceRule, Rule: "Bash(go test *)"}},
		{"quoted operators do not split", ModeDefault, []string{"Bash(echo *)"}, nil, "Bash", args("command", `echo "a; rm b" 'c && d'`),
			Verdict{Decision: DecisionAllow, Source: SourceRule, Rule: "Bash(echo *)"}},
		{"a substitution is not auto-allowed by a pattern", ModeDefault, []string{"Bash(echo *)"}, nil, "Bash", args("command", "echo $(rm -rf x)"),
			Verdict{Decision: DecisionAsk, Source: SourceMode, Rule: ""}},
		{"a bare tool rule allows anything", ModeDefault, []string{"Bash"}, nil, "Bash", args("command", "echo $(date)"),
			Verdict{Decision: DecisionAllow, Source: SourceRule, Rule: "Bash"}},
		{"the prefix form allows", ModeDefault, []string{"Bash(git diff:*)"}, nil, "Bash", args("command", "git diff HEAD"),
			Verdict{Decision: DecisionAllow, Source: SourceRule, Rule: "Bash(git diff:*)"}},
		{"plan denies Write", ModePlan, nil, nil, "Write", args("filePath", "a.go"), Verdict{Decision: DecisionDeny, Source: SourceMode, Rule: ""}},
		{"acceptEdits allows Edit", ModeAcceptEdits, nil, nil, "Edit", args("filePath", "a.go"), Verdict{Decision: DecisionAllow, Source: SourceMode, Rule: ""}},
		{"a path rule matches the cwd-relative form of an absolute path", ModeBypass, nil, []string{"Read(.env)"}, "Read", args("filePath", "/proj/.env"),
			Verdict{Decision: DecisionDeny, Source: SourceRule, Rule: "Read(.env)"}},
		{"a path rule matches ./ paths", ModeBypass, nil, []string{"Read(.env)"}, "Read", args("filePath", "./.env"),
			Verdict{Decision: DecisionDeny, Source: SourceRule, Rule: "Read(.env)"}},
		{"an allow rule for Write allows a matching path", ModeDefault, []string{"Write(src/**)"}, nil, "Write", args("filePath", "src/a.go"),
			Verdict{Decision: DecisionAllow, Source: SourceRule, Rule: "Write(src/**)"}},
		{"a Glob rule matches the pattern", ModePlan, nil, []string{"Glob(**/*.key)"}, "Glob", args("pattern", "**/*.key"),
			Verdict{Decision: DecisionDeny, Source: SourceRule, Rule: "Glob(**/*.key)"}},
		{"rules for other tools do not apply", ModeDefault, []string{"Read"}, []string{"Write"}, "Bash", args("command", "make"),
			Verdict{Decision: DecisionAsk, Source: SourceMode, Rule: ""}},
		// The rules must judge the arguments the tool will run with.
		{"an allow rule judges the last of repeated keys", ModeDefault, []string{"Bash(echo *)"}, nil, "Bash", json.RawMessage(`{"command":"echo hi","command":"rm -rf x"}`),
			Verdict{Decision: DecisionAsk, Source: SourceMode, Rule: ""}},
		{"a deny rule judges the last of repeated keys", ModeBypass, nil, []string{"Bash(rm *)"}, "Bash", json.RawMessage(`{"command":"ls","command":"rm -rf x"}`),
			Verdict{Decision: DecisionDeny, Source: SourceRule, Rule: "Bash(rm *)"}},
		{"a deny rule sees arguments the model sent as a JSON string", ModeBypass, nil, []string{"Bash(rm *)"}, "Bash", chat.ToolCall{Arguments: `"{\"command\":\"rm -rf x\"}"`}.Args(),
			Verdict{Decision: DecisionDeny, Source: SourceRule, Rule: "Bash(rm *)"}},
		{"a ./ rule matches a plain relative path", ModeBypass, nil, []string{"Read(./src/**)"}, "Read", args("filePath", "src/a.go"),
			Verdict{Decision: DecisionDeny, Source: SourceRule, Rule: "Read(./src/**)"}},
		{"a ./ rule matches an absolute path inside cwd", ModeBypass, nil, []string{"Edit(./src/**)"}, "Edit", args("filePath", "/proj/src/a.go"),
			Verdict{Decision: DecisionDeny, Source: SourceRule, Rule: "Edit(./src/**)"}},
		{"a deny rule with a trailing space-star covers the bare command", ModeBypass, nil, []string{"Bash(git push *)"}, "Bash", args("command", "git push"),
			Verdict{Decision: DecisionDeny, Source: SourceRule, Rule: "Bash(git push *)"}},
		{"an Edit rule governs Write too (Claude Code)", ModeAcceptEdits, nil, []string{"Edit(.env)"}, "Write", args("filePath", ".env"),
			Verdict{Decision: DecisionDeny, Source: SourceRule, Rule: "Edit(.env)"}},
		{"a Write rule does not govern Edit", ModeAcceptEdits, nil, []string{"Write(.env)"}, "Edit", args("filePath", ".env"),
			Verdict{Decision: DecisionAllow, Source: SourceMode, Rule: ""}},
		{"a scoped deny on a tool without a known argument asks", ModeDefault, []string{"WebFetch"}, []string{"WebFetch(x*)"}, "WebFetch", args("url", "x"),
			Verdict{Decision: DecisionAsk, Source: SourceRule, Rule: "WebFetch(x*)"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := perms(t, tt.mode, tt.allow, tt.deny).Check(tt.tool, tt.args)
			if got != tt.want {
				t.Errorf("got %+v, want %+v", got, tt.want)
			}
		})
	}
}

func TestPathRulesSeeThroughSymlinks(t *testing.T) {
	dir := t.TempDir()
	for _, d := range []string{"secrets", "docs"} {
		if err := os.Mkdir(filepath.Join(dir, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	os.WriteFile(filepath.Join(dir, "secrets", "key"), []byte("k"), 0o644)
	os.WriteFile(filepath.Join(dir, ".env"), []byte("X=1"), 0o644)
	os.Symlink("../secrets", filepath.Join(dir, "docs", "s"))
	os.Symlink("../.env", filepath.Join(dir, "docs", "e"))
	p, err := Build(ModeBypass, &settings.Settings{}, nil, []string{"Read(secrets/**)", "Read(.env)", "Write(./secrets/**)"}, dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct{ tool, path, want string }{
		{"Read", "docs/s/key", DecisionDeny},
		{"Read", "docs/e", DecisionDeny},
		{"Read", filepath.Join(dir, "docs", "e"), DecisionDeny},
		{"Write", "docs/s/new.txt", DecisionDeny}, // not there yet: judged by its folder
		{"Read", "docs/readme", DecisionAllow},
	} {
		if got := p.Check(tt.tool, args("filePath", tt.path)); got.Decision != tt.want {
			t.Errorf("%s(%s) = %+v, want %s", tt.tool, tt.path, got, tt.want)
		}
	}
}

func TestReadDenyRulesNameTheFilesSearchesSkip(t *testing.T) {
	if perms(t, ModeDefault, []string{"Read"}, []string{"Bash(rm *)"}).ReadDenied() != nil {
		t.Error("without a Read deny rule, no file is hidden")
	}
	hidden := perms(t, ModeDefault, nil, []string{"Read(.env)", "Read(./secrets/**)"}).ReadDenied()
	// Read(.env) is a bare name: a .env at any depth (gitignore), not one in a parent.
	for path, want := range map[string]bool{"/proj/.env": true, "/proj/secrets/a/key": true, "/proj/main.go": false, "/proj/sub/.env": true, "/.env": false} {
		if got := hidden(path); got != want {
			t.Errorf("ReadDenied(%s) = %v, want %v", path, got, want)
		}
	}
}

func TestAskRulesFromSettingsAskWhateverTheAllowRulesAndMode(t *testing.T) {
	s := &settings.Settings{Permissions: settings.Permissions{Allow: []string{"Bash"}, Ask: []string{"Bash(git push *)"}}}
	for _, tt := range []struct {
		mode, command string
		want          Verdict
	}{
		{ModeDefault, "git status", Verdict{Decision: DecisionAllow, Source: SourceRule, Rule: "Bash"}},
		{ModeDefault, "git add . && git push", Verdict{Decision: DecisionAsk, Source: SourceRule, Rule: "Bash(git push *)"}},
		{ModeBypass, "git push origin main", Verdict{Decision: DecisionAsk, Source: SourceRule, Rule: "Bash(git push *)"}},
		{ModePlan, "git push", Verdict{Decision: DecisionDeny, Source: SourceRule, Rule: "Bash(git push *)"}},
	} {
		p, err := Build(tt.mode, s, nil, nil, "/proj")
		if err != nil {
			t.Fatal(err)
		}
		if got := p.Check("Bash", args("command", tt.command)); got != tt.want {
			t.Errorf("%s in %s: got %+v, want %+v", tt.command, tt.mode, got, tt.want)
		}
	}
}

func TestDescribeCallShowsWhatWillRun(t *testing.T) {
	tests := []struct {
		args json.RawMessage
		want string
	}{
		{args("command", "go test ./..."), "Bash(go test ./...)"},
		{args("command", "echo hi\nrm -rf ~"), "Bash(echo hi …)"},
		// a lone CR is no line break: the whole command shows, escaped
		{args("command", "ls\x1b[2K\rtrue"), `Bash(ls\x1b[2K\rtrue)`},
		{json.RawMessage(`{"command":"ls","command":"rm -rf ~"}`), "Bash(rm -rf ~)"},
	}
	for _, tt := range tests {
		if got := DescribeCall("Bash", tt.args); got != tt.want {
			t.Errorf("DescribeCall(%s) = %q, want %q", tt.args, got, tt.want)
		}
	}
	// A file tool called in Claude Code's names reads as the rule to write.
	if got := DescribeCall("Read", json.RawMessage(`{"file_path":"pub.txt"}`)); got != "Read(pub.txt)" {
		t.Errorf("Read in Claude Code's names = %q", got)
	}
}

func TestSplitCommand(t *testing.T) {
	tests := []struct {
		cmd    string
		parts  []string
		opaque bool
	}{
		{"ls", []string{"ls"}, false},
		{"a && b || c; d | e\nf & g", []string{"a", "b", "c", "d", "e", "f", "g"}, false},
		{`echo "x;y" 'a|b' \;`, []string{`echo "x;y" 'a|b' \;`}, false},
		{"cmd > out 2>&1 &> all", []string{"cmd > out 2>&1 &> all"}, false},
		{"echo `id`", []string{"echo `id`"}, true},
		{`echo "$(id)"`, []string{`echo "$(id)"`}, true},
		{`echo '$(id)'`, []string{`echo '$(id)'`}, false},
		{"diff <(a) <(b)", []string{"diff <(a) <(b)"}, true},
	}
	for _, tt := range tests {
		parts, opaque := splitCommand(tt.cmd)
		if fmt.Sprint(parts) != fmt.Sprint(tt.parts) || opaque != tt.opaque {
			t.Errorf("splitCommand(%q) = %q, %v; want %q, %v", tt.cmd, parts, opaque, tt.parts, tt.opaque)
		}
	}
}

func TestBuildPermissionsNamesTheBadRuleAndItsFile(t *testing.T) {
	s := &settings.Settings{Permissions: settings.Permissions{Allow: []string{"Bash(ls"}, Sources: map[string]string{"Bash(ls": "/p/.claude/settings.json"}}}
	_, err := Build(ModeDefault, s, nil, nil, "/p")
	var ue *errs.UsageError
	if !asUsage(err, &ue) || !strings.Contains(err.Error(), `"Bash(ls"`) || !strings.Contains(err.Error(), "/p/.claude/settings.json") {
		t.Fatalf("error = %v", err)
	}
	_, err = Build(ModeDefault, &settings.Settings{}, nil, []string{"Bash()"}, "/p")
	if !asUsage(err, &ue) || !strings.Contains(err.Error(), "--deny-tool") {
		t.Fatalf("error = %v", err)
	}
}

func asUsage(err error, ue **errs.UsageError) bool {
	u, ok := err.(*errs.UsageError)
	*ue = u
	return ok
}
