package commands

import (
	"fmt"
	"slices"
	"strings"

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
		var name string
		empty := false
		switch f := f.(type) {
		case stringFlag:
			name = f.names[0]
			empty = c.IsSet(name) && c.String(name) == ""
		case stringSliceFlag:
			// a list option given "" among its values (listFlag refuses
			// the Claude Code spellings' own)
			name = f.names[0]
			empty = c.IsSet(name) && slices.ContainsFunc(c.StringSlice(name), func(v string) bool { return strings.TrimSpace(v) == "" })
		}
		if !empty || emptyIsAValue(name) {
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
