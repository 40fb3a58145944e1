package commands

import (
	"strings"

	"github.com/urfave/cli/v2"
)

// reorderArgs lets options come before or after the arguments, as with git
// and gh: urfave/cli v2 stops parsing flags at the first positional argument,
// so trail moves every option (with its value) in front of the positionals
// before handing the arguments over, driven by the flag definitions. Global
// options given after the command name move before it. "--" ends options.
func reorderArgs(app *cli.App, args []string) []string {
	if len(args) < 2 {
		return args
	}
	globals := flagTable(app.Flags)
	out := []string{args[0]}
	i := 1
	// global options before the command name stay where they are
	for i < len(args) && isOption(args[i]) && args[i] != "--" {
		out = append(out, args[i])
		if globals.takesValue(args[i]) && i+1 < len(args) {
			out = append(out, args[i+1])
			i++
		}
		i++
	}
	if i >= len(args) {
		return out
	}
	cmd := app.Command(args[i])
	if cmd == nil {
		return append(out, args[i:]...)
	}
	name := args[i]
	own := flagTable(cmd.Flags)
	var moved, flags, positional []string
	rest := args[i+1:]
	for j := 0; j < len(rest); j++ {
		a := rest[j]
		if a == "--" {
			positional = append(positional, rest[j+1:]...)
			break
		}
		if !isOption(a) {
			positional = append(positional, a)
			continue
		}
		dst := &flags
		table := own
		if !own.knows(a) && globals.knows(a) {
			dst, table = &moved, globals
		}
		*dst = append(*dst, a)
		if table.takesValue(a) {
			if j+1 == len(rest) {
				return danglingOption(out, moved, name, flags, dst == &moved)
			}
			*dst = append(*dst, rest[j+1])
			j++
		}
	}
	out = append(out, moved...)
	out = append(out, name)
	out = append(out, flags...)
	if len(positional) > 0 {
		out = append(out, "--")
		out = append(out, positional...)
	}
	return out
}

// danglingOption arranges arguments whose last word is an option that needs
// a value and has none ("trail run hi -o"). That option must stay last with
// nothing after it, so the parser says "-o needs a value" rather than taking
// the "--" or the prompt put after it as the value. A global option is left
// without its command, for the app's own flags to report.
func danglingOption(out, moved []string, name string, flags []string, global bool) []string {
	out = append(out, moved...)
	if global {
		return out
	}
	return append(append(out, name), flags...)
}

// isOption: "-x", "--xy", "--xy=v"; a lone "-" is an argument (stdin).
func isOption(a string) bool {
	return len(a) > 1 && a[0] == '-'
}

// flagSet maps every flag name to whether it takes a value.
type flagSet map[string]bool

func flagTable(flags []cli.Flag) flagSet {
	t := flagSet{"help": false, "h": false}
	for _, f := range flags {
		takes := true
		if tv, ok := f.(interface{ TakesValue() bool }); ok {
			takes = tv.TakesValue()
		}
		for _, n := range f.Names() {
			t[n] = takes
		}
	}
	return t
}

func optionName(a string) string {
	a = strings.TrimLeft(a, "-")
	if k := strings.IndexByte(a, '='); k >= 0 {
		a = a[:k]
	}
	return a
}

func (t flagSet) knows(a string) bool {
	_, ok := t[optionName(a)]
	return ok
}

func (t flagSet) takesValue(a string) bool {
	return t[optionName(a)] && !strings.Contains(a, "=")
}
