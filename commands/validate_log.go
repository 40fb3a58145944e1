package commands

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/urfave/cli/v2"

	"trail/core/errs"
	"trail/logfmt"
	"trail/store"
)

// ValidateLogOptions is trail validate-log after flag parsing.
type ValidateLogOptions struct {
	IO      *IOStreams
	Deps    *Deps
	Globals globals
	Args    []string
	Format  string
	Strict  bool
}

// Report formats of validate-log.
const (
	vfText   = "text"
	vfJSON   = "json"
	vfGitHub = "github"
	vfJUnit  = "junit"
)

func newValidateLogCmd(d *Deps, runF func(context.Context, *ValidateLogOptions) error) *cli.Command {
	return &cli.Command{
		Name:      "validate-log",
		Usage:     "check session logs' integrity (for CI)",
		ArgsUsage: "LOGFILE|ID|- ...",
		Description: "Checks each log in one streaming pass: every line a JSON object with a valid envelope,\n" +
			"one session, seq without gaps, every provider request and tool call answered, every\n" +
			"external payload present and intact, every request digest (messagesSha256) matching\n" +
			"the history the log rebuilds (LOG_REQUEST_DIGEST_MISMATCH). Arguments are log files, folders of logs, globs\n" +
			"(expanded here too, for shells that pass them quoted), session ids, or - for stdin\n" +
			"(whose payload paths are then taken from the current directory).\n" +
			"Warnings (errors under --strict): LOG_TRUNCATED_TAIL, LOG_TIMESTAMP_REGRESSION,\n" +
			"HISTORY_INDEX_MISMATCH, LOG_COMPACTION_SUMMARY_MISSING (a compaction whose new list the\n" +
			"log does not hold, as Robota logs them: the context cannot be rebuilt past it).\n" +
			"Exit 0 when no log has errors, 7 when any has, 3 when a file does not exist\n" +
			"(the others are still checked and reported).\n\n" +
			"   trail validate-log logs/*.jsonl --format github",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "format", Aliases: []string{"f"}, Value: vfText, Usage: "text, json, github (workflow commands) or junit (XML)"},
			&cli.BoolFlag{Name: "strict", Usage: "count warnings as errors"},
		},
		Action: func(c *cli.Context) error {
			g, err := readGlobals(c, d)
			if err != nil {
				return err
			}
			o := &ValidateLogOptions{IO: d.IO, Deps: d, Globals: g, Args: c.Args().Slice(),
				Format: c.String("format"), Strict: c.Bool("strict")}
			switch o.Format {
			case vfText, vfJSON, vfGitHub, vfJUnit:
			default:
				return errs.Usagef("use text, json, github or junit", "unknown format %s", store.QuoteInput(o.Format))
			}
			if len(o.Args) == 0 {
				return errs.Usagef("trail validate-log logs/*.jsonl, or a session id, or - for stdin", "no log given")
			}
			return runF(c.Context, o)
		},
	}
}

// logResult is one log's outcome.
type logResult struct {
	Name    string
	Stdin   bool           // read from standard input: no file to name
	Report  *logfmt.Report // nil when the log could not be read
	Missing bool           // the file does not exist
	Err     error          // why it could not be read
}

func runValidateLog(ctx context.Context, o *ValidateLogOptions) error {
	st := o.Deps.openStore(o.Globals.Home)
	targets, err := expandLogArgs(st, o.Args)
	if err != nil {
		return err
	}
	markLive(targets)
	cwd, _ := o.Deps.Getwd()
	results := make([]logResult, 0, len(targets))
	for _, t := range targets {
		res := validateOne(ctx, o, t, cwd)
		if res.Missing && t.listed {
			// A log a folder or a pattern listed, deleted before it was
			// read (trail delete beside a CI check): not one it was asked
			// for by name, and nothing is wrong with the rest.
			linef(o.IO.ErrOut, "trail: note: %s was deleted while validate-log ran; skipped\n", t.name)
			continue
		}
		// A report of the logs checked so far would pass for the whole
		// run's: an interrupted run writes none.
		if ctx.Err() != nil {
			return errs.Interrupted(ctx.Err(), "validating "+t.name+"; no report written")
		}
		results = append(results, res)
	}
	if o.Strict {
		for _, r := range results {
			if r.Report != nil {
				promoteWarnings(r.Report)
			}
		}
	}
	if err := writeValidation(o, results); err != nil {
		return err
	}
	return &exitError{code: validationExit(results)}
}

