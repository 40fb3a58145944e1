package commands

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/urfave/cli/v2"

	"trail/core/errs"
	"trail/core/settings"
	"trail/store"
)

// Main runs trail with args (os.Args) and returns the exit code.
func Main(ctx context.Context, args []string, d *Deps) int {
	// The fast path: scripts call --version to probe for trail.
	if len(args) == 2 && args[1] == "--version" {
		fmt.Fprintln(d.IO.Out, "trail "+VersionString())
		return finish(d, nil)
	}
	if len(args) == 1 && !d.IO.IsStdinTTY() {
		// Piped into a bare trail, the input is the prompt, as it is for
		// trail run: help on stdout with exit 0 would land in a script's
		// output file as if it were the answer.
		args = append(args, "run")
	}
	app := newApp(d, commandOf(args))
	// Completion scripts pass the words typed so far as they are.
	if len(args) >= 2 && args[1] == completeCmd {
		complete(app, d, args[2:])
		return ExitOK
	}
	given := joinOptionalValues(claudeArgs(app, args))
	args, warnings, err := reorderArgs(app, given)
	for _, w := range warnings {
		linef(d.IO.ErrOut, "trail: warning: %s\n", w)
	}
	if err == nil {
		// A reader gone away ends the command as an interrupt would: a
		// step saves what it has, and nobody is left to read the rest.
		cctx, cancel := context.WithCancel(ctx)
		d.IO.OnBrokenOut(cancel)
		err = app.RunContext(cctx, args)
		cancel()
	} else {
		args = given
	}
	if err != nil && d.IO.wroteNothing() {
		// as arranged, or as given: a dangling option (--home at the end)
		// is moved before the command's name
		if cmd := cmp.Or(jsonOutputAsked(app, args), jsonOutputAsked(app, given)); cmd != "" {
			writeUnbegunFailure(d, cmd, err)
		}
	}
	d.IO.FlushOut(ctx)
	return finish(d, err)
}

// finish reports err and gives the exit code. Output that never arrived
// fails a command that otherwise succeeded: a script must not take an
// answer lost on a full disk for an empty one.
func finish(d *Deps, err error) int {
	werr := d.IO.OutErr()
	if werr != nil && err == nil && errors.Is(werr, syscall.EPIPE) && d.IO.helpOnly() {
		werr = nil
	}
	if werr != nil && (ExitCode(err) == ExitOK || errors.Is(err, werr) || errors.Is(werr, syscall.EPIPE)) {
		// also for a command that returned the write's error as it came,
		// or one a reader gone away ended (not an interrupt)
		err = stdoutFailure(werr)
	}
	var ee *exitError
	if err != nil && !(errors.As(err, &ee) && ee.msg == "") {
		d.IO.EndQuestion()
		reportError(d.IO.ErrOut, err, d.Now())
	}
	return ExitCode(err)
}

// NewApp is the command-line app, for programs that describe it (the
// manual page's generator, scripts/man).
func NewApp(d *Deps) *cli.App { return newApp(d, "") }

