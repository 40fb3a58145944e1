package commands

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
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
			waitFlag(30*time.Second, "how long to wait for a session locked by a running step"),
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
				DryRun: c.Bool("dry-run"), Backup: c.Bool("backup"), Wait: waitOf(c)}
			if err := checkMigrateDir(o, c.IsSet("dir")); err != nil {
				return err
			}
			if o.DryRun && o.Backup {
				return errs.Usagef("a dry run writes nothing; drop --backup", "--dry-run and --backup both given")
			}
			return runF(c.Context, o)
		},
	}
}

// checkMigrateDir makes --dir absolute and refuses what cannot be a folder
// of records: an empty value (a script's unset variable must not mean the
// default folder), and a path that is not a folder (usage, exit 2), apart
// from one that does not exist (not found, exit 3).
func checkMigrateDir(o *MigrateHistoryOptions, given bool) error {
	const fix = "--dir names a folder of session records (the sessions folder of a trail home)"
	if !given {
		return nil
	}
	if strings.TrimSpace(o.Dir) == "" {
		return errs.Usagef("name a folder of session records, or leave --dir out for the sessions folder of the home", "--dir is empty")
	}
	var err error
	if o.Dir, err = filepath.Abs(o.Dir); err != nil {
		return err
	}
	fi, err := os.Stat(o.Dir)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return &errs.NotFoundError{What: "folder " + store.QuoteInput(o.Dir) + " not found", Fix: fix}
	case err != nil:
		return fmt.Errorf("migrate history: %w", err)
	case !fi.IsDir():
		return errs.Usagef(fix, "--dir %s is not a folder", store.QuoteInput(o.Dir))
	}
	return nil
}

// trailHome reports whether dir looks like a trail home rather than its
// records folder: it has a sessions folder and no record of its own (a
// home's settings.json is not one). Its sessions are not migrated in its
// place: migrate-history rewrites records, and a folder that merely holds
// a sessions folder may be no home at all, so the user is told the path
// and runs the command again on it.
func trailHome(dir string) (sessions string, ok bool) {
	sessions = filepath.Join(dir, "sessions")
	if fi, err := os.Stat(sessions); err != nil || !fi.IsDir() {
		return "", false
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return "", false
	}
	for _, e := range entries {
		if name := e.Name(); strings.HasSuffix(name, ".json") && name != "settings.json" {
			return "", false
		}
	}
	return sessions, true
}

func runMigrateHistory(ctx context.Context, o *MigrateHistoryOptions) error {
	if o.Dir != "" {
		if sessions, ok := trailHome(o.Dir); ok {
			fmt.Fprintln(o.IO.Out, "Migrated: 0, Skipped: 0, Failed: 0, Total: 0")
			linef(o.IO.ErrOut, "trail: warning: %s holds no session records; it looks like a trail home, whose records are in its sessions folder\nhint: trail migrate-history --dir %s\n",
				store.QuoteInput(o.Dir), safeLine(shellQuote(sessions)))
			return nil
		}
	}
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
		if !strings.Contains(msg, oneLine(f.Path)) {
			msg = "migrate " + f.Path + ": " + msg
		}
		linef(o.IO.ErrOut, "trail: %s\n", msg)
	}
	fmt.Fprintf(o.IO.Out, "Migrated: %d, Skipped: %d, Failed: %d, Total: %d\n", rep.Migrated, rep.Skipped, rep.Failed, rep.Total)
	if o.DryRun {
		fmt.Fprintln(o.IO.ErrOut, "trail: dry run: nothing was written")
	}
	if interrupted {
		return errs.Interrupted(err, "migrating records; the records counted above are done, the rest untouched")
	}
	if rep.Failed > 0 && rep.Failed == rep.Busy {
		// Only running steps stood in the way: "try again", not "broken".
		return &exitError{code: ExitBusy, msg: plural(rep.Busy, "session") + " busy with a running step; run migrate-history again when it ends"}
	}
	if rep.Failed > 0 {
		return &exitError{code: ExitInvalidData}
	}
	return nil
}
