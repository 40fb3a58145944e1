package main

import (
	"fmt"
	"io"
	"strings"

	"github.com/urfave/cli/v2"

	"trail/commands"
)

// writeMan writes the page: name, synopsis, description, global options,
// each command (usage, description, examples, options), exit codes, files
// and environment. Everything but the last two sections comes from the
// app; there is no date, so the page is the same on every build.
func writeMan(w io.Writer, app *cli.App) {
	fmt.Fprintf(w, ".TH TRAIL 1 \"\" \"trail %s\" \"User Commands\"\n", roff(commands.Version))
	fmt.Fprintf(w, ".SH NAME\ntrail \\- %s\n", roff(app.Usage))
	fmt.Fprint(w, ".SH SYNOPSIS\n.B trail\n[\\fIglobal options\\fR] \\fIcommand\\fR [\\fIoptions\\fR] [\\fIarguments\\fR]\n.br\n.B trail\n[\\fIoptions\\fR] \\fIPROMPT\\fR...\n")
	fmt.Fprint(w, ".SH DESCRIPTION\n")
	text(w, app.Description)
	fmt.Fprint(w, ".SH GLOBAL OPTIONS\n")
	flags(w, app.Flags)
	fmt.Fprint(w, ".SH COMMANDS\n")
	for _, c := range app.Commands {
		if c.Hidden {
			continue
		}
		fmt.Fprintf(w, ".SS \"%s\"\n", roff(strings.TrimSpace("trail "+c.Name+" "+c.ArgsUsage)))
		text(w, upperFirst(c.Usage)+".")
		if c.Description != "" {
			fmt.Fprint(w, ".PP\n")
			text(w, c.Description)
		}
		if len(c.Flags) > 0 {
			flags(w, c.Flags)
		}
	}
	fmt.Fprint(w, ".SH EXIT CODES\n")
	for _, line := range strings.Split(strings.TrimSpace(commands.ExitCodesHelp), "\n")[1:] {
		f := strings.Fields(line)
		if len(f) == 0 {
			continue
		}
		if line[3] == ' ' && strings.TrimSpace(line[:8]) == "" { // a continued line
			text(w, strings.TrimSpace(line))
			continue
		}
		fmt.Fprintf(w, ".TP\n.B %s\n", f[0])
		text(w, strings.Join(f[1:], " "))
	}
	fmt.Fprint(w, `.SH FILES
.TP
.I $TRAIL_HOME/sessions/<id>.json
a session record (mode 0600), replaced atomically; its lock is sessions/<id>.lock
.TP
.I $TRAIL_HOME/logs/<id>.jsonl
the session's append-only event log, with values over 32 KiB in logs/<id>.payloads/
.TP
.I ~/.claude/settings.json, $TRAIL_HOME/settings.json, ./.claude/settings.json, ./.claude/settings.local.json, ./.trail/settings.json, ./.trail/settings.local.json
settings, lowest precedence first (\fBtrail config\fR shows them)
.SH ENVIRONMENT
.TP
.B TRAIL_HOME
trail's folder (default ~/.trail)
.TP
.B TRAIL_PROVIDER, TRAIL_MODEL
the provider and model when no option names them
.TP
.B ANTHROPIC_API_KEY, ANTHROPIC_AUTH_TOKEN, OPENAI_API_KEY
API keys, read from the environment only, never stored
.TP
.B ANTHROPIC_BASE_URL, OPENAI_BASE_URL
provider endpoints
.TP
.B NO_COLOR, CLICOLOR=0
no color on stderr (NO_COLOR also wins over forcing)
.TP
.B CLICOLOR_FORCE, FORCE_COLOR
color on stderr even when it is not a terminal (set, and not 0)
.TP
.B TERM=dumb
no color and no spinner
`)
}

// flags writes one tagged paragraph per flag: its names, its value and
// default, its usage.
func flags(w io.Writer, list []cli.Flag) {
	for _, f := range list {
		df, ok := f.(cli.DocGenerationFlag)
		if !ok {
			continue
		}
		placeholder, usage := unquoteUsage(df.GetUsage())
		var names []string
		for _, n := range f.Names() {
			dash := "\\-\\-"
			if len(n) == 1 {
				dash = "\\-"
			}
			name := "\\fB" + dash + roff(n) + "\\fR"
			if df.TakesValue() {
				name += " \\fI" + roff(placeholder) + "\\fR"
			}
			names = append(names, name)
		}
		fmt.Fprintf(w, ".TP\n%s\n", strings.Join(names, ", "))
		def := df.GetDefaultText()
		if def == "" && df.TakesValue() {
			def = df.GetValue()
		}
		if def != "" && def != `""` && def != "0" && def != "false" {
			usage += " (default: " + strings.Trim(def, `"`) + ")"
		}
		text(w, usage)
	}
}

// unquoteUsage takes the placeholder out of a usage: "a `FILE` to read"
// is FILE and "a FILE to read", as urfave/cli's help shows it.
func unquoteUsage(usage string) (string, string) {
	if i := strings.IndexByte(usage, '`'); i >= 0 {
		if j := strings.IndexByte(usage[i+1:], '`'); j >= 0 {
			name := usage[i+1 : i+1+j]
			return name, usage[:i] + name + usage[i+2+j:]
		}
	}
	return "value", usage
}

// text writes paragraphs: lines indented by three spaces (examples, as
// help shows them) are kept as they are, the rest is filled by the reader.
func text(w io.Writer, s string) {
	inExample := false
	for _, line := range strings.Split(s, "\n") {
		example := strings.HasPrefix(line, "   ")
		switch {
		case example && !inExample:
			fmt.Fprint(w, ".PP\n.nf\n.RS 4\n")
		case !example && inExample:
			fmt.Fprint(w, ".RE\n.fi\n.PP\n")
		}
		inExample = example
		if strings.TrimSpace(line) == "" {
			if !example {
				fmt.Fprint(w, ".PP\n")
			}
			continue
		}
		if example {
			line = strings.TrimPrefix(line, "   ")
		}
		fmt.Fprintln(w, roff(line))
	}
	if inExample {
		fmt.Fprint(w, ".RE\n.fi\n")
	}
}

// roff escapes text for a roff line: backslashes, dashes, a line that
// would start with a control character, and characters beyond ASCII.
func roff(s string) string {
	s = strings.ReplaceAll(s, `\`, `\e`)
	s = strings.ReplaceAll(s, "-", `\-`)
	if strings.HasPrefix(s, ".") || strings.HasPrefix(s, "'") {
		s = `\&` + s
	}
	// troff reads bytes: a character beyond ASCII (an ellipsis in an
	// example) goes as its Unicode escape.
	var b strings.Builder
	for _, r := range s {
		if r < 0x80 {
			b.WriteRune(r)
			continue
		}
		fmt.Fprintf(&b, `\[u%04X]`, r)
	}
	return b.String()
}

func upperFirst(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}
