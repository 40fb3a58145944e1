package commands

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/urfave/cli/v2"

	"trail/core"
	"trail/core/errs"
	"trail/core/provider"
	"trail/core/settings"
	"trail/store"
)

// RunOptions is run and resume after flag parsing: what only commands
// reads (the prompt's sources, the output format) beside the step itself.
type RunOptions struct {
	IO      *IOStreams
	Deps    *Deps
	Globals globals
	Args    []string // prompt words
	Prompt  string   // -p
	NoStdin bool
	Output  string
	Step    core.StepOptions
}

// promptRule is how options and prompt words are told apart (args.go).
const promptRule = "After the prompt's first word, only options written in full are read (--output-format\n" +
	"json, not -o json); -v, -h and any unknown option are words of the prompt. A prompt\n" +
	"that starts with \"-\" goes after --: trail run -- \"-v or --verbose?\""

// Output formats (SPEC 6).
const (
	outText       = "text"
	outJSON       = "json"
	outStreamJSON = "stream-json"
)

func stepFlags() []cli.Flag {
	flags := []cli.Flag{
		&cli.StringFlag{Name: "prompt", Aliases: []string{"p"}, Usage: "the prompt `TEXT` (else the arguments, else stdin)"},
		&cli.StringFlag{Name: "provider", Usage: "anthropic, openai, echo, script or cassette (env TRAIL_PROVIDER)"},
		&cli.StringFlag{Name: "model", Aliases: []string{"m"}, Usage: "model id (env TRAIL_MODEL)"},
		&cli.StringFlag{Name: "base-url", Usage: "provider endpoint `URL`"},
		&cli.StringFlag{Name: "script", Usage: "responses `FILE` for the script provider"},
		&cli.StringFlag{Name: "output-format", Aliases: []string{"o"}, Value: outText, Usage: "text, json or stream-json"},
		&cli.BoolFlag{Name: "stream", Usage: "with -o text, write each round's text as it arrives even into a pipe (default: the final answer once, at the end; setting stream)"},
		&cli.IntFlag{Name: "max-turns", Usage: "cap on model rounds for this prompt (0 = no cap)"},
		&cli.StringFlag{Name: "timeout", Value: "120s", Usage: "provider idle timeout, refreshed by every streamed event: a duration (90s, 2m) or seconds (`T`)"},
		&cli.IntFlag{Name: "max-retries", Value: 4, Usage: "retries of a failed provider call"},
		&cli.BoolFlag{Name: "no-log", Usage: "do not write the JSONL log (the record is still saved)"},
		&cli.StringFlag{Name: "log-requests", Usage: "how the log records each request: `MODE` digest (the default: digests, the history proves the rest) or full (every message and tool again)"},
		&cli.BoolFlag{Name: "no-stdin", Usage: "never read standard input"},
		waitFlag(30*time.Second, "how long to wait for a session locked by another step"),
		&cli.StringFlag{Name: "name", Usage: "session `NAME` (resume: rename)"},
		&cli.StringFlag{Name: "permission-mode", Usage: "`MODE`: default, plan, acceptEdits, bypassPermissions or dontAsk (manual and auto run as default)"},
		&cli.GenericFlag{Name: "allow-tool", Value: &ruleFlag{}, Usage: "allow tool calls matching `RULE`, repeatable: Bash, Bash(git diff *), Read(src/**)"},
		&cli.GenericFlag{Name: "deny-tool", Value: &ruleFlag{}, Usage: "deny tool calls matching `RULE`, repeatable (beats every allow and mode)"},
		&cli.GenericFlag{Name: "add-dir", Value: &ruleFlag{}, Usage: "let the file tools reach `DIR` too, besides the session's folder, repeatable (Claude Code's flag; settings: permissions.additionalDirectories)"},
		&cli.StringFlag{Name: "tools", Usage: "built-in tools to offer: a comma-separated `LIST`, or none (default: all)"},
		&cli.StringFlag{Name: "auto-compact", Usage: "compact first when the context is this full: a fraction `X` in (0,1], or off (default 0.835)"},
		&cli.Int64Flag{Name: "context-window", Usage: "the model's context window in `TOKENS` (overrides the known models table)"},
		&cli.StringFlag{Name: "on-ask", Value: core.OnAskDeny, Usage: "what a call needing approval does without a terminal: `deny|pause` (pause: exit 4, decide later with resume --approve/--deny)"},
	}
	flags = append(flags, cassetteFlags()...)
	flags = append(flags, outputFlags()...)
	return append(flags, claudeStepFlags()...)
}

