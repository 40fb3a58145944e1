package commands

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/urfave/cli/v2"

	"trail/core/permission"
	"trail/core/provider"
	"trail/core/settings"
	"trail/logfmt"
	"trail/store"
)

// ConfigOptions is trail config after flag parsing.
type ConfigOptions struct {
	IO      *IOStreams
	Deps    *Deps
	Globals globals
	Cwd     string
	JSON    bool
	Check   bool
}

func newConfigCmd(d *Deps, runF func(context.Context, *ConfigOptions) error) *cli.Command {
	return &cli.Command{
		Name:  "config",
		Usage: "show the settings in effect here and the file or variable each comes from",
		Description: "Reads every settings file, lowest precedence first: ~/.claude/settings.json,\n" +
			"$TRAIL_HOME/settings.json, ./.claude/settings.json, ./.claude/settings.local.json,\n" +
			"./.trail/settings.json, ./.trail/settings.local.json, then --settings FILE (or JSON).\n" +
			"TRAIL_PROVIDER, TRAIL_MODEL and ANTHROPIC_BASE_URL/OPENAI_BASE_URL beat every file.\n" +
			"Keys Claude Code reads are accepted (trail ignores those it does not use); any other\n" +
			"key is reported. --check also checks the values and exits 7 on any problem.",
		Flags: []cli.Flag{
			&cli.BoolFlag{Name: "json", Usage: "one JSON object: {settings: [{key, value, file | env | default}], files: [{path, found, error, unknownKeys}], problems, warnings}"},
			&cli.BoolFlag{Name: "check", Usage: "check every file (unknown keys, bad values); exit 7 on any problem"},
		},
		Action: func(c *cli.Context) error {
			if err := noArgs(c); err != nil {
				return err
			}
			g, err := readGlobals(c, d)
			if err != nil {
				return err
			}
			cwd, err := d.Getwd()
			if err != nil {
				return cwdError(err)
			}
			return runF(c.Context, &ConfigOptions{IO: d.IO, Deps: d, Globals: g, Cwd: cwd, JSON: c.Bool("json"), Check: c.Bool("check")})
		},
	}
}

// configProblem is one thing --check reports about a file.
type configProblem struct {
	File, Key, Msg string
	Env            string // the environment variable, instead of a file
	// Warning: listed by --check, but not failed on (config_check.go).
	Warning bool
}

func runConfig(_ context.Context, o *ConfigOptions) error {
	userHome, _ := o.Deps.UserHome()
	claude := settings.ClaudeDir(userHome, o.Deps.Env("CLAUDE_CONFIG_DIR"))
	managed, err := settings.ManagedPaths()
	if err != nil {
		return err // as a step would fail on it
	}
	entries, files := settings.Inspect(settings.Paths(claude, o.Globals.Home, o.Cwd), settings.ProjectPaths(claude, o.Globals.Home, o.Cwd), o.Globals.Settings, managed...)
	if o.Globals.Home == unsetHome {
		// HOME is unset: the stand-in home is no file a user could make
		files = slices.DeleteFunc(files, func(f settings.FileReport) bool { return filepath.Dir(f.Path) == unsetHome })
	}
	cfg := configRows(o.Deps.Env, entries)
	problems := configProblems(files, o.Check)
	if o.Check {
		problems = append(problems, envProblems(cfg)...)
		problems = append(problems, claudeVarProblems(o.Deps.Env)...)
		problems = append(problems, modelProblems(cfg)...)
		problems = append(problems, fileProviderWarnings(cfg, o.Deps.Env)...)
		problems = append(problems, keyInSettingsWarnings(cfg, o.Deps.Env)...)
	}
	problems, warnings := splitWarnings(problems)
	redact := configRedactor(o.Deps, entries)
	if o.JSON {
		if err := writeConfigJSON(o, cfg, files, problems, warnings, redact); err != nil {
			return err
		}
	} else {
		writeConfigText(o, cfg, files, problems, warnings, redact, userHome)
	}
	// Every failure is a line on stderr too: stdout may be a file or a
	// pipe nobody reads.
	if o.Check && len(problems) > 0 {
		return &exitError{code: ExitInvalidData, msg: "config --check found " + plural(len(problems), "problem")}
	}
	for _, f := range files {
		if f.Err != nil {
			return &exitError{code: ExitCode(f.Err), msg: oneLine(f.Err.Error())} // as a step would fail on it
		}
	}
	return nil
}

