package commands

import (
	"github.com/urfave/cli/v2"

	"trail/core/errs"
	"trail/core/provider"
	"trail/core/provider/cassette"
	"trail/store"
)

// cassetteFlags are the cassette provider's options, on run, resume and
// compact.
func cassetteFlags() []cli.Flag {
	return []cli.Flag{
		&cli.StringFlag{Name: "cassette", Usage: "the recording the cassette provider plays: a `LOG` file or a session (env TRAIL_CASSETTE: a path)"},
		&cli.StringFlag{Name: "cassette-mode", Usage: "`MODE`: strict (a request unlike the recorded one is exit 6; default) or lenient (answer in order)"},
		&cli.StringFlag{Name: "cassette-speed", Usage: "`SPEED`: full (default) or recorded (the recorded gaps between stream events)"},
	}
}

// readCassetteFlags puts the cassette options in f. --cassette names a log
// the way replay's argument does (a path, or a session of this home: id,
// prefix, name), made absolute so that a resume from elsewhere finds it.
// --cassette alone chooses the cassette provider. With no model named, the cassette's session takes the model of the
// recording's first request: the context window and prices are then the
// recorded ones.
func readCassetteFlags(c *cli.Context, d *Deps, home, cwd string, f *provider.Flags) error {
	f.CassetteMode, f.CassetteSpeed = c.String("cassette-mode"), c.String("cassette-speed")
	if arg := c.String("cassette"); arg != "" {
		t, err := resolveLog(d.openStore(home), arg)
		if err != nil {
			return err
		}
		f.Cassette = absFrom(cwd, t.Path)
		switch f.Name {
		case "": // a cassette names its provider
			f.Name = provider.Cassette
		case provider.Cassette:
		default:
			return errs.Usagef("leave out --provider, or pass --provider cassette", "--cassette plays a recording; it does not go with --provider %s", store.QuoteInput(f.Name))
		}
	}
	name := f.Name
	if name == "" {
		name = d.Env("TRAIL_PROVIDER")
	}
	if name != provider.Cassette || f.Model != "" || d.Env("TRAIL_MODEL") != "" {
		return nil
	}
	path := f.Cassette
	if path == "" {
		path = absFrom(cwd, d.Env("TRAIL_CASSETTE"))
	}
	if path != "" {
		f.Model = cassette.FirstModel(path)
	}
	return nil
}
