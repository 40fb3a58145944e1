package permission

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"trail/core/settings"
)

// project is the tree of Claude Code's permissions documentation (a src
// folder and a nested copy under vendor), plus .env files, a home folder
// and a user settings folder.
func project(t *testing.T) (cwd, home string) {
	t.Helper()
	root := t.TempDir()
	cwd, home = filepath.Join(root, "proj"), filepath.Join(root, "home")
	for _, f := range []string{"proj/src/app.ts", "proj/vendor/pkg/src/lib.js", "proj/config/.env", "proj/.env", "proj/README", "home/secrets/key", "home/.claude/secrets/x"} {
		p := filepath.Join(root, f)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return cwd, home
}

// TestClaudeCodePermissionRules holds the rule semantics of Claude Code's
// permissions documentation, one row per case: the rules (and the file
// they come from), the mode and the call, and the decision.
func TestClaudeCodePermissionRules(t *testing.T) {
	cwd, home := project(t)
	projectSettings := filepath.Join(cwd, ".claude", "settings.json")
	userSettings := filepath.Join(home, ".claude", "settings.json")
	type rules struct {
		allow, ask, deny []string
		from             string // the settings file they come from ("" = flags)
	}
	tests := []struct {
		name  string
		rules rules
		mode  string
		tool  string
		arg   string // command, or filePath
		want  string
	}{
		// Bash patterns
		{"prefix:* needs a word boundary", rules{allow: []string{"Bash(npm run test:*)"}}, ModeDefault, "Bash", "npm run testing", DecisionAsk},
		{"prefix:* covers the command with arguments", rules{allow: []string{"Bash(npm run test:*)"}}, ModeDefault, "Bash", "npm run test -- --watch", DecisionAllow},
		{"ls:* does not allow lsof", rules{allow: []string{"Bash(ls:*)"}}, ModeDefault, "Bash", "lsof -i", DecisionAsk},
		{"* anywhere in a Bash pattern", rules{allow: []string{"Bash(git -C * log:*)"}}, ModeDefault, "Bash", "git -C ../lib log --oneline", DecisionAllow},
		{"Bash(*) allows any command", rules{allow: []string{"Bash(*)"}}, ModeDefault, "Bash", "rm -rf build && echo $(date)", DecisionAllow},
		{"a deny sees past an assignment", rules{deny: []string{"Bash(rm *)"}}, ModeBypass, "Bash", "FOO=bar rm -rf tmp/", DecisionDeny},
		{"a deny sees past timeout", rules{deny: []string{"Bash(rm *)"}}, ModeBypass, "Bash", "timeout 30 rm -rf x", DecisionDeny},
		{"a deny sees past nice -n", rules{deny: []string{"Bash(rm *)"}}, ModeBypass, "Bash", "nice -n 5 rm x", DecisionDeny},
		{"a deny sees past nohup and time", rules{deny: []string{"Bash(rm *)"}}, ModeBypass, "Bash", "nohup time rm x", DecisionDeny},
		{"a deny sees into a substitution", rules{deny: []string{"Bash(rm *)"}}, ModeBypass, "Bash", "echo $(rm -rf /)", DecisionDeny},
		{"a deny sees past bare xargs", rules{deny: []string{"Bash(rm *)"}}, ModeBypass, "Bash", "ls | xargs rm", DecisionDeny},
		{"an allow sees past a known-safe assignment", rules{allow: []string{"Bash(npm test *)"}}, ModeDefault, "Bash", "NODE_ENV=test npm test", DecisionAllow},
		{"an allow does not see past any other assignment", rules{allow: []string{"Bash(npm test *)"}}, ModeDefault, "Bash", "LD_PRELOAD=x.so npm test", DecisionAsk},
		{"an allow sees past timeout", rules{allow: []string{"Bash(npm test *)"}}, ModeDefault, "Bash", "timeout 30 npm test", DecisionAllow},
		{"xargs with flags is matched as xargs", rules{allow: []string{"Bash(grep *)"}}, ModeDefault, "Bash", "xargs -n1 grep x", DecisionAsk},
		// Read-only commands
		{"ls is read-only", rules{}, ModeDefault, "Bash", "ls -la src", DecisionAllow},
		{"cat of a file inside is read-only", rules{}, ModeDefault, "Bash", "cat src/app.ts | wc -l", DecisionAllow},
		{"read-only holds in plan mode", rules{}, ModePlan, "Bash", "git status && git log --oneline", DecisionAllow},
		{"cat outside the working directory asks", rules{}, ModeDefault, "Bash", "cat /etc/passwd", DecisionAsk},
		{"a redirect is not read-only", rules{}, ModeDefault, "Bash", "ls > out.txt", DecisionAsk},
		{"a redirect to /dev/null is", rules{}, ModeDefault, "Bash", "grep -r x . 2>/dev/null", DecisionAllow},
		{"find -delete is not read-only", rules{}, ModeDefault, "Bash", "find . -name '*.o' -delete", DecisionAsk},
		{"git push is not read-only", rules{}, ModeDefault, "Bash", "git push", DecisionAsk},
		{"cd elsewhere with git asks", rules{}, ModeDefault, "Bash", "cd vendor && git log", DecisionAsk},
		{"an expansion is not read-only", rules{}, ModeDefault, "Bash", "cat $FILE", DecisionAsk},
		{"an ask rule beats read-only", rules{ask: []string{"Bash(cat *)"}}, ModeDefault, "Bash", "cat README", DecisionAsk},
		{"xargs feeding names is not read-only", rules{}, ModeDefault, "Bash", "echo /etc/shadow | xargs cat", DecisionAsk},
		{"neither is a wrapper around xargs", rules{}, ModeDefault, "Bash", "echo /etc/shadow | timeout 5 xargs cat", DecisionAsk},
		// Read deny rules, the .env hole
		{"Read(.env) denies a nested .env", rules{deny: []string{"Read(.env)"}}, ModeDefault, "Read", "config/.env", DecisionDeny},
		{"Read(./.env) denies the working directory's .env", rules{deny: []string{"Read(./.env)"}}, ModeDefault, "Read", ".env", DecisionDeny},
		{"Edit(./config.json) allows only the working directory's", rules{allow: []string{"Edit(./config.json)"}}, ModeDefault, "Edit", "sub/config.json", DecisionAsk},
		{"...and allows that one", rules{allow: []string{"Edit(./config.json)"}}, ModeDefault, "Edit", "config.json", DecisionAllow},
		{"Read(.env) stops cat of a nested .env", rules{deny: []string{"Read(.env)"}, allow: []string{"Bash(cat *)"}}, ModeDefault, "Bash", "cat config/.env", DecisionDeny},
		{"...under acceptEdits", rules{deny: []string{"Read(.env)"}}, ModeAcceptEdits, "Bash", "head -n 3 ./.env", DecisionDeny},
		{"...under bypassPermissions", rules{deny: []string{"Read(.env)"}}, ModeBypass, "Bash", "grep SECRET config/.env", DecisionDeny},
		{"...through a < redirection", rules{deny: []string{"Read(.env)"}}, ModeBypass, "Bash", "wc -l < .env", DecisionDeny},
		{"a grep pattern is not a file", rules{deny: []string{"Read(.env)"}}, ModeDefault, "Bash", "grep .env README", DecisionAllow},
		{"a glob that names the file is the file", rules{deny: []string{"Read(.env)"}}, ModeDefault, "Bash", "cat config/.en?", DecisionDeny},
		{"Read(.env) guards writes to .env", rules{deny: []string{"Read(.env)"}}, ModeBypass, "Write", ".env", DecisionDeny},
		{"an Edit deny stops a redirect into the file", rules{deny: []string{"Edit(src/**)"}}, ModeBypass, "Bash", "echo x > src/app.ts", DecisionDeny},
		{"Read(.env) does not reach a parent's .env", rules{deny: []string{"Read(.env)"}}, ModeDefault, "Read", "../.env", DecisionAllow},
		// Path anchors
		{"/src/** in project settings is the project's src", rules{deny: []string{"Edit(/src/**)"}, from: projectSettings}, ModeAcceptEdits, "Edit", "src/app.ts", DecisionDeny},
		{"...and not a nested src", rules{deny: []string{"Edit(/src/**)"}, from: projectSettings}, ModeAcceptEdits, "Edit", "vendor/pkg/src/lib.js", DecisionAllow},
		{"a deny src/** covers nested src folders", rules{deny: []string{"Edit(src/**)"}}, ModeAcceptEdits, "Edit", "vendor/pkg/src/lib.js", DecisionDeny},
		{"an allow src/** is the working directory's src only", rules{allow: []string{"Edit(src/**)"}}, ModeDefault, "Edit", "vendor/pkg/src/lib.js", DecisionAsk},
		{"...which it allows", rules{allow: []string{"Edit(src/**)"}}, ModeDefault, "Edit", "src/app.ts", DecisionAllow},
		{"/path in user settings is under ~/.claude", rules{deny: []string{"Read(/secrets/**)"}, from: userSettings}, ModeDefault, "Read", filepath.Join(home, ".claude/secrets/x"), DecisionDeny},
		{"...not the project's", rules{deny: []string{"Read(/secrets/**)"}, from: userSettings}, ModeDefault, "Read", filepath.Join(home, "secrets/key"), DecisionAllow},
		{"/path in inline --settings JSON is the working directory's", rules{deny: []string{"Edit(/src/**)"}, from: settings.InlineName}, ModeAcceptEdits, "Edit", "src/app.ts", DecisionDeny},
		{"~/ is the home folder", rules{deny: []string{"Read(~/secrets/**)"}}, ModeDefault, "Read", filepath.Join(home, "secrets/key"), DecisionDeny},
		{"// is the filesystem root", rules{deny: []string{"Read(//etc/shadow)"}}, ModeBypass, "Read", "/etc/shadow", DecisionDeny},
		// Tool names, MCP, modes
		{"mcp__* denies every MCP tool", rules{deny: []string{"mcp__*"}}, ModeBypass, "mcp__github__get_issue", "", DecisionDeny},
		{"a server rule covers its tools", rules{deny: []string{"mcp__puppeteer"}}, ModeBypass, "mcp__puppeteer__navigate", "", DecisionDeny},
		{"...and no other server's", rules{deny: []string{"mcp__puppeteer"}}, ModeDefault, "mcp__other__navigate", "", DecisionAsk},
		{"an allow glob after mcp__server__", rules{allow: []string{"mcp__github__get_*"}}, ModeDefault, "mcp__github__get_issue", "", DecisionAllow},
		{"an unanchored allow glob is skipped", rules{allow: []string{"mcp__*"}}, ModeDefault, "mcp__github__get_issue", "", DecisionAsk},
		{"a * deny covers every tool", rules{deny: []string{"*"}}, ModeBypass, "Read", "README", DecisionDeny},
		{"dontAsk denies what would ask", rules{}, ModeDontAsk, "Bash", "make", DecisionDeny},
		{"dontAsk still allows an allow rule", rules{allow: []string{"Bash(make)"}}, ModeDontAsk, "Bash", "make", DecisionAllow},
		{"dontAsk turns an ask rule into a deny", rules{ask: []string{"Read"}}, ModeDontAsk, "Read", "README", DecisionDeny},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := &settings.Settings{Permissions: settings.Permissions{Allow: tt.rules.allow, Ask: tt.rules.ask, Deny: tt.rules.deny, Sources: map[string]string{}}}
			for _, list := range []struct {
				rules []string
				from  *[]string
			}{{tt.rules.allow, &s.Permissions.AllowFrom}, {tt.rules.ask, &s.Permissions.AskFrom}, {tt.rules.deny, &s.Permissions.DenyFrom}} {
				for range list.rules {
					*list.from = append(*list.from, tt.rules.from)
				}
			}
			p, err := Build(tt.mode, s, nil, nil, cwd)
			if err != nil {
				t.Fatal(err)
			}
			p.Home = home
			key := "command"
			if tt.tool != "Bash" {
				key = "filePath"
			}
			got := p.Check(tt.tool, args(key, tt.arg))
			if got.Decision != tt.want {
				t.Errorf("%s(%s) in %s = %+v, want %s", tt.tool, tt.arg, tt.mode, got, tt.want)
			}
		})
	}
}