// configProblems lists the unknown keys and, with check, the values a
// step would refuse or that could never work.
func configProblems(files []settings.FileReport, check bool) []configProblem {
	var out []configProblem
	for _, f := range files {
		if f.Err != nil {
			out = append(out, configProblem{File: f.Path, Msg: oneLine(strings.TrimPrefix(f.Err.Error(), f.Path+": "))})
		}
		for _, e := range f.More {
			out = append(out, configProblem{File: f.Path, Msg: oneLine(e.Error())})
		}
		for _, u := range f.Unknown {
			out = append(out, configProblem{File: f.Path, Key: u.Key, Msg: unknownKeyMessage(u.Key)})
		}
		for _, e := range f.Entries {
			if e.Ignored != "" {
				out = append(out, configProblem{File: f.Path, Key: e.Key, Msg: e.Ignored, Warning: e.ByPolicy})
			}
		}
		if !check {
			continue
		}
		refused := len(out) // one key may hold several problems: judge against Load's only
		for _, e := range f.Entries {
			if mentioned(out[:refused], f.Path, e.Key) {
				continue
			}
			for _, p := range entryProblems(e) {
				p.File = f.Path
				out = append(out, p)
			}
		}
	}
	return out
}

// mentioned reports whether a problem of file already names key: a value
// Load refused by its type is not judged again by its content.
func mentioned(problems []configProblem, file, key string) bool {
	for _, p := range problems {
		if p.File == file && (strings.HasPrefix(p.Msg, key+" ") || strings.Contains(p.Msg, ": "+key+" ")) {
			return true
		}
	}
	return false
}

// unknownKeyMessage says a key is unknown, with the known key it is
// closest to.
func unknownKeyMessage(key string) string {
	msg := "unknown key " + store.QuoteInput(key) + ", ignored"
	if s := suggestKey(key, append(settings.TrailKeys(), settings.HookEventKeys()...)); s != "" {
		msg += fmt.Sprintf(" (did you mean %q?)", s)
	}
	return msg
}

// suggestKey is suggest for settings keys, where a key written in another
// case ("hooks.pretooluse") is the nearest of all: JSON keys are exact,
// and unlike a command word, a key is never a prompt.
func suggestKey(key string, keys []string) string {
	for _, k := range keys {
		if strings.EqualFold(k, key) {
			return k
		}
	}
	return suggest(key, keys)
}

// checkEntry judges a value Load accepts by its type but a step would
// refuse, or that can never work.
func checkEntry(e settings.Entry) string {
	var str string
	isString := json.Unmarshal(e.Value, &str) == nil
	switch {
	case e.Key == "provider":
		if _, ok := provider.DefaultModel(str); !ok || !isString {
			return fmt.Sprintf("provider %s is not one of anthropic, openai, echo, script, cassette", e.Value)
		}
	case e.Key == "baseUrl", e.Key == "env.ANTHROPIC_BASE_URL", e.Key == "env.OPENAI_BASE_URL":
		if !isString || !(strings.HasPrefix(str, "http://") || strings.HasPrefix(str, "https://")) {
			return fmt.Sprintf("%s %s must start with http:// or https://", strings.TrimPrefix(e.Key, "env."), e.Value)
		}
	case e.Key == "env.ANTHROPIC_CUSTOM_HEADERS":
		if _, err := provider.CustomHeaders(str); err != nil {
			return oneLine(err.Error())
		}
	case e.Key == "permissions.defaultMode":
		if !isString || !permission.ValidMode(str) {
			return fmt.Sprintf("permissions.defaultMode %s is not one of default, plan, acceptEdits, bypassPermissions", e.Value)
		}
	case e.Key == "permissions.allow", e.Key == "permissions.ask", e.Key == "permissions.deny":
		if !isString {
			return fmt.Sprintf("%s holds %s, not a rule", e.Key, e.Value)
		}
		r, err := permission.ParseRule(str)
		if err != nil {
			return fmt.Sprintf("%s rule %s: %v", e.Key, store.QuoteInput(str), err)
		}
		if e.Key == "permissions.allow" && !r.AllowGlobOK() {
			return fmt.Sprintf("allow rule %s is skipped by every step: an allow rule may use * in the tool name only after mcp__<server>__", store.QuoteInput(str))
		}
	case strings.HasPrefix(e.Key, "env.") && isString:
		// Claude Code's variables that a step reads (settings.ApplyClaudeCodeVars)
		if err := settings.CheckClaudeCodeVar(strings.TrimPrefix(e.Key, "env."), str); err != nil {
			return oneLine(err.Error())
		}
	case e.Key == "maxTurns":
		var n int
		if json.Unmarshal(e.Value, &n) != nil || n < 0 {
			return fmt.Sprintf("maxTurns %s must be 0 (no cap) or more", e.Value)
		}
	}
	return ""
}