func newRunCmd(d *Deps, runF func(context.Context, *RunOptions) error) *cli.Command {
	flags := append(stepFlags(),
		&cli.StringFlag{Name: "system", Aliases: []string{"system-prompt"}, Usage: "system prompt `TEXT` (replaces the default)"},
		&cli.StringFlag{Name: "system-file", Aliases: []string{"system-prompt-file"}, Usage: "read the system prompt from `FILE`"},
		&cli.StringFlag{Name: "append-system", Aliases: []string{"append-system-prompt"}, Usage: "`TEXT` appended to the system prompt"},
		&cli.StringFlag{Name: "session-id", Usage: "use this `ID` instead of a new UUIDv7"},
	)
	return &cli.Command{
		Name:      "run",
		Usage:     "start a new session and run one prompt",
		ArgsUsage: "[PROMPT...]",
		Description: "The prompt is -p, else the arguments joined by spaces, else standard input.\n" +
			"With both a prompt and piped input, the input follows the prompt after a blank line:\n" +
			"   git diff | trail run \"review this\"\n" +
			promptRule + "\n\n" +
			"trail \"PROMPT\" and trail -p \"PROMPT\" are trail run.",
		Flags: flags,
		Action: func(c *cli.Context) error {
			opts, err := stepOptions(c, d, false)
			if err != nil {
				return err
			}
			if c.IsSet("system") && c.IsSet("system-file") {
				return errs.Usagef("give one of them", "--system and --system-file both given")
			}
			if c.IsSet("system") {
				sys := c.String("system")
				opts.Step.System = &sys
			}
			if f := c.String("system-file"); f != "" {
				data, err := os.ReadFile(f)
				if err != nil {
					return &errs.UsageError{Msg: "--system-file", Err: err}
				}
				sys := strings.TrimRight(string(data), "\n")
				opts.Step.System = &sys
			}
			opts.Step.AppendSystem = c.String("append-system")
			opts.Step.SessionID = c.String("session-id")
			opts.Args = c.Args().Slice()
			return runF(c.Context, opts)
		},
	}
}

func newResumeCmd(d *Deps, runF func(context.Context, *RunOptions) error) *cli.Command {
	flags := append(stepFlags(),
		&cli.BoolFlag{Name: "fork", Usage: "continue in a new session (new id, parentSessionId set)"},
		&cli.BoolFlag{Name: "last", Usage: "the most recently updated session of this directory"},
		&cli.BoolFlag{Name: "any-dir", Usage: "with --last: of any directory"},
		// repeatable: --approve a --approve b is --approve a,b
		&cli.StringSliceFlag{Name: "approve", Usage: "run a paused session's pending tool calls: all, or comma-separated call `IDS` (repeatable)"},
		&cli.StringSliceFlag{Name: "deny", Usage: "deny a paused session's pending tool calls: all, or `IDS` (repeatable; unnamed ones are denied too; a call --approve names still runs)"},
	)
	return &cli.Command{
		Name:      "resume",
		Usage:     "run one more prompt in a stored session",
		ArgsUsage: "[ID] [PROMPT...]",
		Description: "ID is the short id trail list shows, a full id or a unique prefix of at least 4\n" +
			"characters of either, or a session name; --last takes the most recently updated\n" +
			"session of the current directory (then the prompt comes first).\n" +
			promptRule,
		Flags: flags,
		Action: func(c *cli.Context) error {
			opts, err := stepOptions(c, d, true)
			if err != nil {
				return err
			}
			args := c.Args().Slice()
			ref := &opts.Step.Ref
			ref.Last, ref.AnyDir = c.Bool("last"), c.Bool("any-dir")
			if ref.AnyDir && !ref.Last {
				return errs.Usagef("use --last --any-dir", "--any-dir needs --last")
			}
			if !ref.Last {
				if len(args) == 0 {
					return errs.Usagef("trail resume ID \"next step\", or trail resume --last \"next step\"", "no session given")
				}
				ref.Ref, args = args[0], args[1:]
			}
			opts.Step.Fork = c.Bool("fork")
			opts.Step.Approve, opts.Step.Deny = strings.Join(c.StringSlice("approve"), ","), strings.Join(c.StringSlice("deny"), ",")
			opts.Args = args
			return runF(c.Context, opts)
		},
	}
}

