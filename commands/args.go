package commands

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
	"unicode"

	"github.com/urfave/cli/v2"

	"trail/core/errs"
	"trail/store"
)

// Arguments are arranged before urfave/cli sees them, driven by the flag
// definitions. The rules, which README and the commands' help repeat:
//
//   - Options may come before or after the arguments, as with git and gh
//     (urfave/cli v2 stops parsing flags at the first positional argument,
//     so every option moves in front of them). Global options given after
//     the command name move before it. "--" ends options.
//   - Prompts stay prompts: once the first word of a prompt is seen (run's
//     first argument, resume's second, or its first with --last), the only
//     options read are the command's own and the global ones written in
//     full ("--name x"); "-v", "-h", "--help" and anything unknown are words
//     of the prompt. "what does grep -v do" is a question, not --verbose.
//   - trail's first word that is no command starts a prompt for run
//     (trail "fix the tests"), and so does an option only run knows
//     (trail -p "fix the tests"), unless the word is one edit from a
//     command ("trail rnu"): then it is a usage error asking "did you mean".
//   - An unknown option before the prompt is a usage error naming the
//     nearest option; an option-looking first word of a prompt gets a hint
//     to put the prompt after "--".

// promptStart is, for the commands that take a prompt, which positional
// argument (1-based) is the prompt's first word; 0 for the others.
// (Functions, not package maps: nothing here may cost start-up time.)
func promptStart(cmd string) int {
	switch cmd {
	case "run":
		return 1
	case "resume":
		return 2
	}
	return 0
}

// reorderArgs returns the arguments as urfave/cli must see them, the
// warnings to show (an unknown option that became part of a prompt but
// looks like a misspelt one), or a usage error.
func reorderArgs(app *cli.App, args []string) ([]string, []string, error) {
	if len(args) < 2 {
		return args, nil, nil
	}
	globals := flagTable(app.Flags)
	out := []string{args[0]}
	i := 1
	// global options before the command name stay where they are
	for i < len(args) && isOption(args[i]) && args[i] != "--" && globals.knows(args[i]) {
		out = append(out, args[i])
		if globals.takesValue(args[i]) && i+1 < len(args) {
			out = append(out, args[i+1])
			i++
		}
		i++
	}
	if i >= len(args) {
		return out, nil, nil
	}
	run := app.Command("run")
	var cmd *cli.Command
	switch a := args[i]; {
	case a == "--":
		cmd = run
	case isOption(a):
		if !flagTable(run.Flags).knows(a) || isHelp(a) {
			return nil, nil, unknownOption(a, "", slices.Concat(globals.long, flagTable(run.Flags).long))
		}
		cmd = run // trail -p "prompt", trail --provider echo "prompt"
	default:
		if cmd = app.Command(a); cmd != nil {
			i++
			break
		}
		if s := suggest(a, commandNames(app)); s != "" && !strings.ContainsFunc(a, unicode.IsSpace) {
			return nil, nil, &errs.UsageError{Msg: "unknown command " + store.QuoteInput(a),
				Fix: fmt.Sprintf("did you mean trail %s? (to send it as a prompt: trail run %s)", s, a)}
		}
		cmd = run // trail "prompt"
	}
	return arrangeCommand(out, cmd, globals, args[i:])
}