// envProblems judges the values the environment sets as --check judges a
// file's: TRAIL_PROVIDER=bogus fails every step as "provider": "bogus" would.
func envProblems(cfg []configRow) []configProblem {
	var out []configProblem
	for _, r := range cfg {
		if r.Env == "" {
			continue
		}
		if msg := checkEntry(settings.Entry{Key: r.Key, Value: r.Value}); msg != "" {
			out = append(out, configProblem{Env: r.Env, Key: r.Key, Msg: msg})
		}
	}
	return out
}

// claudeVarProblems are the values of Claude Code's variables in the
// environment that every step would refuse (BASH_MAX_TIMEOUT_MS=10min).
func claudeVarProblems(env func(string) string) []configProblem {
	var out []configProblem
	for _, name := range settings.ClaudeCodeVarNames() {
		if err := settings.CheckClaudeCodeVar(name, env(name)); err != nil {
			out = append(out, configProblem{Env: name, Msg: oneLine(err.Error())})
		}
	}
	return out
}

// configRedactor hides the secrets the log would hide: a settings env
// value is exported to Bash and hooks, and config's output lands in CI logs.
func configRedactor(d *Deps, entries []settings.Entry) func(string) string {
	env := map[string]string{}
	for _, e := range entries {
		if name, ok := strings.CutPrefix(e.Key, "env."); ok {
			var v string
			if json.Unmarshal(e.Value, &v) == nil {
				env[name] = v
			}
		}
	}
	var environ []string
	if d.Environ != nil {
		environ = d.Environ()
	}
	r := logfmt.NewRedactor(provider.SecretsInUse(d.Env, environ, env))
	return r.String
}

func writeConfigText(o *ConfigOptions, cfg []configRow, files []settings.FileReport, problems, warnings []configProblem, redact func(string) string, userHome string) {
	w := o.IO.Out
	rows := [][3]string{{"KEY", "VALUE", "FROM"}}
	for _, r := range cfg {
		row := [3]string{r.Key, "", ""}
		switch {
		case r.File != "":
			row[1], row[2] = modelShown(r, cutEnd(redact(compactJSON(r.Value)), 60)), shortPath(r.File, o.Cwd, userHome)
			if r.Note != "" {
				row[2] += " (" + r.Note + ")"
			}
		case r.Env != "":
			row[1], row[2] = modelShown(r, cutEnd(redact(compactJSON(r.Value)), 60)), "env "+r.Env
		default:
			var plain string
			if r.Value == nil {
				plain = r.Missing
			} else if json.Unmarshal(r.Value, &plain) != nil {
				plain = string(r.Value)
			}
			row[1], row[2] = plain, "default"
			if r.Default != "" {
				row[2] = "default: " + r.Default
			}
		}
		rows = append(rows, row)
	}
	sort.SliceStable(rows[1:], func(i, j int) bool { return settings.KeyRank(rows[1+i][0]) < settings.KeyRank(rows[1+j][0]) })
	// Keys, values and paths come from settings files, a cloned
	// project's among them: escaped, so that looking at them is safe.
	for j := range rows {
		for i := range rows[j] {
			rows[j][i] = safeLine(rows[j][i])
		}
	}
	width := 0
	for _, r := range rows {
		width = max(width, len(r[0]))
	}
	valueW := 0
	for _, r := range rows {
		valueW = max(valueW, len([]rune(r[1])))
	}
	for _, r := range rows {
		fmt.Fprintf(w, "%-*s  %s%s  %s\n", width, r[0], r[1], strings.Repeat(" ", valueW-len([]rune(r[1]))), r[2])
	}
	fmt.Fprintln(w, "\nFILES (lowest precedence first):")
	pathW := 0
	for _, f := range files {
		pathW = max(pathW, len([]rune(safeLine(shortPath(f.Path, o.Cwd, userHome)))))
	}
	for _, f := range files {
		state := "not found"
		switch {
		case f.Err != nil:
			state = "refused: " + oneLine(strings.TrimPrefix(f.Err.Error(), f.Path+": "))
		case f.Found && len(f.Unknown) > 0:
			state = "read, " + plural(len(f.Unknown), "unknown key")
		case f.Found:
			state = "read"
		}
		p := safeLine(shortPath(f.Path, o.Cwd, userHome))
		fmt.Fprintf(w, "  %s%s  %s\n", p, strings.Repeat(" ", pathW-len([]rune(p))), safeLine(state))
	}
	for _, list := range []struct {
		title string
		items []configProblem
	}{{"PROBLEMS", problems}, {"WARNINGS", warnings}} {
		if len(list.items) == 0 {
			continue
		}
		fmt.Fprintf(w, "\n%s:\n", list.title)
		for _, p := range list.items {
			where := "env " + p.Env
			if p.Env == "" {
				where = shortPath(p.File, o.Cwd, userHome)
			}
			fmt.Fprintf(w, "  %s: %s\n", safeLine(where), safeLine(p.Msg))
		}
	}
	if o.Check && len(problems) == 0 {
		fmt.Fprintln(w, "\nno problems found")
	}
}