// stepOptions reads the flags run and resume share.
func stepOptions(c *cli.Context, d *Deps, resume bool) (*RunOptions, error) {
	g, err := readGlobals(c, d)
	if err != nil {
		return nil, err
	}
	cwd, err := d.Getwd()
	if err != nil {
		return nil, cwdError(err)
	}
	out := c.String("output-format")
	switch out {
	case outText, outJSON, outStreamJSON:
	default:
		return nil, errs.Usagef("use text, json or stream-json", "unknown output format %s", store.QuoteInput(out))
	}
	if c.Int("max-turns") < 0 {
		return nil, errs.Usagef("give 0 (no cap) or more", "--max-turns must not be negative")
	}
	if c.Int("max-retries") < 0 {
		return nil, errs.Usagef("give 0 or more", "--max-retries must not be negative")
	}
	if _, err := timeoutFlag(c); err != nil {
		return nil, err
	}
	if waitOf(c) < 0 {
		return nil, errs.Usagef("give a duration like 30s", "--wait must not be negative")
	}
	opts := &RunOptions{
		IO: d.IO, Deps: d, Globals: g,
		Prompt: c.String("prompt"), NoStdin: c.Bool("no-stdin"), Output: out,
	}
	script := c.String("script")
	if script != "" && !filepath.IsAbs(script) {
		script = filepath.Join(cwd, script)
	}
	opts.Step = core.StepOptions{
		Resume: resume,
		Ref:    core.SessionRef{Cwd: cwd},
		Name:   c.String("name"),
		Provider: provider.Flags{
			Name: c.String("provider"), Model: c.String("model"),
			BaseURL: c.String("base-url"), Script: script,
		},
		MaxTurns:   c.Int("max-turns"),
		Timeout:    flagTimeout(c),
		MaxRetries: c.Int("max-retries"),
		NoLog:      c.Bool("no-log"),
		Wait:       waitOf(c),
		Cwd:        cwd,
	}
	if err := readCassetteFlags(c, d, g.Home, cwd, &opts.Step.Provider); err != nil {
		return nil, err
	}
	if err := logRequestsOption(c, &opts.Step); err != nil {
		return nil, err
	}
	if c.IsSet("stream") {
		opts.Step.Stream = new(c.Bool("stream"))
	}
	permissionOptions(c, &opts.Step)
	if err := contextOptions(c, &opts.Step); err != nil {
		return nil, err
	}
	if err := outputOptions(c, &opts.Step); err != nil {
		return nil, err
	}
	return opts, nil
}

// logRequestsOption reads --log-requests.
func logRequestsOption(c *cli.Context, step *core.StepOptions) error {
	if !c.IsSet("log-requests") {
		return nil
	}
	v := c.String("log-requests")
	if settings.CheckLogRequests(v) != nil {
		return errs.Usagef("use --log-requests digest or --log-requests full", "unknown --log-requests %s", store.QuoteInput(v))
	}
	step.LogRequests = v
	return nil
}

// flagTimeout is --timeout when given, else 0: the step then takes the
// settings' timeout, else the default the flag shows (core's options.go).
func flagTimeout(c *cli.Context) time.Duration {
	if !c.IsSet("timeout") {
		return 0
	}
	d, _ := timeoutFlag(c) // checked with the other flags
	return d
}

// timeoutFlag reads --timeout as the settings' "timeout" is read: "90s",
// "2m", or a number of seconds ("5", "0.5").
func timeoutFlag(c *cli.Context) (time.Duration, error) {
	s := strings.TrimSpace(c.String("timeout"))
	raw := json.RawMessage(strconv.Quote(s))
	if _, err := strconv.ParseFloat(s, 64); err == nil {
		raw = json.RawMessage(s)
	}
	d, err := settings.ParseTimeout(raw)
	if err != nil {
		return 0, errs.Usagef("give a duration like 90s or 2m, or a number of seconds", "--%s", err.Error())
	}
	return d, nil
}

// runRun runs or resumes: read the prompt, run the step, render the result.
func runRun(ctx context.Context, o *RunOptions) error {
	d := o.Deps
	settings, err := loadSettings(d, o.Globals, o.Step.Cwd)
	if err != nil {
		return err
	}
	o.Step.Settings = settings
	warnSettings(o.IO, settings)
	prompt, err := readPrompt(ctx, o)
	if err != nil {
		return err
	}
	o.Step.Prompt = prompt
	st := d.openStore(o.Globals.Home)
	r := newRenderer(o)
	o.Step.Observer = r
	o.IO.DetachOut() // a slow reader must not hold the stream or the save
	res, stepErr := newEngine(d, st).Step(ctx, o.Step)
	return r.finish(res, stepErr)
}

// decidesApprovals reports whether this resume decides a paused session's
// pending tool calls (then a prompt is optional).
func (o *RunOptions) decidesApprovals() bool {
	return o.Step.Approve != "" || o.Step.Deny != ""
}
