package commands

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"github.com/urfave/cli/v2"

	"trail/core"
	"trail/core/errs"
	"trail/core/provider"
	"trail/logfmt"
	"trail/store"
)

// CompactOptions is trail compact after flag parsing.
type CompactOptions struct {
	IO      *IOStreams
	Deps    *Deps
	Globals globals
	Output  string
	Compact core.CompactOptions
}

func newCompactCmd(d *Deps, runF func(context.Context, *CompactOptions) error) *cli.Command {
	return &cli.Command{
		Name:      "compact",
		Usage:     "summarise a session's conversation to shrink its context",
		ArgsUsage: "[ID]",
		Description: "Replaces the conversation with [system prompt, \"[Context Summary]\" + a summary]\n" +
			"written by the provider, plus the last --keep-last messages. The log keeps everything.\n" +
			"Prints the summary.",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "instructions", Usage: "what the summary should focus on"},
			&cli.IntFlag{Name: "keep-last", Usage: "keep the last `N` messages after the summary (a tool call is never split from its results)"},
			&cli.StringFlag{Name: "output-format", Aliases: []string{"o"}, Value: outText, Usage: "text (the summary) or json"},
			&cli.BoolFlag{Name: "last", Usage: "the most recently updated session of this directory"},
			&cli.BoolFlag{Name: "any-dir", Usage: "with --last: of any directory"},
			&cli.StringFlag{Name: "provider", Usage: "anthropic, openai, echo, script or cassette (default: the session's)"},
			&cli.StringFlag{Name: "model", Aliases: []string{"m"}, Usage: "model id (default: the session's)"},
			&cli.StringFlag{Name: "base-url", Usage: "provider endpoint `URL`"},
			&cli.StringFlag{Name: "script", Usage: "responses `FILE` for the script provider"},
			&cli.StringFlag{Name: "timeout", Value: "120s", Usage: "provider idle timeout: a duration (90s, 2m) or seconds (`T`)"},
			&cli.IntFlag{Name: "max-retries", Value: 4, Usage: "retries of a failed provider call"},
			&cli.Int64Flag{Name: "context-window", Usage: "the model's context window in `TOKENS`"},
			&cli.BoolFlag{Name: "no-log", Usage: "do not write the JSONL log"},
			&cli.StringFlag{Name: "log-requests", Usage: "how the log records each request: `MODE` digest (the default: digests, the history proves the rest) or full (every message and tool again)"},
			waitFlag(30*time.Second, "how long to wait for a session locked by another step"),
			cassetteFlags()[0], cassetteFlags()[1], cassetteFlags()[2],
		},
		Action: func(c *cli.Context) error {
			g, err := readGlobals(c, d)
			if err != nil {
				return err
			}
			cwd, err := d.Getwd()
			if err != nil {
				return cwdError(err)
			}
			o := &CompactOptions{IO: d.IO, Deps: d, Globals: g, Output: c.String("output-format")}
			if o.Output != outText && o.Output != outJSON {
				return errs.Usagef("use text or json", "unknown output format %s", store.QuoteInput(o.Output))
			}
			ref := core.SessionRef{Cwd: cwd, Last: c.Bool("last"), AnyDir: c.Bool("any-dir")}
			args := c.Args().Slice()
			switch {
			case ref.AnyDir && !ref.Last:
				return errs.Usagef("use --last --any-dir", "--any-dir needs --last")
			case ref.Last && len(args) > 0, len(args) > 1:
				return errs.Usagef("trail compact ID, or trail compact --last", "unexpected argument %s", store.QuoteInput(args[len(args)-1]))
			case !ref.Last && len(args) == 0:
				return errs.Usagef("trail compact ID, or trail compact --last", "no session given")
			case !ref.Last:
				ref.Ref = args[0]
			}
			if _, err := timeoutFlag(c); err != nil {
				return err
			}
			script := c.String("script")
			step := core.StepOptions{
				Ref: ref,
				Provider: provider.Flags{Name: c.String("provider"), Model: c.String("model"),
					BaseURL: c.String("base-url"), Script: absFrom(cwd, script)},
				Timeout:    flagTimeout(c),
				MaxRetries: c.Int("max-retries"),
				NoLog:      c.Bool("no-log"),
				Wait:       waitOf(c),
				Cwd:        cwd,
			}
			if err := readCassetteFlags(c, d, g.Home, cwd, &step.Provider); err != nil {
				return err
			}
			if err := contextOptions(c, &step); err != nil {
				return err
			}
			if err := logRequestsOption(c, &step); err != nil {
				return err
			}
			o.Compact = core.CompactOptions{Step: step, Instructions: c.String("instructions"), KeepLast: c.Int("keep-last")}
			return runF(c.Context, o)
		},
	}
}

func runCompact(ctx context.Context, o *CompactOptions) error {
	settings, err := loadSettings(o.Deps, o.Globals, o.Compact.Step.Cwd)
	if err != nil {
		return err
	}
	o.Compact.Step.Settings = settings
	warnSettings(o.IO, settings)
	o.Compact.Step.Observer = core.ObserverFunc(func(e core.StepEvent) {
		switch e.Kind {
		case core.EvWarning, core.EvNotice:
			linef(o.IO.ErrOut, "trail: %s\n", e.Text)
		case core.EvRetry:
			if !o.Globals.Quiet {
				fmt.Fprintln(o.IO.ErrOut, retryLine(e))
			}
		}
	})
	res, err := newEngine(o.Deps, o.Deps.openStore(o.Globals.Home)).Compact(ctx, o.Compact)
	nothing := errors.Is(err, core.ErrNothingToCompact)
	if nothing {
		fmt.Fprintln(o.IO.ErrOut, "trail: nothing to compact: the conversation has no message a summary would replace")
	}
	if o.Output == outJSON && (res != nil || err != nil) {
		b, merr := compactObject(res, err)
		if merr != nil {
			return merr
		}
		fmt.Fprintf(o.IO.Out, "%s\n", b)
	}
	switch {
	case nothing:
		return nil
	case err != nil:
		return err
	case o.Output == outJSON:
		return nil
	}
	summary := res.Summary
	if !strings.HasSuffix(summary, "\n") {
		summary += "\n"
	}
	if o.IO.IsStdoutTTY() {
		summary = safeText(summary) // a model's answer, as run's is shown
	}
	fmt.Fprint(o.IO.Out, summary)
	return nil
}

// absFrom makes a path given on the command line absolute against cwd.
func absFrom(cwd, p string) string {
	if p == "" || filepath.IsAbs(p) {
		return p
	}
	return filepath.Join(cwd, p)
}

// compactObject is compact's one JSON object, whatever happened: compacted
// says which, and error why not (the stderr line and exit code too). res
// is nil when it never began (no such session, busy, a refused option):
// nothing is known but why.
func compactObject(res *core.CompactResult, err error) ([]byte, error) {
	began := res != nil
	if !began {
		res = &core.CompactResult{}
	}
	fields := logfmt.Object{
		logfmt.F("session_id", nullIfEmpty(res.SessionID)),
		logfmt.F("compacted", err == nil),
		logfmt.F("summary", nil),
		logfmt.F("before", res.Before),
		logfmt.F("after", res.After),
	}
	if !began {
		fields[3], fields[4] = logfmt.F("before", nil), logfmt.F("after", nil)
	}
	if err == nil {
		fields[2] = logfmt.F("summary", res.Summary)
	} else if !errors.Is(err, core.ErrNothingToCompact) {
		fields = append(fields, logfmt.F("error", oneLine(err.Error())))
	}
	return logfmt.Marshal(fields)
}
