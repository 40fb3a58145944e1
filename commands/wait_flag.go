package commands

import (
	"errors"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/urfave/cli/v2"
)

// waitValue is --wait: a duration ("30s", "2m") or a number of seconds
// ("90", "0.5"), as --timeout and the settings' timeout read it. A plain
// number used to be a parse error here alone.
type waitValue struct{ d time.Duration }

func (w *waitValue) Set(s string) error {
	s = strings.TrimSpace(s)
	if secs, err := strconv.ParseFloat(s, 64); err == nil {
		if secs < 0 || math.IsNaN(secs) || secs > math.MaxInt64/float64(time.Second) {
			return errors.New("not a number of seconds from 0 on")
		}
		w.d = time.Duration(secs * float64(time.Second))
		return nil
	}
	d, err := time.ParseDuration(s)
	if err != nil {
		return errors.New("give a duration like 30s or 2m, or a number of seconds")
	}
	if d < 0 {
		return errors.New("must not be negative")
	}
	w.d = d
	return nil
}

func (w *waitValue) String() string { return formatWait(w.d) }

// waitFlag is a command's --wait, default def.
func waitFlag(def time.Duration, usage string) *cli.GenericFlag {
	return &cli.GenericFlag{Name: "wait", Value: &waitValue{d: def}, Usage: usage + ": a duration (30s, 2m) or seconds"}
}

// waitOf reads --wait.
func waitOf(c *cli.Context) time.Duration {
	if w, ok := c.Generic("wait").(*waitValue); ok {
		return w.d
	}
	return 0
}
