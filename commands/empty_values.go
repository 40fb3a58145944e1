package commands

import (
	"fmt"

	"github.com/urfave/cli/v2"

	"trail/core/errs"
)

// An option given an empty value is refused, not taken as absent: in a
// script, `--cassette "$CASSETTE"` with the variable unset would otherwise
// run against the real provider the API keys pick (a paid call in a test
// meant to be offline), `--session-id "$ID"` would start a session under
// a random id, `--home "$DIR"` would use ~/.trail. The options where empty
// says something (no system prompt, no tools, the default instructions)
// keep it.
func refuseEmptyValues(c *cli.Context, flags []cli.Flag) error {
	for _, f := range flags {
		sf, ok := f.(stringFlag)
		if !ok {
			continue
		}
		name := sf.names[0]
		if emptyIsAValue(name) || !c.IsSet(name) || c.String(name) != "" {
			continue
		}
		return errs.Usagef(fmt.Sprintf("give --%s a value, or leave it out", name),
			"--%s is empty (an unset variable?)", name)
	}
	return nil
}

// emptyIsAValue: options whose empty value means something, as in
// Claude Code (--system-prompt "", --tools "").
func emptyIsAValue(name string) bool {
	switch name {
	case "system", "append-system", "tools", "instructions", "prompt":
		return true
	}
	return false
}