// validationExit: a missing file first (the run did not check what it was
// asked to), then an unreadable one, then errors in a log.
func validationExit(results []logResult) int {
	code := ExitOK
	for _, r := range results {
		switch {
		case r.Missing:
			return ExitNotFound
		case r.Err != nil:
			code = ExitFailure
		case r.Report.Errors > 0 && code == ExitOK:
			code = ExitInvalidData
		}
	}
	return code
}

// target is one log to validate: a path, stdin, or a name that resolved
// to nothing.
type target struct {
	name    string
	path    string
	stdin   bool
	missing error
	listed  bool   // found by a folder or a pattern, not named
	live    bool   // a running step of the home writes it now
	home    string // the home whose logs/ holds it, "" when none does
	id      string // its session's id there
}

// markLive flags the targets that are the logs of sessions a step holds
// now: what that step has asked and not yet been answered is under way,
// not missing (logfmt.ValidateOptions.Live). A log is found by its real
// path, so a link to it or a home named another way counts, as does the
// home of any log (<home>/logs/<id>.jsonl beside <home>/sessions/).
func markLive(targets []target) {
	running := map[string]map[string]bool{} // by home
	for i := range targets {
		if targets[i].path == "" {
			continue
		}
		abs, err := filepath.Abs(targets[i].path)
		if err != nil {
			continue
		}
		real, err := filepath.EvalSymlinks(abs)
		if err != nil {
			continue
		}
		logs, base := filepath.Split(real)
		logs = filepath.Clean(logs)
		id, ok := strings.CutSuffix(base, ".jsonl")
		if !ok || filepath.Base(logs) != "logs" {
			continue
		}
		home := filepath.Dir(logs)
		ids, seen := running[home]
		if !seen {
			ids, _ = store.New(home).RunningIDs()
			running[home] = ids
		}
		targets[i].live, targets[i].home, targets[i].id = ids[id], home, id
	}
}

// validateLogFile validates one log file. A step may take its session's
// lock after markLive read the lock table, and write the log while it is
// read: what that step has asked and not yet seen answered then reads as
// missing, and a CI job checking logs/ beside a running agent failed now
// and then. A home's log that shows errors is looked at again: if its step
// runs now, or the log grew while it was read, it is validated again (as
// live when its step runs), at most twice more.
func validateLogFile(ctx context.Context, t target) (*logfmt.Report, error) {
	for try := 0; ; try++ {
		before := fileSize(t.path)
		rep, err := logfmt.ValidateFileContext(ctx, t.path, logfmt.ValidateOptions{Live: t.live})
		if err != nil || rep.Errors == 0 || t.home == "" || try == 2 {
			return rep, err
		}
		st := store.New(t.home)
		ids, _ := st.RunningIDs()
		live := ids[t.id] || st.LockHeld(t.id) // a holder the table hides (store.FS.LockHeld)
		if live == t.live && fileSize(t.path) == before {
			return rep, err // as it was, and nothing changed since
		}
		t.live = live
	}
}

func fileSize(path string) int64 {
	fi, err := os.Stat(path)
	if err != nil {
		return -1
	}
	return fi.Size()
}

