package permission

import (
	"strings"
	"testing"
)

func TestParseRule(t *testing.T) {
	tests := []struct {
		in      string
		tool    string
		pattern string
		prefix  bool
		wantErr string
	}{
		{in: "Bash", tool: "Bash"},
		{in: "  Read  ", tool: "Read"},
		{in: "Bash(git diff *)", tool: "Bash", pattern: "git diff *"},
		{in: "Bash(npm run test:*)", tool: "Bash", pattern: "npm run test", prefix: true},
		{in: "Read(src/**)", tool: "Read", pattern: "src/**"},
		{in: "Bash(echo (x))", tool: "Bash", pattern: "echo (x)"},
		{in: "mcp__github__get_issue", tool: "mcp__github__get_issue"},
		{in: "", wantErr: "a rule is Tool"},
		{in: "Bash(", wantErr: "must end with )"},
		{in: "Bash(ls", wantErr: "must end with )"},
		{in: "Bash()", wantErr: "empty pattern"},
		{in: "Bash(ls)x", wantErr: "must end with )"},
		{in: "(ls)", wantErr: "is not a tool name"},
		{in: "Ba sh", wantErr: "a rule is Tool"},
		{in: "Bash ls)", wantErr: "unbalanced"},
	}
	for _, tt := range tests {
		r, err := ParseRule(tt.in)
		if tt.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("ParseRule(%q) error = %v, want %q", tt.in, err, tt.wantErr)
			}
			continue
		}
		if err != nil {
			t.Errorf("ParseRule(%q): %v", tt.in, err)
			continue
		}
		if r.Tool != tt.tool || r.Pattern != tt.pattern || r.Prefix != tt.prefix {
			t.Errorf("ParseRule(%q) = %+v", tt.in, r)
		}
	}
}

func TestRuleGlobMatching(t *testing.T) {
	tests := []struct {
		rule, value string
		want        bool
	}{
		{"Bash(echo *)", "echo hi", true},
		{"Bash(echo *)", "echo ", true},
		{"Bash(echo *)", "echo", true}, // a trailing " *" may match nothing (Claude Code)
		{"Bash(git push *)", "git push", true},
		{"Bash(ls *)", "lsof", false}, // the space still counts
		{"Bash(echo*)", "echo", true},
		{"Bash(echo *)", "xecho hi", false}, // anchored at the start
		{"Bash(*.sh)", "run.sh x", false},   // anchored at the end
		{"Bash(git *)", "git commit -m 'a\nb'", true},
		{"Bash(ls:*)", "lsof", false},                      // the legacy prefix form needs a word boundary too
		{"Bash(npm run test:*)", "npm run testing", false}, // ...so a longer word is another command
		{"Bash(npm run test:*)", "npm run test -- --watch", true},
		{"Bash(git -C * log:*)", "git -C repo log --oneline", true}, // * anywhere
		{"Bash(git * main)", "git push origin main", true},
		{"Bash(* --version)", "go --version", true},
		{"Glob(src/**)", "src/a/b.go", true},
		{"Glob(src/**)", "src/", false}, // ** needs at least one character
		{"Glob(src/*)", "src/", true},   // * may be empty
		{"Bash(a.b)", "axb", false},     // regexp characters are literal
		{"Bash(a+b)", "a+b", true},
		{"Bash(git diff:*)", "git diff", true},
		{"Bash(git diff:*)", "git diff HEAD~1", true},
		{"Bash(git diff:*)", "git dif", false},
		{"Bash(ls)", "ls", true},
		{"Bash(ls)", "ls -la", false},
	}
	for _, tt := range tests {
		r, err := ParseRule(tt.rule)
		if err != nil {
			t.Fatal(err)
		}
		if got := r.matchValue(tt.value); got != tt.want {
			t.Errorf("%s matches %q = %v, want %v", tt.rule, tt.value, got, tt.want)
		}
	}
}

func FuzzParseRule(f *testing.F) {
	for _, s := range []string{"Bash", "Bash(echo *)", "Read(src/**)", "Bash(git diff:*)", "Bash(", "(x)", "Bash(a(b)c)", "Bash(**)"} {
		f.Add(s, "echo hi")
	}
	f.Fuzz(func(t *testing.T, rule, value string) {
		r, err := ParseRule(rule)
		if err != nil {
			if r.Text != strings.TrimSpace(rule) {
				t.Fatalf("rule text %q lost", rule)
			}
			return
		}
		if r.Tool == "" {
			t.Fatalf("%q parsed with no tool", rule)
		}
		if r.kind == kindPath {
			// Any path is judged without a panic, as a deny and as an allow.
			p := &Policy{Cwd: "/proj", Home: "/home/u"}
			_ = p.matchPath(r.path, value, true)
			_ = p.matchPath(r.path, value, false)
			return
		}
		_ = r.matchValue(value)
		// A glob without wildcards matches exactly itself.
		if r.Pattern != "" && !r.Prefix && !strings.Contains(r.Pattern, "*") && !r.matchValue(r.Pattern) {
			t.Fatalf("%q does not match its own literal pattern", rule)
		}
		// The prefix form covers the bare command and the command with
		// arguments after a space (Bash); the prefix and anything (other tools).
		switch {
		case r.Prefix && r.kind == kindBash && (!r.matchValue(r.Pattern) || !r.matchValue(r.Pattern+" "+value)):
			t.Fatalf("%q does not match its prefix, or its prefix + \" \" + %q", rule, value)
		case r.Prefix && r.kind == kindGlob && !strings.Contains(r.Pattern, "*") && !r.matchValue(r.Pattern+value):
			t.Fatalf("%q does not match its prefix + %q", rule, value)
		}
	})
}
