package commands

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/urfave/cli/v2"

	"trail/core"
	"trail/core/errs"
	"trail/store"
)

// DeleteOptions is trail delete after flag parsing.
type DeleteOptions struct {
	IO        *IOStreams
	Deps      *Deps
	Globals   globals
	Refs      []string
	OlderThan time.Duration
	All       bool
	Yes       bool
	DryRun    bool
	Force     bool
	Wait      time.Duration
}

func newDeleteCmd(d *Deps, runF func(context.Context, *DeleteOptions) error) *cli.Command {
	return &cli.Command{
		Name:      "delete",
		Usage:     "delete sessions (record, lock, log and payloads)",
		ArgsUsage: "ID... | --older-than DUR | --all",
		Description: "Asks for confirmation on a terminal; without one it refuses unless --yes.\n" +
			"Prints each deleted id on stdout.",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "older-than", Usage: "sessions not updated within `DUR` (36h, 7d, 2w)"},
			&cli.BoolFlag{Name: "all", Usage: "every session"},
			&cli.BoolFlag{Name: "yes", Aliases: []string{"y"}, Usage: "do not ask for confirmation"},
			&cli.BoolFlag{Name: "dry-run", Usage: "list what would be deleted, delete nothing"},
			&cli.BoolFlag{Name: "force", Usage: "ignore unknown ids"},
			waitFlag(0, "how long to wait for a session locked by a running step"),
		},
		Action: func(c *cli.Context) error {
			g, err := readGlobals(c, d)
			if err != nil {
				return err
			}
			o := &DeleteOptions{IO: d.IO, Deps: d, Globals: g, Refs: c.Args().Slice(), All: c.Bool("all"),
				Yes: c.Bool("yes"), DryRun: c.Bool("dry-run"), Force: c.Bool("force"), Wait: waitOf(c)}
			if s := c.String("older-than"); s != "" {
				if o.OlderThan, err = parseAge(s); err != nil {
					return &errs.UsageError{Msg: "--older-than", Err: err}
				}
				if o.OlderThan == 0 {
					return errs.Usagef("give a duration like 7d", "--older-than must be more than 0")
				}
			}
			selectors := 0
			for _, on := range []bool{len(o.Refs) > 0, o.All, o.OlderThan > 0} {
				if on {
					selectors++
				}
			}
			if selectors == 0 {
				return errs.Usagef("trail delete ID..., trail delete --older-than 30d, or trail delete --all", "nothing to delete given")
			}
			if selectors > 1 {
				return errs.Usagef("give ids, --older-than or --all, not several", "conflicting selections")
			}
			return runF(c.Context, o)
		},
	}
}

func runDelete(ctx context.Context, o *DeleteOptions) error {
	st := o.Deps.openStore(o.Globals.Home)
	ids, err := selectForDelete(st, o)
	if err != nil {
		return err
	}
	if len(ids) == 0 {
		fmt.Fprintln(o.IO.ErrOut, "trail: no sessions to delete")
		return nil
	}
	if o.DryRun {
		for _, id := range ids {
			fmt.Fprintf(o.IO.Out, "would delete %s\n", id)
		}
		return nil
	}
	if !o.Yes {
		if !o.IO.CanPrompt() {
			return errs.Usagef("pass --yes to delete without a terminal", "refusing to delete %s without confirmation", plural(len(ids), "session"))
		}
		answer, err := core.AskContext(ctx, &terminal{io: o.IO}, deleteQuestion(st, ids))
		if err != nil {
			return errs.Interrupted(err, "asking for confirmation; nothing was deleted")
		}
		if a := strings.ToLower(answer); a != "y" && a != "yes" {
			fmt.Fprintln(o.IO.ErrOut, "trail: nothing deleted")
			return nil
		}
	}
	var busy []string
	var failed error
	for _, id := range ids {
		if err := deleteOne(ctx, st, id, o.Wait); err != nil {
			// A signal ends the whole command: the sessions not reached
			// yet are kept, and what was deleted is already on stdout.
			if errors.Is(err, errs.ErrInterrupted) {
				return err
			}
			var b *store.BusyError
			if errors.As(err, &b) {
				busy = append(busy, id)
				linef(o.IO.ErrOut, "trail: %s; skipped\n", err)
				continue
			}
			if failed == nil {
				failed = err
			}
			msg := strings.TrimPrefix(err.Error(), "delete session "+id+": ") // the store's own prefix
			linef(o.IO.ErrOut, "trail: delete %s: %s\n", id, oneLine(msg))
			continue
		}
		fmt.Fprintln(o.IO.Out, id)
	}
	switch {
	case failed != nil:
		return &exitError{code: ExitCode(failed)} // a link or folder in the way is invalid data (7)
	case len(busy) > 0:
		return &exitError{code: ExitBusy}
	}
	return nil
}