func TestAnUnanchoredAllowGlobIsSkippedWithAWarning(t *testing.T) {
	p, err := Build(ModeDefault, &settings.Settings{}, []string{"mcp__*", "Read"}, nil, "/proj")
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Allow) != 1 || len(p.Warnings) != 1 || !strings.Contains(p.Warnings[0], "mcp__*") {
		t.Fatalf("allow = %v, warnings = %q", p.Allow, p.Warnings)
	}
}

func TestAModelCannotStepAroundAPathRuleWithClaudesSpelling(t *testing.T) {
	p := perms(t, ModeBypass, nil, []string{"Read(.env)"})
	if got := p.Check("Read", args("file_path", "config/.env")); got.Decision != DecisionDeny {
		t.Fatalf("file_path = %+v", got)
	}
}

func TestResolveMode(t *testing.T) {
	for in, want := range map[string]string{"manual": ModeDefault, "auto": ModeDefault, "dontAsk": ModeDontAsk, "plan": ModePlan} {
		got, note := ResolveMode(in)
		if got != want || (in != want && note == "") || (in == want && in != ModeDontAsk && note != "") {
			t.Errorf("ResolveMode(%s) = %s, %q", in, got, note)
		}
	}
}

// The Bash matching table of Claude Code's hooks reference for "if", and
// the anchoring of path patterns there.
func TestHookIfFilter(t *testing.T) {
	tests := []struct {
		rule, tool, arg string
		want            bool
	}{
		{"Bash(git *)", "Bash", "FOO=bar git push", true},
		{"Bash(git *)", "Bash", "npm test && git push", true},
		{"Bash(rm *)", "Bash", "echo $(rm -rf /)", true},
		{"Bash(rm *)", "Bash", "echo $(date)", false},
		{"Bash(git push *)", "Bash", "echo $(date)", true},
		{"Bash(git commit:*)", "Bash", "git commit -m 'x'", true},
		{"Bash(git commit:*)", "Bash", "git status", false},
		{"Bash(rm *)", "Bash", "echo 'unterminated", true},
		// A command word the shell works out could be any command (Claude
		// Code runs the hook then), and what eval, sh -c, sudo and find
		// -exec run is a command too.
		{"Bash(rm *)", "Bash", "R=rm; $R a", true},
		{"Bash(rm *)", "Bash", "$(echo rm) a", true},
		{"Bash(rm *)", "Bash", `eval "rm a"`, true},
		{"Bash(rm *)", "Bash", `sh -c "rm a"`, true},
		{"Bash(rm *)", "Bash", `\rm a`, true},
		{"Bash(rm *)", "Bash", `r""m a`, true},
		{"Bash(rm *)", "Bash", "/bin/rm a", true},
		{"Bash(rm *)", "Bash", "env rm a", true},
		{"Bash(rm *)", "Bash", "find . -exec rm {} +", true},
		{"Bash(rm *)", "Bash", "(rm a)", true},
		{"Bash(rm *)", "Bash", "echo $HOME", false},
		{"Bash(rm *)", "Edit", "a.go", false},
		{"Edit(src/**)", "Edit", "src/a.ts", true},
		{"Edit(src/**)", "Edit", "vendor/src/a.ts", false},
		{"Edit(src/**)", "Write", "src/new.ts", true},
		{"Edit(*.ts)", "Edit", "src/a.ts", true},
		{"Edit(*.ts)", "Edit", "src/a.go", false},
	}
	for _, tt := range tests {
		key := "command"
		if tt.tool != "Bash" {
			key = "filePath"
		}
		got, err := MatchIf(tt.rule, tt.tool, args(key, tt.arg), "/proj", "/home/u")
		if err != nil || got != tt.want {
			t.Errorf("if %s on %s(%s) = %v, %v; want %v", tt.rule, tt.tool, tt.arg, got, err, tt.want)
		}
	}
	if run, err := MatchIf("Bash(", "Bash", args("command", "ls"), "/proj", ""); !run || err == nil {
		t.Errorf("a rule that does not parse: run %v, err %v; want the hook to run and an error", run, err)
	}
}
