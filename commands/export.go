package commands

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/urfave/cli/v2"

	"trail/core"
	"trail/core/errs"
	"trail/core/peer"
	"trail/core/settings"
	"trail/store"
)

// ExportOptions is trail export after flag parsing.
type ExportOptions struct {
	IO      *IOStreams
	Deps    *Deps
	Globals globals
	Export  core.ExportOptions
	Output  string // a file to write; "" for standard output
	Install bool   // --to claude: into Claude Code's projects folder
	Force   bool   // replace a file --install finds there
}

func newExportCmd(d *Deps, runF func(context.Context, *ExportOptions) error) *cli.Command {
	return &cli.Command{
		Name:      "export",
		Usage:     "write a session as Claude Code's transcript or as Markdown",
		ArgsUsage: "ID --to claude|markdown | --last",
		Description: "--to claude writes the session's messages as a Claude Code transcript (JSONL), so that\n" +
			"claude --resume can go on with it; --install puts it where Claude Code looks\n" +
			"($CLAUDE_CONFIG_DIR or ~/.claude, projects/<dir>/<id>.jsonl) and prints its path.\n" +
			"--to markdown writes a readable transcript: every turn, tool calls folded with their\n" +
			"results, compactions marked. Standard output unless --output FILE.\n" +
			"   trail export --last --to claude --install",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "to", Usage: "claude or markdown"},
			&cli.StringFlag{Name: "output", Usage: "write to `FILE` (replaced atomically) instead of standard output"},
			&cli.BoolFlag{Name: "install", Usage: "with --to claude: write into Claude Code's projects folder"},
			&cli.BoolFlag{Name: "force", Usage: "with --install: replace the session's file there"},
			&cli.BoolFlag{Name: "last", Usage: "the most recently updated session of this directory"},
			&cli.BoolFlag{Name: "any-dir", Usage: "with --last: of any directory"},
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
			ref := core.SessionRef{Cwd: cwd, Last: c.Bool("last"), AnyDir: c.Bool("any-dir")}
			args := c.Args().Slice()
			switch {
			case ref.AnyDir && !ref.Last:
				return errs.Usagef("use --last --any-dir", "--any-dir needs --last")
			case ref.Last && len(args) > 0, len(args) > 1:
				return errs.Usagef("trail export ID --to claude|markdown, or trail export --last --to …", "unexpected argument %s", store.QuoteInput(args[len(args)-1]))
			case !ref.Last && len(args) == 0:
				return errs.Usagef("trail export ID --to claude|markdown, or trail export --last --to …", "no session given")
			case !ref.Last:
				ref.Ref = args[0]
			}
			o := &ExportOptions{IO: d.IO, Deps: d, Globals: g, Export: core.ExportOptions{Ref: ref, To: c.String("to")},
				Install: c.Bool("install"), Force: c.Bool("force")}
			switch o.Export.To {
			case core.ExportClaude, core.ExportMarkdown:
			case "":
				return errs.Usagef("add --to claude (Claude Code's JSONL) or --to markdown", "no export format given")
			default:
				return errs.Usagef("use --to claude or --to markdown", "unknown export format %s", store.QuoteInput(o.Export.To))
			}
			if out := c.String("output"); out != "" {
				o.Output = absFrom(cwd, out)
			}
			switch {
			case o.Install && o.Export.To != core.ExportClaude:
				return errs.Usagef("--install is for --to claude", "--install with --to %s", o.Export.To)
			case o.Install && o.Output != "":
				return errs.Usagef("give --install or --output, not both", "two destinations given")
			case o.Force && !o.Install:
				return errs.Usagef("--force is for --install; --output always replaces its file", "--force without --install")
			}
			return runF(c.Context, o)
		},
	}
}

