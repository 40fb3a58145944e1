package commands

import "github.com/urfave/cli/v2"

// urfave/cli computes a flag's names with a regular expression on every
// Names() call, and before a command runs it asks, for every flag, whether
// it was set, which looks the flag up by scanning all flags' names: for
// `trail run`, with some sixty flags, that was thousands of regular
// expression runs and their garbage on every invocation, a quarter of a
// one-shot's CPU beyond start-up. The wrappers below answer Names() from a
// list computed once; everything else is the embedded flag's own.
//
// cli.HelpFlag is left as it is: urfave/cli adds it to a command unless
// it finds that very value among the command's flags.

type boolFlag struct {
	*cli.BoolFlag
	names []string
}

type stringFlag struct {
	*cli.StringFlag
	names []string
}

type intFlag struct {
	*cli.IntFlag
	names []string
}

type int64Flag struct {
	*cli.Int64Flag
	names []string
}

type durationFlag struct {
	*cli.DurationFlag
	names []string
}

type genericFlag struct {
	*cli.GenericFlag
	names []string
}

type stringSliceFlag struct {
	*cli.StringSliceFlag
	names []string
}

func (f boolFlag) Names() []string        { return f.names }
func (f stringFlag) Names() []string      { return f.names }
func (f intFlag) Names() []string         { return f.names }
func (f int64Flag) Names() []string       { return f.names }
func (f durationFlag) Names() []string    { return f.names }
func (f genericFlag) Names() []string     { return f.names }
func (f stringSliceFlag) Names() []string { return f.names }

// withNames returns flags with their names computed once. A flag of a type
// it does not know keeps urfave/cli's Names.
func withNames(flags []cli.Flag) []cli.Flag {
	out := make([]cli.Flag, len(flags))
	for i, f := range flags {
		out[i] = f
		if f == cli.HelpFlag {
			continue
		}
		names := f.Names()
		switch f := f.(type) {
		case *cli.BoolFlag:
			out[i] = boolFlag{f, names}
		case *cli.StringFlag:
			out[i] = stringFlag{f, names}
		case *cli.IntFlag:
			out[i] = intFlag{f, names}
		case *cli.Int64Flag:
			out[i] = int64Flag{f, names}
		case *cli.DurationFlag:
			out[i] = durationFlag{f, names}
		case *cli.GenericFlag:
			out[i] = genericFlag{f, names}
		case *cli.StringSliceFlag:
			out[i] = stringSliceFlag{f, names}
		case optionalValueFlag:
			f.names = names
			out[i] = f
		}
	}
	return out
}