// deleteOne removes a session under its lock, so a running step is never
// pulled out from under it.
func deleteOne(ctx context.Context, st *store.FS, id string, wait time.Duration) error {
	if ctx.Err() != nil {
		return errs.Interrupted(ctx.Err(), "deleting sessions")
	}
	l, err := st.Lock(ctx, id, wait)
	if err != nil {
		return errs.Interrupted(err, "waiting for session "+id)
	}
	defer l.Unlock()
	// Temp files a killed step's tools left in the project go first: once
	// the journal is deleted, nothing would find them again. A journal that
	// cannot be read is deleted all the same.
	_ = core.SweepToolTemps(st, id)
	return st.Delete(id)
}

// selectForDelete resolves the selection before anything is deleted: one
// unknown id stops the whole command (exit 3) unless --force.
func selectForDelete(st *store.FS, o *DeleteOptions) ([]string, error) {
	if len(o.Refs) > 0 {
		var ids []string
		seen := map[string]bool{}
		for _, ref := range o.Refs {
			id, err := core.ResolveSession(st, core.SessionRef{Ref: ref})
			var nf *errs.NotFoundError
			if errors.As(err, &nf) && nf.LogOnly != "" {
				id, err = nf.LogOnly, nil // what a killed first step left: the log is the session
			}
			if err != nil {
				if o.Force && core.IsNotFound(err) {
					continue
				}
				return nil, err
			}
			if !seen[id] {
				seen[id] = true
				ids = append(ids, id)
			}
		}
		return ids, nil
	}
	heads, err := st.ListHeads()
	if err != nil {
		return nil, err
	}
	sortHeads(heads)
	now := o.Deps.Now()
	var ids []string
	for _, h := range heads {
		if o.OlderThan > 0 {
			t, err := time.Parse(time.RFC3339Nano, h.UpdatedAt)
			if h.LogOnly && err == nil && now.Sub(t) < o.OlderThan {
				continue // its log is young (a first step running now): not one to delete
			}
			if h.Corrupt || err != nil {
				// Its age is unknown: say so rather than keep it quietly.
				why := "has no readable updatedAt"
				switch {
				case h.LogOnly:
					why = "has a log but no record"
				case h.Corrupt:
					why = "has a corrupt record"
				}
				linef(o.IO.ErrOut, "trail: warning: session %s %s; not deleted (delete it by id)\n", h.ID, why)
				continue
			}
			if now.Sub(t) < o.OlderThan {
				continue
			}
		}
		ids = append(ids, h.ID)
	}
	return ids, nil
}

func plural(n int, word string) string {
	if n == 1 {
		return "1 " + word
	}
	return fmt.Sprintf("%d %ss", n, word)
}

// deleteQuestion names what would go, so a "y" never deletes a session
// the person did not mean (a name that is now another session's, a
// --older-than that reaches further than thought): up to ten sessions,
// by short id and name or first prompt, and how many more.
func deleteQuestion(st *store.FS, ids []string) string {
	const shown = 10
	var b strings.Builder
	heads, _ := st.ListHeads()
	short := core.ShortIDs(heads)
	byID := make(map[string]store.Head, len(heads))
	for _, h := range heads {
		byID[h.ID] = h
	}
	for i, id := range ids {
		if i == shown {
			fmt.Fprintf(&b, "  and %s\n", plural(len(ids)-shown, "more session"))
			break
		}
		h := byID[id]
		label := cmp.Or(h.Name, h.Title, h.FirstPrompt)
		fmt.Fprintf(&b, "  %s  %s\n", cmp.Or(short[id], id), cutEnd(safeLine(oneLine(label)), 60))
	}
	fmt.Fprintf(&b, "Delete %s? [y/N] ", plural(len(ids), "session"))
	return b.String()
}
