package commands

import (
	"strconv"

	"github.com/urfave/cli/v2"

	"trail/core"
	"trail/core/errs"
	"trail/store"
)

// contextOptions reads --auto-compact and --context-window.
func contextOptions(c *cli.Context, s *core.StepOptions) error {
	if c.IsSet("context-window") {
		n := c.Int64("context-window")
		if n <= 0 {
			return errs.Usagef("give the window in tokens, e.g. 200000", "--context-window must be more than 0")
		}
		s.ContextWindow = n
	}
	if !c.IsSet("auto-compact") {
		return nil
	}
	v := c.String("auto-compact")
	if v == "off" || v == "false" {
		s.AutoCompactOff = true
		return nil
	}
	x, err := strconv.ParseFloat(v, 64)
	if err != nil || x <= 0 || x > 1 {
		return errs.Usagef("give a fraction in (0,1] such as 0.8, or off", "--auto-compact %s is not a threshold", store.QuoteInput(v))
	}
	s.AutoCompact = x
	return nil
}
