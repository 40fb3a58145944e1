package commands

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/google/uuid"
	"github.com/urfave/cli/v2"

	"trail/core/errs"
	"trail/store"
)

// MigrateHistoryOptions is trail migrate-history after flag parsing.
type MigrateHistoryOptions struct {
	IO      *IOStreams
	Deps    *Deps
	Globals globals
	Dir     string
	DryRun  bool
	Backup  bool
	Wait    time.Duration
}

func newMigrateHistoryCmd(d *Deps, runF func(context.Context, *MigrateHistoryOptions) error) *cli.Command {
	return &cli.Command{
		Name:  "migrate-history",
		Usage: "backfill the history field of old session records",
		Description: "For each record whose history is missing or empty and whose messages are not,\n" +
			"fills history with one chat entry per message. Each record is rewritten atomically\n" +
			"under its session lock; only history changes (every other field, byte and key order\n" +
			"stays); running it again changes nothing.\n" +
			"Prints Migrated: M, Skipped: S, Failed: F, Total: T; names each failed file on stderr;\n" +
			"exit 7 when any failed (a record that does not parse is never rewritten).",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "dir", Usage: "records folder `DIR` (default: the sessions folder of --home)"},
			&cli.BoolFlag{Name: "dry-run", Usage: "count what would change, write nothing"},
			&cli.BoolFlag{Name: "backup", Usage: "keep each original as <id>.json.bak"},
			&cli.DurationFlag{Name: "wait", Value: 30 * time.Second, Usage: "how long to wait for a session locked by a running step"},
		},
		Action: func(c *cli.Context) error {
			if err := noArgs(c); err != nil {
				return err
			}
			g, err := readGlobals(c, d)
			if err != nil {
				return err
			}
			o := &MigrateHistoryOptions{IO: d.IO, Deps: d, Globals: g, Dir: c.String("dir"),
				DryRun: c.Bool("dry-run"), Backup: c.Bool("backup"), Wait: c.Duration("wait")}
			if o.Dir != "" {
				if o.Dir, err = filepath.Abs(o.Dir); err != nil {
					return err
				}
				if fi, err := os.Stat(o.Dir); err != nil || !fi.IsDir() {
					return &errs.NotFoundError{What: "folder " + store.QuoteInput(o.Dir) + " not found", Fix: "--dir names a folder of session records"}
				}
			}
			if o.DryRun && o.Backup {
				return errs.Usagef("a dry run writes nothing; drop --backup", "--dry-run and --backup both given")
			}
			return runF(c.Context, o)
		},
	}
}

func runMigrateHistory(ctx context.Context, o *MigrateHistoryOptions) error {
	st := o.Deps.openStore(o.Globals.Home)
	rep, err := st.MigrateHistory(store.MigrateOptions{
		Dir: o.Dir, DryRun: o.DryRun, Backup: o.Backup, Wait: o.Wait, Ctx: ctx,
		NewID: func() string {
			if id, err := o.Deps.NewID(); err == nil {
				return id
			}
			return uuid.NewString()
		},
	})
	// A signal stops the walk between records: what was done is reported.
	interrupted := errors.Is(err, context.Canceled)
	if err != nil && !interrupted {
		return err
	}
	for _, f := range rep.Failures {
		msg := oneLine(f.Err.Error())
		if !strings.Contains(msg, f.Path) {
			msg = "migrate " + f.Path + ": " + msg
		}
		fmt.Fprintf(o.IO.ErrOut, "trail: %s\n", msg)
	}
	fmt.Fprintf(o.IO.Out, "Migrated: %d, Skipped: %d, Failed: %d, Total: %d\n", rep.Migrated, rep.Skipped, rep.Failed, rep.Total)
	if o.DryRun {
		fmt.Fprintln(o.IO.ErrOut, "trail: dry run: nothing was written")
	}
	if interrupted {
		return errs.Interrupted(err, "migrating records; the records counted above are done, the rest untouched")
	}
	if rep.Failed > 0 {
		return &exitError{code: ExitInvalidData}
	}
	return nil
}