// newApp builds the app with every command, or with only the command
// named only: a process runs one command, and building the others (some
// sixty flags each for run and resume, their help and examples) was a
// tenth of a one-shot's allocations.
func newApp(d *Deps, only string) *cli.App {
	markHelpOutput()
	if o, ok := d.IO.Out.(*outWriter); ok && d.IO.IsStdoutTTY() {
		o.helpWidth = d.IO.TerminalWidth(d.Env)
	}
	app := &cli.App{
		Name:                  "trail",
		Usage:                 "run AI-agent sessions from the shell",
		Description:           appDescription,
		Version:               VersionString(),
		HideVersion:           true,
		Writer:                d.IO.Out,
		ErrWriter:             d.IO.ErrOut,
		Reader:                d.IO.In,
		Flags:                 withNames(append(globalFlags(), cli.HelpFlag)),
		ExitErrHandler:        func(*cli.Context, error) {},
		OnUsageError:          onUsageError,
		CustomAppHelpTemplate: cli.AppHelpTemplate + "\n" + exitCodesHelp,
		Before: func(c *cli.Context) error {
			if c.Bool("no-color") {
				d.IO.SetNoColor()
			}
			return refuseEmptyValues(c, c.App.Flags)
		},
		Action: func(c *cli.Context) error {
			if c.Bool("version") {
				fmt.Fprintln(d.IO.Out, "trail "+VersionString())
				return nil
			}
			if c.Args().Len() > 0 {
				return errs.Usagef("see trail --help for the commands", "unknown command %s", store.QuoteInput(c.Args().First()))
			}
			return cli.ShowAppHelp(c)
		},
	}
	for _, cmd := range commandTable {
		if only != "" && cmd.name != only {
			continue
		}
		c := cmd.build(d)
		c.OnUsageError = onUsageError
		// no "help" or "h" subcommand: as a command's first argument each
		// is a session's name or a prompt's first word (trail resume h),
		// not a request for help; --help and trail help CMD remain
		c.HideHelpCommand = true
		c.CustomHelpTemplate = cli.CommandHelpTemplate + "\n" + exitCodesHelp
		withExamples(c)
		c.Flags = withNames(c.Flags)
		c.Before = func(c *cli.Context) error { return refuseEmptyValues(c, c.Command.Flags) }
		app.Commands = append(app.Commands, c)
	}
	if only == "" {
		app.Commands = append(app.Commands, newHelpCmd())
	}
	return app
}

// commandTable lists trail's commands in the order trail --help shows them.
// (Function literals that capture nothing: the table is static data, built
// at no start-up cost.)
var commandTable = [...]struct {
	name  string
	build func(*Deps) *cli.Command
}{
	{"run", func(d *Deps) *cli.Command { return newRunCmd(d, runRun) }},
	{"resume", func(d *Deps) *cli.Command { return newResumeCmd(d, runRun) }},
	{"compact", func(d *Deps) *cli.Command { return newCompactCmd(d, runCompact) }},
	{"list", func(d *Deps) *cli.Command { return newListCmd(d, runList) }},
	{"delete", func(d *Deps) *cli.Command { return newDeleteCmd(d, runDelete) }},
	{"replay", func(d *Deps) *cli.Command { return newReplayCmd(d, runReplay) }},
	{"validate-log", func(d *Deps) *cli.Command { return newValidateLogCmd(d, runValidateLog) }},
	{"migrate-history", func(d *Deps) *cli.Command { return newMigrateHistoryCmd(d, runMigrateHistory) }},
	{"import", func(d *Deps) *cli.Command { return newImportCmd(d, runImport) }},
	{"export", func(d *Deps) *cli.Command { return newExportCmd(d, runExport) }},
	{"config", func(d *Deps) *cli.Command { return newConfigCmd(d, runConfig) }},
	{"completion", newCompletionCmd},
}

// commandOf is the command args name in the first word after the global
// options, or "" when args name none (help, a bare prompt, -p, -c, a
// misspelt command: those need every command).
func commandOf(args []string) string {
	name, _ := commandAt(args)
	return name
}

// commandAt is commandOf with where the command's own arguments start in
// args: after its name, or after the global options when args name none.
func commandAt(args []string) (string, int) {
	globals := flagTable(globalFlags())
	i := 1
	for i < len(args) && isOption(args[i]) && args[i] != "--" && globals.knows(args[i]) {
		if globals.takesValue(args[i]) {
			i++
		}
		i++
	}
	if i < len(args) {
		for _, cmd := range commandTable {
			if cmd.name == args[i] {
				return cmd.name, i + 1
			}
		}
	}
	return "", i
}

