package commands

import (
	"reflect"
	"strings"
	"testing"

	"trail/core/errs"
)

func TestReorderArgsLetsOptionsFollowArguments(t *testing.T) {
	app := newApp(&Deps{IO: &IOStreams{}}, "")
	tests := []struct {
		name, in, want string
	}{
		{"options before the prompt move in front", "trail resume -o json 0193abcd next step", "trail resume -o json -- 0193abcd next step"},
		{"an option between the id and the prompt is read", "trail resume 0193abcd -o json next step", "trail resume -o json -- 0193abcd next step"},
		{"a short option after the prompt's first word is prompt", "trail resume 0193abcd next step -o json", "trail resume -- 0193abcd next step -o json"},
		{"a long option of the command after the prompt is read", "trail run hi --max-turns 3 there", "trail run --max-turns 3 -- hi there"},
		{"a long option with = is read", "trail run hi --output-format=json", "trail run --output-format=json -- hi"},
		{"a boolean before the prompt", "trail run --no-log hi", "trail run --no-log -- hi"},
		{"-- ends the options", "trail run hi -- --not-an-option", "trail run -- hi --not-an-option"},
		{"a global long option after the prompt moves before the command", "trail run hi --home /h --quiet", "trail --home /h --quiet run -- hi"},
		{"a global short option after the prompt is prompt", "trail run hi -q", "trail run -- hi -q"},
		{"-v inside a prompt is a word", "trail run what does grep -v do", "trail run -- what does grep -v do"},
		{"-h and --help inside a prompt are words", "trail run how does ls -h --help work", "trail run -- how does ls -h --help work"},
		{"an unknown long option after the prompt is prompt", "trail run hi --bogus", "trail run -- hi --bogus"},
		{"-h before the prompt asks for help", "trail run -h", "trail run -h"},
		{"global options before the command stay", "trail --home /h run hi", "trail --home /h run -- hi"},
		{"other commands take options anywhere", "trail list --limit 3 --json", "trail list --limit 3 --json"},
		{"resume --last: the first argument is the prompt", "trail resume --last what -v", "trail resume --last -- what -v"},
		{"a word that is no command is run's prompt", "trail hello there -v", "trail run -- hello there -v"},
		{"-p at the top is run", "trail -p hi", "trail run -p hi"},
		{"run's options at the top are run", "trail --provider echo hi -v", "trail run --provider echo -- hi -v"},
		{"-- at the top is run", "trail -- -v", "trail run -- -v"},
		{"a lone - is an argument", "trail run - -p x", "trail run -- - -p x"},
		// an option without its value stays last, for the parser to report
		{"an option with no value stays last", "trail run -o", "trail run -o"},
		{"a global option with no value is left alone", "trail run --no-log hi --home", "trail --home"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, _, err := reorderArgs(app, strings.Fields(tt.in))
			if err != nil || !reflect.DeepEqual(got, strings.Fields(tt.want)) {
				t.Errorf("reorder(%q)\n got %q, %v\nwant %q", tt.in, strings.Join(got, " "), err, tt.want)
			}
		})
	}
}

// Misspelt commands and options are usage errors naming the nearest one;
// a prompt that starts with "-" is told to go after "--".
func TestReorderArgsSuggests(t *testing.T) {
	app := newApp(&Deps{IO: &IOStreams{}}, "")
	tests := []struct {
		name     string
		args     []string
		wantMsg  string
		wantHint string
	}{
		{"a swapped command", []string{"rnu", "hi"}, `unknown command "rnu"`, "did you mean trail run? (to send it as a prompt: trail run rnu)"},
		{"the start of a command", []string{"migrate"}, `unknown command "migrate"`, "did you mean trail migrate-history? (to send it as a prompt: trail run migrate)"},
		{"a misspelt option of a command", []string{"run", "--provder", "echo", "hi"}, "unknown option --provder", "did you mean --provider? (see trail run --help)"},
		{"a misspelt global option", []string{"list", "--qiuet"}, "unknown option --qiuet", "did you mean --quiet? (see trail list --help)"},
		{"a misspelt option at the top", []string{"--provder=echo", "hi"}, "unknown option --provder", "did you mean --provider? (see trail --help)"},
		{"a prompt that starts with a dash", []string{"run", "-v is verbose?"}, `unknown option "-v is verbose?"`,
			`a prompt that starts with "-" goes after --: trail run -- "-v is verbose?" (or use -p)`},
		{"an unknown option of run", []string{"run", "--frob", "hi"}, "unknown option --frob", `see trail run --help; a prompt that starts with "-" goes after --`},
		{"an unknown option of a command without prompts", []string{"list", "--frob"}, "unknown option --frob", "see trail list --help"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, _, err := reorderArgs(app, append([]string{"trail"}, tt.args...))
			u, ok := err.(*errs.UsageError)
			if !ok || u.Msg != tt.wantMsg || u.Fix != tt.wantHint {
				t.Fatalf("got %#v\nwant %q / %q", err, tt.wantMsg, tt.wantHint)
			}
		})
	}
	// a one-word prompt far from every command is a prompt
	for _, w := range []string{"hello", "hi", "explain", "test"} {
		if got, _, err := reorderArgs(app, []string{"trail", w}); err != nil || strings.Join(got, " ") != "trail run -- "+w {
			t.Errorf("trail %s: %q, %v", w, got, err)
		}
	}
	// a misspelt option after the prompt stays prompt, with a warning
	if _, warn, _ := reorderArgs(app, strings.Fields("trail run hi --provder echo")); len(warn) != 1 || !strings.Contains(warn[0], "did you mean --provider?") {
		t.Errorf("warnings %q", warn)
	}
}

func TestEditDistance(t *testing.T) {
	for _, tt := range []struct {
		a, b string
		want int
	}{{"rnu", "run", 1}, {"run", "run", 0}, {"lsit", "list", 1}, {"hello", "help", 2}, {"", "abc", 3}, {"provder", "provider", 1}} {
		if got := editDistance(tt.a, tt.b); got != tt.want {
			t.Errorf("editDistance(%q, %q) = %d, want %d", tt.a, tt.b, got, tt.want)
		}
	}
}
