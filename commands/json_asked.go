package commands

import (
	"fmt"
	"strings"

	"github.com/urfave/cli/v2"
)

// A script that asked run, resume or compact for JSON reads one result
// object from stdout whatever happens. A step that never began writes one
// (render.go); so does a command refused before any step could: an
// option refused while the arguments were read (--max-turns abc), an
// empty value, no session given. Main writes it then, when the command
// wrote nothing.

// jsonOutputAsked is the command args ask for json or stream-json output,
// run, resume or compact, or "" when they ask none for it. args are as reorderArgs arranged them
// (options before "--"), or as given when it refused them; then, as
// there, once a prompt began only --output-format written in full is an
// option.
func jsonOutputAsked(app *cli.App, args []string) string {
	cmd, i := commandAt(args)
	switch cmd {
	case "run", "resume", "compact":
	case "":
		// trail -p hi -o json, trail -o json "a prompt": run's, as
		// reorderArgs takes them (a misspelt command word is no prompt,
		// but then no -o json came before it either)
		cmd = "run"
	default:
		return ""
	}
	c := app.Command(cmd)
	if c == nil {
		return "" // the app was built for another command (newApp's only)
	}
	own, globals := flagTable(c.Flags), flagTable(app.Flags)
	start, positional := promptStart(cmd), 0
	asked := false
	for j := i; j < len(args) && args[j] != "--"; j++ {
		a := args[j]
		if !isOption(a) {
			positional++
			continue
		}
		inPrompt := start > 0 && positional >= start
		name := optionName(a)
		if name != "output-format" && (name != "o" || inPrompt) || inPrompt && !strings.HasPrefix(a, "--") {
			if (!inPrompt || strings.HasPrefix(a, "--")) && (own.takesValue(a) || globals.takesValue(a)) {
				j++ // its value is no positional argument
			}
			continue
		}
		v, ok := strings.CutPrefix(strings.TrimLeft(a, "-"), name+"=")
		if !ok {
			if j+1 == len(args) {
				break
			}
			j++
			v = args[j]
		}
		asked = v == outJSON || v == outStreamJSON // the last one given counts
	}
	if !asked {
		return ""
	}
	return cmd
}

// writeUnbegunFailure writes the one object of command cmd (jsonOutputAsked)
// refused before any step could begin.
func writeUnbegunFailure(d *Deps, cmd string, err error) {
	if cmd == "compact" {
		if b, jerr := compactObject(nil, err); jerr == nil {
			fmt.Fprintf(d.IO.Out, "%s\n", b)
		}
		return
	}
	writeFailureObject(d, err)
}
