package commands

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/tidwall/gjson"
	"github.com/urfave/cli/v2"

	"trail/core"
	"trail/core/chat"
	"trail/core/errs"
	"trail/core/peer"
	"trail/logfmt"
	"trail/store"
)

// ImportOptions is trail import after flag parsing.
type ImportOptions struct {
	IO      *IOStreams
	Deps    *Deps
	Globals globals
	JSON    bool
	// Open opens the source (the file named, or standard input).
	Open   func() (io.ReadCloser, error)
	Import core.ImportOptions
}

func newImportCmd(d *Deps, runF func(context.Context, *ImportOptions) error) *cli.Command {
	return &cli.Command{
		Name:      "import",
		Usage:     "make a trail session of another agent's session file (Claude Code, Codex, Gemini CLI, pi)",
		ArgsUsage: "FILE|-",
		Description: "Reads a session file of Claude Code (~/.claude/projects/<dir>/<id>.jsonl), Codex\n" +
			"(~/.codex/sessions/…/rollout-*.jsonl), Gemini CLI (~/.gemini/tmp/<project>/chats/\n" +
			"session-*.jsonl) or pi (~/.pi/agent/sessions/…/*.jsonl), or standard input with -,\n" +
			"and stores it as a new session: a new id, a record and a log (replay and\n" +
			"validate-log --strict work on it), importedFrom in the record, the original ids in\n" +
			"each message's metadata. Entries with no equivalent are kept in the log as\n" +
			"import_skipped lines and counted on stderr. Prints the new session's id.\n" +
			"A file cut short, or not a session of these agents, is exit 7 naming the line.\n" +
			"   trail resume \"$(trail import session.jsonl)\" \"go on\"",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "from", Usage: "the file's agent: claude, codex, gemini or pi (default: told from the content)"},
			&cli.BoolFlag{Name: "dry-run", Usage: "print what would be created, write nothing"},
			&cli.StringFlag{Name: "name", Usage: "the new session's name"},
			&cli.StringFlag{Name: "cwd", Usage: "the session's working `DIR` (default: the one the file names, else the current one)"},
			&cli.BoolFlag{Name: "json", Usage: "print a JSON summary instead of the id"},
		},
		Action: func(c *cli.Context) error {
			g, err := readGlobals(c, d)
			if err != nil {
				return err
			}
			args := c.Args().Slice()
			if len(args) != 1 {
				return errs.Usagef("trail import FILE, or trail import - to read standard input", "give exactly one session file")
			}
			from := c.String("from")
			if from != "" && !slices.Contains(peer.Formats, from) {
				return errs.Usagef("use --from claude, codex, gemini or pi", "unknown --from %s", store.QuoteInput(from))
			}
			cwd, err := d.Getwd()
			if err != nil {
				return cwdError(err)
			}
			o := &ImportOptions{IO: d.IO, Deps: d, Globals: g, JSON: c.Bool("json"), Import: core.ImportOptions{
				Format: from, Name: c.String("name"), Cwd: cwd, DryRun: c.Bool("dry-run"), Wait: 30 * time.Second,
			}}
			if dir := c.String("cwd"); dir != "" {
				o.Import.ForceCwd = absFrom(cwd, dir)
			}
			if strings.TrimSpace(args[0]) == "" {
				// "$FILE" unset: not the current folder, nor a missing file
				return errs.Usagef("give the path of a session file, or - for standard input", "an empty argument (an unset variable?)")
			}
			if args[0] == "-" {
				if d.IO.IsStdinTTY() {
					return errs.Usagef("pipe the file in (trail import - < session.jsonl), or name it", "standard input is a terminal")
				}
				o.Import.SourcePath = "-"
				o.Open = func() (io.ReadCloser, error) { return io.NopCloser(d.IO.In), nil }
			} else {
				path := absFrom(cwd, args[0])
				o.Import.SourcePath = path
				o.Open = func() (io.ReadCloser, error) { return openSource(path) }
			}
			return runF(c.Context, o)
		},
	}
}

// openSource opens a session file to import: a missing file is not found
// (exit 3), a folder a usage error.
func openSource(path string) (io.ReadCloser, error) {
	fi, err := os.Stat(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, &errs.NotFoundError{What: "no such file: " + path, Fix: "give the path of a session file, or - for standard input"}
	}
	if err != nil {
		return nil, err
	}
	if fi.IsDir() {
		return nil, errs.Usagef("give one session file; Claude Code keeps them as <session id>.jsonl in the folder", "%s is a folder", path)
	}
	return os.Open(path)
}

func runImport(ctx context.Context, o *ImportOptions) error {
	settings, err := loadSettings(o.Deps, o.Globals, o.Import.Cwd)
	if err != nil {
		return err
	}
	o.Import.Settings = settings
	src, err := o.Open()
	if err != nil {
		return err
	}
	defer src.Close()
	o.Import.Source = src
	res, err := newEngine(o.Deps, o.Deps.openStore(o.Globals.Home)).Import(ctx, o.Import)
	if err != nil {
		return err
	}
	if !o.Globals.Quiet {
		fmt.Fprintln(o.IO.ErrOut, "trail: "+safeLine(importSummary(o, res))) // names from the file: escaped
		if len(res.Earlier) > 0 {
			// Each import is a new session: two copies would go their own
			// ways, and a resume by title or name would find both.
			advice := "resume it to go on with it"
			if len(res.Earlier) > 1 {
				advice = "resume one of them to go on with it"
			}
			if !o.Import.DryRun {
				advice += ", or trail delete ID to remove a copy"
			}
			linef(o.IO.ErrOut, "trail: note: this %s session was imported before (%s): %s\n",
				peer.AgentName(res.Conversation.Format), strings.Join(res.Earlier, ", "), advice)
		}
		if fi, err := os.Stat(res.Record.Cwd); o.Import.ForceCwd == "" && (err != nil || !fi.IsDir()) {
			linef(o.IO.ErrOut, "trail: the session's directory %s is not a folder here; its tools would fail there: import with --cwd DIR to name another\n", res.Record.Cwd)
		}
	}
	switch {
	case o.JSON:
		return writeImportJSON(o, res)
	case o.Import.DryRun:
		writeImportPreview(o.IO.Out, res)
		return nil
	}
	fmt.Fprintln(o.IO.Out, res.SessionID)
	return nil
}

