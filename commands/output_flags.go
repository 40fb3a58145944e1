package commands

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/urfave/cli/v2"

	"trail/core"
	"trail/core/errs"
)

// --thinking takes an optional value: alone it turns thinking on (the
// model decides how much, or a default budget: core's output_limits.go),
// --thinking=N gives a budget in tokens, --thinking=off turns off what
// the settings turned on. "--thinking 8000" works too: a number right
// after it is its value (joinOptionalValues), anything else is the prompt.

// thinkingValue is --thinking's value: "on", "off" or a budget.
type thinkingValue struct{ v string }

func (t *thinkingValue) Set(s string) error {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "", "true", "on":
		t.v = "on"
	case "false", "off", "0":
		t.v = "off"
	default:
		n, err := strconv.Atoi(s)
		if err != nil || n < 0 {
			return fmt.Errorf("give a budget in tokens, on or off")
		}
		t.v = strconv.Itoa(n)
	}
	return nil
}

func (t *thinkingValue) String() string { return t.v }

// IsBoolFlag lets the flag parser take "--thinking" with no value.
func (t *thinkingValue) IsBoolFlag() bool { return true }

// optionalValueFlag is a flag whose value may be left out: the argument
// reordering (args.go) must not take the next word as its value.
type optionalValueFlag struct {
	*cli.GenericFlag
	names []string // set by withNames
}

func (optionalValueFlag) TakesValue() bool { return false }

func (f optionalValueFlag) Names() []string {
	if f.names == nil {
		return f.GenericFlag.Names()
	}
	return f.names
}

// optionalValueFlags names the flags whose value may be left out.
var optionalValueFlags = []string{"--thinking"}

func outputFlags() []cli.Flag {
	return []cli.Flag{
		&cli.IntFlag{Name: "max-tokens", Usage: "cap on each answer in `TOKENS`", DefaultText: "the model's output limit, else 8192"},
		optionalValueFlag{GenericFlag: &cli.GenericFlag{Name: "thinking", Value: &thinkingValue{},
			Usage: "Anthropic extended thinking; alone the model decides how much (or 10000 tokens), =`BUDGET` in tokens, =off"}},
	}
}

// outputOptions reads --max-tokens and --thinking.
func outputOptions(c *cli.Context, s *core.StepOptions) error {
	if c.IsSet("max-tokens") {
		n := c.Int("max-tokens")
		if n < 1 {
			return errs.Usagef("give the cap in tokens, e.g. 16000", "--max-tokens must be 1 or more")
		}
		s.MaxTokens = n
	}
	if t, ok := c.Generic("thinking").(*thinkingValue); ok && t != nil {
		s.Thinking = t.v
	}
	return nil
}

// joinOptionalValues turns "--thinking 8000" into "--thinking=8000": a
// number right after an optional-value flag is its value. Words after
// "--" are never touched.
func joinOptionalValues(args []string) []string {
	var out []string
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			return append(out, args[i:]...)
		}
		for _, name := range optionalValueFlags {
			if a == name && i+1 < len(args) && isNumber(args[i+1]) {
				a = name + "=" + args[i+1]
				i++
				break
			}
		}
		out = append(out, a)
	}
	return out
}

func isNumber(s string) bool {
	return s != "" && strings.Trim(s, "0123456789") == ""
}