// expandLogArgs turns arguments into logs: globs and folders are expanded,
// ids resolved. A name that matches nothing becomes a missing target, so
// the other logs are still checked.
func expandLogArgs(st *store.FS, args []string) ([]target, error) {
	var out []target
	for _, arg := range args {
		switch {
		case strings.TrimSpace(arg) == "":
			return nil, errs.Usagef("give a log file, a folder of logs, or a session", "an empty argument (an unset variable?)")
		case arg == "-":
			out = append(out, target{name: "<stdin>", stdin: true})
		case strings.ContainsAny(arg, "*?["):
			matches, err := filepath.Glob(arg)
			if err != nil {
				return nil, errs.Usagef("quote the pattern, or escape [ as \\[", "bad pattern %s: %v", store.QuoteInput(arg), err)
			}
			if len(matches) == 0 {
				out = append(out, target{name: arg, missing: fmt.Errorf("no file matches %s", store.QuoteInput(arg))})
			}
			for _, m := range matches {
				out = append(out, target{name: m, path: m, listed: true})
			}
		default:
			if fi, err := os.Stat(arg); err == nil && fi.IsDir() {
				logs, err := filepath.Glob(filepath.Join(arg, "*.jsonl"))
				if err != nil {
					return nil, err
				}
				sort.Strings(logs)
				if len(logs) == 0 {
					out = append(out, target{name: arg, missing: fmt.Errorf("no .jsonl log in %s", arg)})
				}
				for _, m := range logs {
					out = append(out, target{name: m, path: m, listed: true})
				}
				continue
			}
			t, err := resolveLog(st, arg)
			var nf *errs.NotFoundError
			var amb *errs.AmbiguousError
			switch {
			case errors.As(err, &nf), errors.As(err, &amb):
				out = append(out, target{name: arg, missing: err})
			case err != nil:
				return nil, err
			default:
				out = append(out, target{name: displayPath(arg, t), path: t.Path})
			}
		}
	}
	return out, nil
}

// displayPath names a log in reports the way the user named it, or by its
// path when they gave an id.
func displayPath(arg string, t logTarget) string {
	if t.ID == "" {
		return arg
	}
	return t.Path
}

func validateOne(ctx context.Context, o *ValidateLogOptions, t target, cwd string) logResult {
	res := logResult{Name: t.name, Stdin: t.stdin}
	switch {
	case t.missing != nil:
		res.Missing, res.Err = true, t.missing
	case t.stdin:
		res.Report, res.Err = logfmt.ValidateContext(ctx, o.IO.In, logfmt.ValidateOptions{Dir: cwd})
	default:
		res.Report, res.Err = validateLogFile(ctx, t)
		if errors.Is(res.Err, fs.ErrNotExist) {
			res.Missing, res.Err = true, logNotFound(t.path)
		}
	}
	if res.Err != nil && res.Report != nil {
		res.Report = nil
	}
	return res
}

// promoteWarnings makes every warning an error (--strict).
func promoteWarnings(r *logfmt.Report) {
	for i := range r.Issues {
		r.Issues[i].Severity = logfmt.SeverityError
	}
	r.Errors += r.Warnings
	r.Warnings = 0
}

// writeValidation writes the report in its format. With -q, in every
// format, only errors are written: no warnings, no summary of a log, no
// log without errors (JUnit keeps every test case: a suite that lost its
// passing cases would count wrong).
func writeValidation(o *ValidateLogOptions, results []logResult) error {
	quiet := o.Globals.Quiet
	if quiet {
		results = onlyErrors(results)
	}
	switch o.Format {
	case vfJSON:
		if quiet {
			results = slices.DeleteFunc(results, func(r logResult) bool { return r.Report != nil && r.Report.Errors == 0 })
		}
		return writeValidationJSON(o.IO.Out, results)
	case vfGitHub:
		writeValidationGitHub(o.IO.Out, o.IO.ErrOut, results, quiet, o.Deps.Env("GITHUB_WORKSPACE"))
	case vfJUnit:
		return writeValidationJUnit(o.IO.Out, results)
	default:
		writeValidationText(o.IO.Out, o.IO.ErrOut, results, quiet)
	}
	return nil
}

// onlyErrors keeps each report's errors (its counts stay whole).
func onlyErrors(results []logResult) []logResult {
	out := make([]logResult, 0, len(results))
	for _, r := range results {
		if r.Report != nil {
			rep := *r.Report
			rep.Issues = nil
			for _, is := range r.Report.Issues {
				if is.Severity == logfmt.SeverityError {
					rep.Issues = append(rep.Issues, is)
				}
			}
			r.Report = &rep
		}
		out = append(out, r)
	}
	return out
}
