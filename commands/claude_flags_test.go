package commands

import (
	"reflect"
	"strings"
	"testing"
)

func TestClaudeArgsRewriteClaudeCodesHabits(t *testing.T) {
	app := newApp(&Deps{IO: &IOStreams{}}, "")
	tests := []struct {
		name string
		in   []string
		want []string
	}{
		{"-c resumes the latest session here", []string{"trail", "-c", "next step"}, []string{"trail", "resume", "--last", "next step"}},
		{"--continue after a global option", []string{"trail", "--home", "/h", "--continue", "-p", "x"}, []string{"trail", "--home", "/h", "resume", "--last", "-p", "x"}},
		{"-r ID resumes that session", []string{"trail", "-r", "0193abcd", "go on"}, []string{"trail", "resume", "0193abcd", "go on"}},
		{"--resume=ID", []string{"trail", "--resume=0193abcd", "go on"}, []string{"trail", "resume", "0193abcd", "go on"}},
		{"a command's own -c is left alone", []string{"trail", "run", "-c"}, []string{"trail", "run", "-c"}},
		{"space-separated rules after --allowedTools", []string{"trail", "run", "--allowedTools", "Bash(git log *)", "Bash(git diff *)", "Read", "review this"},
			[]string{"trail", "run", "--allowedTools", "Bash(git log *)", "--allowedTools", "Bash(git diff *)", "--allowedTools", "Read", "review this"}},
		{"the list ends at a word that is no rule", []string{"trail", "run", "--disallowed-tools", "Bash", "fix it", "Edit"},
			[]string{"trail", "run", "--disallowed-tools", "Bash", "fix it", "Edit"}},
		{"mcp names are rules", []string{"trail", "run", "--allowedTools", "Read", "mcp__github__get_issue"},
			[]string{"trail", "run", "--allowedTools", "Read", "--allowedTools", "mcp__github__get_issue"}},
	}
	for _, tt := range tests {
		if got := claudeArgs(app, tt.in); !reflect.DeepEqual(got, tt.want) {
			t.Errorf("%s: claudeArgs(%q)\n got %q\nwant %q", tt.name, tt.in, got, tt.want)
		}
	}
}

func TestSplitRulesKeepsPatternsWhole(t *testing.T) {
	for in, want := range map[string][]string{
		"Bash,Read,Edit":               {"Bash", "Read", "Edit"},
		"Bash(git log *) Read":         {"Bash(git log *)", "Read"},
		"Bash(echo a,b), Edit(src/**)": {"Bash(echo a,b)", "Edit(src/**)"},
		"  ":                           nil,
	} {
		if got := splitRules(in); !reflect.DeepEqual(got, want) {
			t.Errorf("splitRules(%q) = %q, want %q", in, strings.Join(got, "|"), strings.Join(want, "|"))
		}
	}
}
