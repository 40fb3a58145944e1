package commands

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"sort"
	"strings"

	"github.com/urfave/cli/v2"

	"trail/core"
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
		Usage: "show the settings in effect here and the file each comes from",
		Description: "Reads every settings file, lowest precedence first: ~/.claude/settings.json,\n" +
			"$TRAIL_HOME/settings.json, ./.claude/settings.json, ./.claude/settings.local.json,\n" +
			"./.trail/settings.json, ./.trail/settings.local.json, then --settings FILE.\n" +
			"Keys Claude Code reads are accepted (trail ignores those it does not use); any other\n" +
			"key is reported. --check also checks the values and exits 7 on any problem.",
		Flags: []cli.Flag{
			&cli.BoolFlag{Name: "json", Usage: "one JSON object: {settings: [{key, value, file}], files: [{path, found, error, unknownKeys}]}"},
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
				return fmt.Errorf("current directory: %w", err)
			}
			return runF(c.Context, &ConfigOptions{IO: d.IO, Deps: d, Globals: g, Cwd: cwd, JSON: c.Bool("json"), Check: c.Bool("check")})
		},
	}
}

// configProblem is one thing --check reports about a file.
type configProblem struct {
	File, Key, Msg string
}

func runConfig(_ context.Context, o *ConfigOptions) error {
	userHome, _ := o.Deps.UserHome()
	entries, files := settings.Inspect(settings.Paths(userHome, o.Globals.Home, o.Cwd), o.Globals.Settings)
	problems := configProblems(files, o.Check)
	redact := configRedactor(o.Deps, entries)
	if o.JSON {
		if err := writeConfigJSON(o, entries, files, problems, redact); err != nil {
			return err
		}
	} else {
		writeConfigText(o, entries, files, problems, redact, userHome)
	}
	for _, f := range files {
		if f.Err != nil {
			return &exitError{code: ExitInvalidData} // what a step would refuse too
		}
	}
	if o.Check && len(problems) > 0 {
		return &exitError{code: ExitInvalidData}
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
		for _, u := range f.Unknown {
			out = append(out, configProblem{File: f.Path, Key: u.Key, Msg: unknownKeyMessage(u.Key)})
		}
		if !check {
			continue
		}
		for _, e := range f.Entries {
			if msg := checkEntry(e); msg != "" {
				out = append(out, configProblem{File: f.Path, Key: e.Key, Msg: msg})
			}
		}
	}
	return out
}

// unknownKeyMessage says a key is unknown, with the known key it is
// closest to.
func unknownKeyMessage(key string) string {
	msg := "unknown key " + store.QuoteInput(key) + ", ignored"
	if s := suggest(key, settings.TrailKeys()); s != "" {
		msg += fmt.Sprintf(" (did you mean %q?)", s)
	}
	return msg
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
	case e.Key == "baseUrl":
		if !isString || !(strings.HasPrefix(str, "http://") || strings.HasPrefix(str, "https://")) {
			return fmt.Sprintf("baseUrl %s must start with http:// or https://", e.Value)
		}
	case e.Key == "permissions.defaultMode":
		if !isString || !permission.ValidMode(str) {
			return fmt.Sprintf("permissions.defaultMode %s is not one of default, plan, acceptEdits, bypassPermissions", e.Value)
		}
	case e.Key == "permissions.allow", e.Key == "permissions.ask", e.Key == "permissions.deny":
		if !isString {
			return fmt.Sprintf("%s holds %s, not a rule", e.Key, e.Value)
		}
		if _, err := permission.ParseRule(str); err != nil {
			return fmt.Sprintf("%s rule %s: %v", e.Key, store.QuoteInput(str), err)
		}
	case e.Key == "maxTurns":
		var n int
		if json.Unmarshal(e.Value, &n) != nil || n < 0 {
			return fmt.Sprintf("maxTurns %s must be 0 (no cap) or more", e.Value)
		}
	}
	return ""
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

// configDefaults are shown for the keys no file sets.
func configDefaults() [][2]string {
	return [][2]string{
		{"provider", "chosen from the API keys in the environment"},
		{"model", "the provider's default"},
		{"permissions.defaultMode", "default"},
		{"autoCompactThreshold", fmt.Sprint(core.DefaultAutoCompact)},
		{"maxTurns", "0 (no cap)"},
		{"timeout", provider.DefaultTimeout.String()},
		{"stream", "false"},
	}
}

func writeConfigText(o *ConfigOptions, entries []settings.Entry, files []settings.FileReport, problems []configProblem, redact func(string) string, userHome string) {
	w := o.IO.Out
	set := map[string]bool{}
	rows := [][3]string{{"KEY", "VALUE", "FROM"}}
	for _, e := range entries {
		set[e.Key] = true
		rows = append(rows, [3]string{e.Key, cutEnd(redact(compactJSON(e.Value)), 60), shortPath(e.File, o.Cwd, userHome)})
	}
	for _, d := range configDefaults() {
		if !set[d[0]] {
			rows = append(rows, [3]string{d[0], d[1], "default"})
		}
	}
	sort.SliceStable(rows[1:], func(i, j int) bool { return settings.KeyRank(rows[1+i][0]) < settings.KeyRank(rows[1+j][0]) })
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
		pathW = max(pathW, len([]rune(shortPath(f.Path, o.Cwd, userHome))))
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
		p := shortPath(f.Path, o.Cwd, userHome)
		fmt.Fprintf(w, "  %s%s  %s\n", p, strings.Repeat(" ", pathW-len([]rune(p))), state)
	}
	if len(problems) > 0 {
		fmt.Fprintln(w, "\nPROBLEMS:")
		for _, p := range problems {
			fmt.Fprintf(w, "  %s: %s\n", shortPath(p.File, o.Cwd, userHome), p.Msg)
		}
	}
	if o.Check && len(problems) == 0 {
		fmt.Fprintln(w, "\nno problems found")
	}
}

func writeConfigJSON(o *ConfigOptions, entries []settings.Entry, files []settings.FileReport, problems []configProblem, redact func(string) string) error {
	items := make([]any, 0, len(entries))
	for _, e := range entries {
		v := json.RawMessage(redact(compactJSON(e.Value)))
		if !json.Valid(v) { // a redaction inside a non-string cannot happen, but stay valid JSON
			v, _ = json.Marshal(string(v))
		}
		items = append(items, logfmt.Object{logfmt.F("key", e.Key), logfmt.F("value", v), logfmt.F("file", e.File)})
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
	ps := make([]any, 0, len(problems))
	for _, p := range problems {
		ps = append(ps, logfmt.Object{logfmt.F("file", p.File), logfmt.F("key", p.Key), logfmt.F("message", p.Msg)})
	}
	b, err := logfmt.Marshal(logfmt.Object{logfmt.F("settings", items), logfmt.F("files", fs), logfmt.F("problems", ps)})
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

// warnUnknownKeys warns once per file and key a step reads (SPEC 2's
// files): an ignored key is usually a misspelt one.
func warnUnknownKeys(io *IOStreams, s *settings.Settings) {
	for _, u := range s.Unknown {
		fmt.Fprintf(io.ErrOut, "trail: warning: %s: %s\n", u.File, unknownKeyMessage(u.Key))
	}
}
