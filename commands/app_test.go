package commands

import (
	"context"
	"reflect"
	"slices"
	"testing"

	"github.com/urfave/cli/v2"
)

// A process builds only the command it runs; what that command shows and
// accepts must be what the app with every command shows and accepts.
func TestAppWithOneCommandActsAsTheWholeApp(t *testing.T) {
	help := func(only string, args ...string) string {
		ios, _, out, errOut := TestIO()
		app := newApp(&Deps{IO: ios}, only)
		if err := app.RunContext(context.Background(), args); err != nil {
			t.Fatalf("%v: %v", args, err)
		}
		return out.String() + errOut.String()
	}
	for _, cmd := range commandTable {
		name := cmd.name
		want := help("", "trail", name, "--help")
		if got := help(name, "trail", name, "--help"); got != want {
			t.Errorf("%s --help differs when only %s is built:\n%s\nwant:\n%s", name, name, got, want)
		}
		full, one := newApp(&Deps{IO: &IOStreams{}}, "").Command(name), newApp(&Deps{IO: &IOStreams{}}, name).Command(name)
		if one == nil || !slices.Equal(flagNames(full.Flags), flagNames(one.Flags)) {
			t.Errorf("%s: flags differ when only %s is built", name, name)
		}
	}
}

func TestCommandOfNamesTheCommandAfterGlobalOptions(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"trail", "list"}, "list"},
		{[]string{"trail", "--home", "/tmp/h", "-q", "replay", "x"}, "replay"},
		{[]string{"trail", "--home=/tmp/h", "validate-log", "-"}, "validate-log"},
		{[]string{"trail", "--home", "list"}, ""}, // list is --home's value
		{[]string{"trail", "help", "run"}, ""},
		{[]string{"trail", "fix the tests"}, ""},
		{[]string{"trail", "-p", "hi"}, ""},
		{[]string{"trail", "-c", "next"}, ""},
		{[]string{"trail", "rnu"}, ""},
		{[]string{"trail", "--", "run"}, ""},
		{[]string{"trail"}, ""},
	} {
		if got := commandOf(tc.args); got != tc.want {
			t.Errorf("commandOf(%q) = %q, want %q", tc.args, got, tc.want)
		}
	}
}

// Every flag answers Names() from the list computed once, with the names
// urfave/cli computes.
func TestFlagNamesAreUrfaveCLIs(t *testing.T) {
	app := newApp(&Deps{IO: &IOStreams{}}, "")
	all := slices.Clone(app.Flags)
	for _, c := range app.Commands {
		all = append(all, c.Flags...)
	}
	for _, f := range all {
		if f == cli.HelpFlag {
			continue
		}
		// A wrapper is a struct whose first field is the flag it wraps;
		// urfave/cli's flags are pointers and compute their names per call.
		v := reflect.ValueOf(f)
		if v.Kind() != reflect.Struct {
			t.Errorf("%v (%T) computes its names on every call", f.Names(), f)
			continue
		}
		orig := v.Field(0).Interface().(cli.Flag).Names()
		if !slices.Equal(f.Names(), orig) {
			t.Errorf("names %v, urfave/cli says %v", f.Names(), orig)
		}
	}
}

func flagNames(flags []cli.Flag) []string {
	var out []string
	for _, f := range flags {
		out = append(out, f.Names()...)
	}
	return out
}