// importSummary is the one line that says what the import did: from
// what, into which session, and what had no place in it.
func importSummary(o *ImportOptions, res *core.ImportResult) string {
	c := res.Conversation
	var b strings.Builder
	if o.Import.DryRun {
		b.WriteString("dry run, nothing written: would import ")
	} else {
		b.WriteString("imported ")
	}
	b.WriteString(peer.AgentName(c.Format) + " session")
	if c.SourceID != "" {
		b.WriteString(" " + c.SourceID)
	}
	if o.Import.SourcePath == "-" {
		b.WriteString(" from standard input")
	} else {
		b.WriteString(" from " + filepath.Base(o.Import.SourcePath))
	}
	if !o.Import.DryRun {
		b.WriteString(" as " + res.SessionID)
	}
	fmt.Fprintf(&b, ": %s", count(res.Imported, "message", "messages"))
	if res.Compactions > 0 {
		fmt.Fprintf(&b, " (%s, %d in the context after)", count(res.Compactions, "compaction", "compactions"), len(res.Messages))
	}
	types, counts := c.SkippedByType()
	if len(types) > 0 {
		parts := make([]string, len(types))
		for i, t := range types {
			parts[i] = fmt.Sprintf("%s %d", t, counts[t])
		}
		fmt.Fprintf(&b, ", %s skipped (%s)", count(len(c.Skipped), "entry", "entries"), strings.Join(parts, ", "))
	} else {
		b.WriteString(", no entry skipped")
	}
	if c.Added > 0 {
		fmt.Fprintf(&b, ", %s added for calls the file left unanswered", count(c.Added, "tool result", "tool results"))
	}
	return b.String()
}

// nonNil is ids as a JSON list, empty rather than null.
func nonNil(ids []string) []string {
	if ids == nil {
		return []string{}
	}
	return ids
}

func writeImportJSON(o *ImportOptions, res *core.ImportResult) error {
	c := res.Conversation
	types, counts := c.SkippedByType()
	skipped := make(logfmt.Object, len(types))
	for i, t := range types {
		skipped[i] = logfmt.F(t, counts[t])
	}
	var id any = res.SessionID
	if o.Import.DryRun {
		id = nil
	}
	b, err := logfmt.Marshal(logfmt.Object{
		logfmt.F("session_id", id),
		logfmt.F("dry_run", o.Import.DryRun),
		logfmt.F("format", c.Format),
		logfmt.F("source_session_id", c.SourceID),
		logfmt.F("path", o.Import.SourcePath),
		logfmt.F("cwd", res.Record.Cwd),
		logfmt.F("messages", res.Imported),
		logfmt.F("context_messages", len(res.Messages)),
		logfmt.F("compactions", res.Compactions),
		logfmt.F("entries", c.Entries),
		logfmt.F("skipped", len(c.Skipped)),
		logfmt.F("skipped_by_type", skipped),
		logfmt.F("added_results", c.Added),
		logfmt.F("imported_before", nonNil(res.Earlier)),
	})
	if err != nil {
		return err
	}
	fmt.Fprintf(o.IO.Out, "%s\n", b)
	return nil
}

// writeImportPreview shows what a dry run would create: the record's
// header, then every message, one line each, with the compactions where
// they would happen (the record keeps what the last one left).
func writeImportPreview(w io.Writer, res *core.ImportResult) {
	r := res.Record
	fmt.Fprintf(w, "cwd:       %s\n", r.Cwd)
	if r.Provider != nil {
		fmt.Fprintf(w, "provider:  %s %s\n", r.Provider.Name, r.Provider.Model)
	}
	fmt.Fprintf(w, "title:     %s\n", r.Title)
	fmt.Fprintf(w, "messages:  %d", res.Imported)
	if res.Compactions > 0 {
		fmt.Fprintf(w, " (%d in the context after the last compaction)", len(res.Messages))
	}
	fmt.Fprintln(w)
	n := 0
	for _, it := range res.Transcript {
		if it.Message == nil {
			fmt.Fprintf(w, "      ── %s\n", it.Note)
			continue
		}
		m := it.Message
		n++
		text := chat.FirstLine(m.Content, 70)
		for _, tc := range m.ToolCalls {
			text += " → " + tc.Name + " " + chat.FirstLine(tc.Arguments, 40)
		}
		if gjson.GetBytes(m.Metadata, "synthetic").Bool() {
			text = "(added by the agent) " + text
		}
		fmt.Fprintf(w, "%4d  %-9s  %s\n", n, m.Role, text)
	}
}

// count says n things: "1 entry", "2 entries".
func count(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}