func globalFlags() []cli.Flag {
	return []cli.Flag{
		&cli.StringFlag{Name: "home", Usage: "trail's folder (sessions, logs, settings; env TRAIL_HOME)", DefaultText: "~/.trail"},
		&cli.StringFlag{Name: "settings", Usage: "an extra settings `FILE`, or the settings as JSON ('{\"permissions\": ...}'), highest precedence"},
		&cli.BoolFlag{Name: "no-color", Usage: "no color on stderr (also NO_COLOR)"},
		&cli.BoolFlag{Name: "quiet", Aliases: []string{"q"}, Usage: "no progress on stderr"},
		&cli.BoolFlag{Name: "verbose", Aliases: []string{"v"}, Usage: "intermediate text and tool activity on stderr even when piped"},
		&cli.BoolFlag{Name: "version", Usage: "print the version"},
	}
}

// onUsageError turns flag parsing failures into exit 2 with a hint, instead
// of urfave/cli printing help on stdout.
func onUsageError(c *cli.Context, err error, _ bool) error {
	name := "trail"
	// At the top level urfave/cli names the root command after the app.
	if c != nil && c.Command != nil && c.Command.Name != "" && c.Command.Name != name {
		name = "trail " + c.Command.Name
	}
	return &errs.UsageError{Msg: flagError(err), Fix: "see " + name + " --help"}
}

// flagError rewords Go's flag package messages, which spell every option
// with one dash ("-nope"), the way users typed them ("--nope").
func flagError(err error) string {
	msg := err.Error()
	if rest, ok := strings.CutPrefix(msg, "flag provided but not defined: -"); ok {
		return "unknown option " + dashed(rest)
	}
	// A flag whose value may be left out (--thinking) is a "boolean" to Go.
	if rest, ok := strings.CutPrefix(msg, "invalid boolean value "); ok {
		msg = "invalid value " + strings.Replace(rest, " for -", " for flag -", 1)
	}
	if strings.HasPrefix(msg, "invalid value ") {
		if i := strings.Index(msg, " for flag -"); i >= 0 {
			rest := msg[i+len(" for flag -"):]
			name, why, _ := strings.Cut(rest, ": ")
			return msg[:i] + " for " + dashed(name) + ": " + why
		}
	}
	if rest, ok := strings.CutPrefix(msg, "flag needs an argument: -"); ok {
		return dashed(rest) + " needs a value"
	}
	return msg
}

func dashed(name string) string {
	if len(name) == 1 {
		return "-" + name
	}
	return "--" + name
}

// globals are the global options every command reads.
type globals struct {
	Home     string
	Settings string
	Quiet    bool
	Verbose  bool
}

func readGlobals(c *cli.Context, d *Deps) (globals, error) {
	g := globals{Home: c.String("home"), Settings: c.String("settings"), Quiet: c.Bool("quiet"), Verbose: c.Bool("verbose")}
	d.quiet = g.Quiet
	if g.Home == "" {
		var err error
		if g.Home, err = defaultHome(d); err != nil {
			return g, err
		}
	}
	// ~ as written where no shell expanded it ('~/x' in quotes, an env
	// file, a unit file): the user's home, not a folder named "~" here
	if strings.HasPrefix(g.Home, "~") && g.Home != "~" && !strings.HasPrefix(g.Home, "~/") {
		// ~user: another user's home, which trail does not look up; kept
		// as written it was a folder named "~root" here
		return g, errs.Usagef("give trail's home in full (a shell expands ~user, trail does not)", "trail's home %s starts with ~user", store.QuoteInput(g.Home))
	}
	if g.Home == "~" || strings.HasPrefix(g.Home, "~/") {
		user, err := d.UserHome()
		if err != nil || user == "" {
			// kept as written, it was a folder named "~" in the cwd, one
			// `rm -rf ~` away from the user's own
			return g, errs.Usagef("set HOME, or give trail's home in full", "trail's home %s starts with ~, and HOME is not set", store.QuoteInput(g.Home))
		}
		if _, err := os.Stat(user); errors.Is(err, fs.ErrNotExist) {
			d.homeMissing(user) // as for ~/.trail (defaultHome)
		}
		g.Home = tildeHome(d, g.Home)
	}
	abs, err := filepath.Abs(g.Home)
	if err != nil {
		return g, fmt.Errorf("resolve --home %s: %w", g.Home, err)
	}
	g.Home = abs
	// A home that is a file would fail later as "settings.json: not a
	// directory", pointing at the wrong thing.
	if fi, err := os.Stat(abs); err == nil && !fi.IsDir() {
		return g, errs.Usagef("point TRAIL_HOME (or --home) at a folder; trail makes it when it is missing", "trail's home %s is not a folder", store.QuoteInput(abs))
	}
	if g.Settings != "" && !settings.IsInline(g.Settings) {
		if g.Settings, err = filepath.Abs(g.Settings); err != nil {
			return g, err
		}
	}
	return g, nil
}

