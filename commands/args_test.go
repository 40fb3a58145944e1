package commands

import (
	"reflect"
	"strings"
	"testing"
)

func TestReorderArgsLetsOptionsFollowArguments(t *testing.T) {
	app := newApp(&Deps{IO: &IOStreams{}})
	tests := []struct {
		in, want string
	}{
		{"trail resume 0193abcd next step -o json", "trail resume -o json -- 0193abcd next step"},
		{"trail resume -o json 0193abcd next step", "trail resume -o json -- 0193abcd next step"},
		{"trail run hi --max-turns 3 there", "trail run --max-turns 3 -- hi there"},
		{"trail run --output-format=json hi", "trail run --output-format=json -- hi"},
		{"trail run --no-log hi", "trail run --no-log -- hi"},
		{"trail run hi -- --not-an-option", "trail run -- hi --not-an-option"},
		{"trail run hi --home /h -q", "trail --home /h -q run -- hi"},
		{"trail --home /h run hi", "trail --home /h run -- hi"},
		{"trail run hi --bogus", "trail run --bogus -- hi"},
		{"trail list", "trail list"},
		{"trail frob x -y", "trail frob x -y"},
		{"trail run - -p x", "trail run -p x -- -"},
		// an option without its value stays last, for the parser to report
		{"trail run hi -o", "trail run -o"},
		{"trail run --no-log hi --home", "trail --home"},
	}
	for _, tt := range tests {
		got := reorderArgs(app, strings.Fields(tt.in))
		if !reflect.DeepEqual(got, strings.Fields(tt.want)) {
			t.Errorf("reorder(%q)\n got %q\nwant %q", tt.in, strings.Join(got, " "), tt.want)
		}
	}
}