func writeConfigJSON(o *ConfigOptions, cfg []configRow, files []settings.FileReport, problems, warnings []configProblem, redact func(string) string) error {
	items := make([]any, 0, len(cfg))
	for _, r := range cfg {
		v := json.RawMessage("null")
		if r.Value != nil {
			v = json.RawMessage(redact(compactJSON(r.Value)))
		}
		if !json.Valid(v) { // a redaction inside a non-string cannot happen, but stay valid JSON
			v, _ = json.Marshal(string(v))
		}
		item := logfmt.Object{logfmt.F("key", r.Key), logfmt.F("value", v)}
		if r.Resolved != "" {
			item = append(item, logfmt.F("resolved", r.Resolved))
		}
		switch {
		case r.File != "":
			item = append(item, logfmt.F("file", r.File))
			if r.Note != "" {
				item = append(item, logfmt.F("note", r.Note))
			}
		case r.Env != "":
			item = append(item, logfmt.F("env", r.Env))
		default:
			item = append(item, logfmt.F("default", true))
			note := r.Default
			if r.Value == nil {
				note = r.Missing
			}
			if note != "" {
				item = append(item, logfmt.F("note", note))
			}
		}
		items = append(items, item)
	}
	fs := make([]any, 0, len(files))
	for _, f := range files {
		obj := logfmt.Object{logfmt.F("path", f.Path), logfmt.F("found", f.Found)}
		if f.Err != nil {
			obj = append(obj, logfmt.F("error", oneLine(f.Err.Error())))
		}
		unknown := make([]any, 0, len(f.Unknown))
		for _, u := range f.Unknown {
			unknown = append(unknown, u.Key)
		}
		obj = append(obj, logfmt.F("unknownKeys", unknown))
		fs = append(fs, obj)
	}
	list := func(problems []configProblem) []any {
		ps := make([]any, 0, len(problems))
		for _, p := range problems {
			where := logfmt.F("file", p.File)
			if p.Env != "" {
				where = logfmt.F("env", p.Env)
			}
			ps = append(ps, logfmt.Object{where, logfmt.F("key", p.Key), logfmt.F("message", p.Msg)})
		}
		return ps
	}
	b, err := logfmt.Marshal(logfmt.Object{logfmt.F("settings", items), logfmt.F("files", fs), logfmt.F("problems", list(problems)), logfmt.F("warnings", list(warnings))})
	if err != nil {
		return err
	}
	fmt.Fprintf(o.IO.Out, "%s\n", b)
	return nil
}

func compactJSON(v json.RawMessage) string {
	var b bytes.Buffer
	if json.Compact(&b, v) != nil {
		return string(v)
	}
	return b.String()
}

// shortPath names a file relative to cwd when it is below it, else with ~
// for the home folder.
func shortPath(p, cwd, home string) string {
	if rel, err := filepath.Rel(cwd, p); err == nil && !strings.HasPrefix(rel, "..") {
		return "./" + rel
	}
	return tildePath(p, home)
}

// warnSettings warns once per file and key a step reads (SPEC 2's
// files): an ignored key is usually a misspelt one. And once for what the
// managed settings set aside: a rule that no longer holds must not pass
// unsaid.
func warnSettings(io *IOStreams, s *settings.Settings) {
	for _, u := range s.Unknown {
		fmt.Fprintf(io.ErrOut, "trail: warning: %s: %s\n", safeLine(u.File), unknownKeyMessage(u.Key))
	}
	for _, n := range s.ManagedNotes {
		fmt.Fprintf(io.ErrOut, "trail: warning: %s\n", safeLine(n))
	}
}