// defaultHome is trail's folder when --home is not given: TRAIL_HOME,
// else ~/.trail.
func defaultHome(d *Deps) (string, error) {
	if h := d.Env("TRAIL_HOME"); h != "" {
		return h, nil
	}
	home, err := d.UserHome()
	if err != nil || home == "" {
		// what needs no home (validate-log FILE, replay FILE) runs, and
		// list finds nothing; a step is refused (openStore)
		d.missingHome, d.noHome = unsetHome, errs.Usagef("set TRAIL_HOME or pass --home", "cannot find a home folder for trail: HOME is not set")
		return unsetHome, nil
	}
	if _, err := os.Stat(home); errors.Is(err, fs.ErrNotExist) {
		// A service account's HOME (/nonexistent, /var/empty/x): trail's
		// folders would be made from the root down, somewhere nobody
		// looks. The store refuses to make them (openStore).
		d.homeMissing(home)
	}
	return filepath.Join(home, ".trail"), nil
}

// homeMissing notes that the user's home folder does not exist.
func (d *Deps) homeMissing(home string) {
	d.missingHome = home
	d.noHome = errs.Usagef("set TRAIL_HOME or pass --home", "the home folder %s does not exist", store.QuoteInput(home))
}

// tildeHome expands a leading ~ or ~/ that no shell expanded: a path on
// a command line being completed, or a home written in quotes or a file.
func tildeHome(d *Deps, p string) string {
	if p != "~" && !strings.HasPrefix(p, "~/") {
		return p
	}
	user, err := d.UserHome()
	if err != nil || user == "" {
		return p
	}
	return filepath.Join(user, strings.TrimPrefix(p, "~"))
}

// cwdError is the failure to know the current folder: most often it was
// deleted under the shell (a CI step's temporary checkout, rm -rf of the
// folder one stands in).
func cwdError(err error) error {
	err = fmt.Errorf("current directory: %w", err)
	if errors.Is(err, fs.ErrNotExist) {
		return &errs.Hinted{Err: err, Fix: "the folder this shell stands in was deleted: cd to one that exists (a session keeps its own working folder)"}
	}
	return err
}

// loadSettings merges the settings files for cwd (SPEC 2).
func loadSettings(d *Deps, g globals, cwd string) (*settings.Settings, error) {
	userHome, _ := d.UserHome()
	claude := settings.ClaudeDir(userHome, d.Env("CLAUDE_CONFIG_DIR"))
	managed, err := settings.ManagedPaths()
	if err != nil {
		return nil, err
	}
	s, err := settings.Load(settings.Paths(claude, g.Home, cwd), settings.ProjectPaths(claude, g.Home, cwd), g.Settings, managed...)
	if err != nil {
		return nil, err
	}
	if err := s.ApplyClaudeCodeVars(d.Env); err != nil {
		return nil, err
	}
	return s, nil
}

// usageArgs reports extra or missing positional arguments.
func noArgs(c *cli.Context) error {
	if c.Args().Len() > 0 {
		return errs.Usagef("see trail "+c.Command.Name+" --help", "unexpected argument %s", store.QuoteInput(c.Args().First()))
	}
	return nil
}