// arrangeCommand puts a command's options (and the global ones given
// after its name) before its positional arguments.
func arrangeCommand(out []string, cmd *cli.Command, globals flagSet, rest []string) ([]string, []string, error) {
	own := flagTable(cmd.Flags)
	start := promptStart(cmd.Name)
	if start == 2 {
		end := len(rest)
		if k := slices.Index(rest, "--"); k >= 0 {
			end = k
		}
		if slices.Contains(rest[:end], "--last") {
			start = 1 // resume --last: no id, the prompt comes first
		}
	}
	names := slices.Concat(own.long, globals.long)
	var moved, flags, positional, warnings []string
	inPrompt := false
	for j := 0; j < len(rest); j++ {
		a := rest[j]
		if a == "--" {
			positional = append(positional, rest[j+1:]...)
			break
		}
		var table *flagSet
		switch {
		case !isOption(a):
		case inPrompt:
			// Only a documented option written in full ends a prompt word.
			if strings.HasPrefix(a, "--") && !isHelp(a) && len(optionName(a)) > 1 {
				if own.knows(a) {
					table = &own
				} else if globals.knows(a) {
					table = &globals
				} else if s := suggest(optionName(a), names); s != "" {
					warnings = append(warnings, fmt.Sprintf("%s is taken as part of the prompt; did you mean --%s? (options written in full are read anywhere, others only before the prompt)", shownOption(a), s))
				}
			}
		case own.knows(a):
			table = &own
		case globals.knows(a):
			table = &globals
		default:
			return nil, nil, unknownOption(a, cmd.Name, names)
		}
		if table == nil {
			positional = append(positional, a)
			if start > 0 && len(positional) >= start {
				inPrompt = true
			}
			continue
		}
		dst := &flags
		if table != &own {
			dst = &moved
		}
		*dst = append(*dst, a)
		if table.takesValue(a) {
			if j+1 == len(rest) {
				return danglingOption(out, moved, cmd.Name, flags, dst == &moved), warnings, nil
			}
			*dst = append(*dst, rest[j+1])
			j++
		}
	}
	out = append(out, moved...)
	out = append(out, cmd.Name)
	out = append(out, flags...)
	helpFlag := func(a string) bool { return isOption(a) && isHelp(a) }
	if slices.ContainsFunc(flags, helpFlag) || slices.ContainsFunc(moved, helpFlag) {
		// trail resume triage --help is a request for resume's help: with
		// its arguments kept, urfave looked "triage" up as a help topic
		positional = nil
	}
	if len(positional) > 0 {
		out = append(out, "--")
		out = append(out, positional...)
	}
	return out, warnings, nil
}

// unknownOption is the usage error for an option no table knows, with the
// nearest one, or for a prompt command, how to start a prompt with "-".
func unknownOption(a, cmd string, names []string) error {
	name := a
	if k := strings.IndexByte(a, '='); k > 0 {
		name = a[:k]
	}
	shown := shownOption(name)
	help := "trail --help"
	if cmd != "" {
		help = "trail " + cmd + " --help"
	}
	e := &errs.UsageError{Msg: "unknown option " + shown, Fix: "see " + help}
	prompt := promptStart(cmd) > 0
	switch verb := cmp.Or(cmd, "run"); {
	case strings.ContainsFunc(a, unicode.IsSpace):
		// Not an option anyone would type: a prompt.
		e.Fix = fmt.Sprintf("a prompt that starts with \"-\" goes after --: trail %s -- %s (or use -p)", verb, store.QuoteInput(a))
	case suggest(strings.TrimLeft(name, "-"), names) != "":
		e.Fix = fmt.Sprintf("did you mean --%s? (see %s)", suggest(strings.TrimLeft(name, "-"), names), help)
	case prompt:
		e.Fix = fmt.Sprintf("see %s; a prompt that starts with \"-\" goes after --", help)
	}
	return e
}

// shownOption is an option as typed, quoted when it holds spaces or is long.
func shownOption(a string) string {
	if strings.ContainsFunc(a, unicode.IsSpace) || len(a) > 40 {
		return store.QuoteInput(a)
	}
	return a
}

// danglingOption arranges arguments whose last word is an option that needs
// a value and has none ("trail run -o"). That option must stay last with
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

func isHelp(a string) bool {
	n := optionName(a)
	return n == "help" || n == "h"
}

// flagSet maps every flag name to whether it takes a value, and lists the
// long names (for suggestions).
type flagSet struct {
	takes map[string]bool
	long  []string
}

func flagTable(flags []cli.Flag) flagSet {
	t := flagSet{takes: map[string]bool{"help": false, "h": false}}
	for _, f := range flags {
		takes := true
		if tv, ok := f.(interface{ TakesValue() bool }); ok {
			takes = tv.TakesValue()
		}
		for _, n := range f.Names() {
			t.takes[n] = takes
			if len(n) > 1 {
				t.long = append(t.long, n)
			}
		}
	}
	return t
}

func commandNames(app *cli.App) []string {
	var out []string
	for _, c := range app.Commands {
		if !c.Hidden {
			out = append(out, c.Name)
		}
	}
	return out
}

func optionName(a string) string {
	a = strings.TrimLeft(a, "-")
	if k := strings.IndexByte(a, '='); k >= 0 {
		a = a[:k]
	}
	return a
}

func (t flagSet) knows(a string) bool {
	_, ok := t.takes[optionName(a)]
	return ok
}

func (t flagSet) takesValue(a string) bool {
	return t.takes[optionName(a)] && !strings.Contains(a, "=")
}