func runExport(ctx context.Context, o *ExportOptions) error {
	eng := newEngine(o.Deps, o.Deps.openStore(o.Globals.Home))
	if o.Output == "" && !o.Install {
		out, onTerminal := o.IO.Out, o.IO.IsStdoutTTY() && o.Export.To == core.ExportMarkdown
		var shown bytes.Buffer
		if onTerminal {
			out = &shown // escaped below, as replay's text is
		}
		res, err := eng.Export(ctx, o.Export, out)
		if onTerminal && shown.Len() > 0 {
			// The conversation is what models and tools wrote: on a
			// terminal its escape sequences show as text (safe_text.go),
			// into a file or a pipe it is exact. (Claude's JSONL carries
			// no ESC or BEL: JSON escapes them.)
			if _, werr := io.WriteString(o.IO.Out, safeText(shown.String())); err == nil {
				err = werr
			}
		}
		if err == nil && res.FromRecord && !o.Globals.Quiet {
			fmt.Fprintln(o.IO.ErrOut, noLogNote)
		}
		return err
	}
	var buf bytes.Buffer
	res, err := eng.Export(ctx, o.Export, &buf)
	if err != nil {
		return err
	}
	path := o.Output
	if o.Install {
		if path, err = claudeTranscriptPath(o, res); err != nil {
			return err
		}
		if _, err := os.Lstat(path); err == nil && !o.Force {
			return errs.Usagef("it may hold turns Claude Code added since; pass --force to replace it", "%s already exists", path)
		}
		if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
			return err
		}
	}
	if err := store.WriteFile(path, buf.Bytes(), 0o600); err != nil {
		return err
	}
	fmt.Fprintln(o.IO.Out, path)
	if !o.Globals.Quiet {
		if res.FromRecord {
			fmt.Fprintln(o.IO.ErrOut, noLogNote)
		}
		linef(o.IO.ErrOut, "trail: exported %d messages of session %s to %s\n", res.Messages, res.SessionID, path)
		if o.Install {
			linef(o.IO.ErrOut, "trail: go on in Claude Code with: cd %s && claude --resume %s\n", shellQuote(res.Cwd), res.ClaudeSessionID)
		}
	}
	return nil
}

// noLogNote says a Markdown transcript could only show the record.
const noLogNote = "trail: the session has no log: the transcript shows the record's messages, without what a compaction replaced"

// claudeTranscriptPath is where Claude Code keeps the session: its
// projects folder, the folder named after the session's directory, the
// session id.
func claudeTranscriptPath(o *ExportOptions, res *core.ExportResult) (string, error) {
	base := ""
	if dir := o.Deps.Env("CLAUDE_CONFIG_DIR"); dir != "" {
		// as the settings read it: ~ is HOME's, a relative one made
		// absolute, ~user none (never a folder named "~user" here)
		home, _ := o.Deps.UserHome()
		if base = settings.ClaudeDir(home, dir); base == "" {
			return "", errs.Usagef("give CLAUDE_CONFIG_DIR in full, or use --output", "CLAUDE_CONFIG_DIR %s names no folder trail can find", store.QuoteInput(dir))
		}
	}
	if base == "" {
		home, err := o.Deps.UserHome()
		if err != nil || home == "" {
			return "", errs.Usagef("set HOME or CLAUDE_CONFIG_DIR, or use --output", "cannot find Claude Code's folder")
		}
		if _, err := os.Stat(home); errors.Is(err, fs.ErrNotExist) {
			// a service account's /nonexistent: not made from the root down
			return "", errs.Usagef("set HOME or CLAUDE_CONFIG_DIR, or use --output", "the home folder %s does not exist", store.QuoteInput(home))
		}
		base = filepath.Join(home, ".claude")
	}
	if res.Cwd == "" || !filepath.IsAbs(res.Cwd) {
		return "", errs.Usagef("use --output FILE", "the session has no absolute working directory to file it under")
	}
	dir, ok := peer.ClaudeProjectDir(res.Cwd)
	if !ok {
		return "", errs.Usagef("use --output FILE and move it yourself", "the session's directory is too long a path for trail to name Claude Code's folder for it")
	}
	return filepath.Join(base, "projects", dir, res.ClaudeSessionID+".jsonl"), nil
}
