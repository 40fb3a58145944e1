package tools

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"regexp"
	"slices"
	"sort"
	"strings"

	"trail/core/chat"
	"trail/logfmt"
)

const grepDescription = "A powerful search tool built on regex matching.\n\nSupports full regex syntax (e.g., 'log.*Error', 'function\\\\s+\\\\w+'). Filter files with glob parameter (e.g., '*.js', '**/*.tsx').\n\nOutput modes: 'content' shows matching lines with context, 'files_with_matches' shows only file paths (default), 'count' shows per-file match counts.\n\nPrefer this tool over running grep or rg through the Bash tool — it returns structured results directly.\n\nUse headLimit to control result size and save context space."

// Grep searches file contents with a regular expression (RE2 syntax).
type Grep struct{}

func (Grep) Schema() chat.ToolSchema {
	return schema("Grep", grepDescription,
		param{name: "pattern", typ: "string", desc: "The regular expression pattern to search for in file contents", required: true},
		param{name: "path", typ: "string", desc: "File or directory to search in. Defaults to the current working directory"},
		param{name: "glob", typ: "string", desc: `Glob pattern to filter files (e.g. "*.ts", "*.{ts,tsx}"). Only files matching this pattern will be searched`},
		param{name: "contextLines", typ: "number", desc: `Number of context lines to show before and after each match. Only applies when outputMode is "content". Default: 0`},
		param{name: "outputMode", typ: "string", enum: []string{"files_with_matches", "content", "count"}, desc: `Output mode: "files_with_matches" shows only file paths (default), "content" shows matching lines with context, "count" shows per-file match counts`},
		param{name: "headLimit", typ: "number", desc: "Maximum number of result lines (file paths, content lines, or count rows) to return. Excess results are truncated with a marker line"},
		param{name: "noIgnore", typ: "boolean", desc: noIgnoreDesc},
	)
}

type grepArgs struct {
	Pattern      string   `json:"pattern"`
	Path         string   `json:"path"`
	Glob         string   `json:"glob"`
	ContextLines *float64 `json:"contextLines"`
	OutputMode   string   `json:"outputMode"`
	HeadLimit    *float64 `json:"headLimit"`
	NoIgnore     bool     `json:"noIgnore"`
	// Claude Code's Grep options, read as Claude spells them (the model
	// schema keeps Robota's parameters; models trained on Claude send these).
	IgnoreCase  bool     `json:"-i"`
	After       *float64 `json:"-A"`
	Before      *float64 `json:"-B"`
	Multiline   bool     `json:"multiline"`
	Type        string   `json:"type"`   // ripgrep's --type (grep_types.go)
	Offset      *float64 `json:"offset"` // result lines skipped before headLimit
	LineNumbers *bool    `json:"-n"`     // content lines numbered (default true)
}

// grepMaxFileSize skips files too large to be source: a search must not
// read a multi-gigabyte dump into memory.
const grepMaxFileSize = 16 << 20

func (Grep) Run(ctx context.Context, raw json.RawMessage, env Env) Result {
	var a grepArgs
	if r := decodeArgs("Grep", raw, &a); r != nil {
		return *r
	}
	if a.Pattern == "" {
		return missing("Grep", "pattern")
	}
	mode := a.OutputMode
	switch mode {
	case "":
		mode = "files_with_matches"
	case "files_with_matches", "content", "count":
	default:
		return fail("Invalid outputMode: %s (use files_with_matches, content or count)", a.OutputMode)
	}
	expr := a.Pattern
	if a.Multiline {
		expr = "(?s)" + expr
	}
	if a.IgnoreCase {
		expr = "(?i)" + expr
	}
	re, err := regexp.Compile(expr)
	if err != nil {
		return fail("Invalid regex pattern: %s", a.Pattern)
	}
	var filter *globPattern
	if a.Glob != "" {
		if filter, err = parseGlob(a.Glob); err != nil {
			return fail("Invalid glob pattern: %s", a.Glob)
		}
	}
	var types []*globPattern
	if a.Type != "" {
		var why string
		if types, why = typeFilter(a.Type); why != "" {
			return fail("%s", why)
		}
	}
	root, r := searchRoot(env, a.Path)
	if r != nil {
		return *r
	}
	ctxLines := count(a.ContextLines, 0)
	around := grepContext{before: ctxLines, after: ctxLines, multiline: a.Multiline, unnumbered: a.LineNumbers != nil && !*a.LineNumbers}
	if a.Before != nil {
		around.before = count(a.Before, 0)
	}
	if a.After != nil {
		around.after = count(a.After, 0)
	}
	var out []string
	files := 0
	var names []string
	var unreadable []string
	search := func(abs, rel string) {
		data, err := os.ReadFile(abs)
		if err != nil {
			if !errors.Is(err, fs.ErrNotExist) {
				unreadable = append(unreadable, display(env.Cwd, abs))
			}
			return
		}
		if order := utf16Order(data); order != nil {
			data = decodeUTF16(data, order) // searched as text, as ripgrep does
		} else if isBinary(data) {
			return
		}
		name := display(env.Cwd, abs)
		if found := searchFile(string(data), name, re, around, mode); len(found) > 0 {
			out = append(out, found...)
			files++
			names = append(names, name)
		}
	}
	fi, err := os.Stat(root)
	if err != nil {
		return fail("Path not found: %s", a.Path)
	}
	var w *walk
	if fi.Mode().IsRegular() {
		if readDenied(env, root) {
			return fail("Access denied: %s is denied to Read by a permission rule", a.Path)
		}
		search(root, "")
	} else {
		w = &walk{ignore: !a.NoIgnore}
		if w.ignore {
			// The search folder itself is searched even if ignored, as
			// ripgrep searches a folder named on its command line.
			w.above, _ = ignoredStart(root, root)
		}
		err = w.files(root, func(abs, rel string, d fs.DirEntry) error {
			if ctx.Err() != nil {
				return ctx.Err()
			}
			if filter != nil && !filter.matchName(rel) {
				return nil
			}
			if types != nil && !slices.ContainsFunc(types, func(g *globPattern) bool { return g.matchName(rel) }) {
				return nil
			}
			info, err := os.Stat(abs) // follows a symlinked file
			if err != nil || !info.Mode().IsRegular() || info.Size() > grepMaxFileSize {
				return nil
			}
			if d.Type()&fs.ModeSymlink != 0 && !env.reaches(abs) {
				return nil
			}
			if readDenied(env, abs) {
				return nil
			}
			search(abs, rel)
			return nil
		})
		if err != nil && ctx.Err() != nil {
			return fail("Aborted")
		}
		if err != nil {
			return fail("%s", err.Error()) // the folder itself could not be listed
		}
	}
	lines := len(out)
	if skip := count(a.Offset, 0); skip > 0 {
		out = out[min(skip, len(out)):]
	}
	if n := count(a.HeadLimit, len(out)); len(out) > n {
		out = append(out[:n:n], fmt.Sprintf("(+%d more results truncated by headLimit)", len(out)-n))
	}
	var res Result
	switch {
	case len(out) == 0 && lines > 0:
		res = ok(fmt.Sprintf("(no results past offset %d: %d in all)", count(a.Offset, 0), lines))
	case len(out) == 0 && w != nil && w.skipped > 0:
		res = ok("(no matches)" + noIgnoreHint)
	case len(out) == 0:
		res = ok("(no matches)")
	default:
		res = ok(strings.Join(out, "\n"))
	}
	if w != nil {
		for _, d := range w.unreadable {
			unreadable = append(unreadable, display(env.Cwd, d)+"/")
		}
	}
	if len(unreadable) > 0 {
		// ripgrep says so too: a miss in a file it could not open is no miss
		res.Output += fmt.Sprintf("\n(%d %s could not be read, so not searched: %s)", len(unreadable), plural(len(unreadable), "path", "paths"), strings.Join(unreadable[:min(3, len(unreadable))], ", "))
	}
	res.Response = grepResponse(mode, files, names, lines, res.Output)
	return res
}

// grepResponse is Claude Code's Grep output shape, for hooks.
func grepResponse(mode string, files int, names []string, lines int, content string) logfmt.Object {
	if names == nil {
		names = []string{}
	}
	o := logfmt.Object{logfmt.F("mode", mode), logfmt.F("numFiles", files), logfmt.F("filenames", names)}
	switch mode {
	case "content":
		o = append(o, logfmt.F("content", content), logfmt.F("numLines", lines))
	case "count":
		o = append(o, logfmt.F("content", content), logfmt.F("numMatches", lines))
	}
	return o
}

// grepContext is how much of a file Grep shows around a match.
type grepContext struct {
	before, after int
	multiline     bool // a match may span lines: the pattern runs on the whole file
	unnumbered    bool // content lines without their numbers (Claude's "-n": false)
}

// matchName applies a Grep file filter: a pattern without "/" matches the
// file's name in any folder ("*.go"); one with "/" matches its path.
func (g *globPattern) matchName(rel string) bool {
	for _, a := range g.alts {
		if len(a) == 1 {
			name := rel[strings.LastIndexByte(rel, '/')+1:]
			if matchSegs(a, []string{name}) {
				return true
			}
			continue
		}
		if matchSegs(a, splitSegments(rel)) {
			return true
		}
	}
	return false
}

// searchFile is Robota's per-file search: "path" for files_with_matches,
// "path:N" for count, "path:line:text" (":" on matches, "-" on context, "--"
// between groups) for content.
func searchFile(content, name string, re *regexp.Regexp, around grepContext, mode string) []string {
	// a final newline ends the last line; it starts no empty one after it
	lines := strings.Split(strings.TrimSuffix(content, "\n"), "\n")
	var hits []int
	if around.multiline {
		hits = multilineHits(content, re)
	} else {
		for i, l := range lines {
			if re.MatchString(l) {
				hits = append(hits, i)
			}
		}
	}
	if len(hits) == 0 {
		return nil
	}
	switch mode {
	case "files_with_matches":
		return []string{name}
	case "count":
		return []string{fmt.Sprintf("%s:%d", name, len(hits))}
	}
	isHit := make(map[int]bool, len(hits))
	include := map[int]bool{}
	for _, h := range hits {
		isHit[h] = true
		for c := max(0, h-around.before); c <= min(len(lines)-1, h+around.after); c++ {
			include[c] = true
		}
	}
	var out []string
	prev := -1
	for i := range lines {
		if !include[i] {
			continue
		}
		if prev >= 0 && i > prev+1 {
			out = append(out, "--")
		}
		marker := "-"
		if isHit[i] {
			marker = ":"
		}
		if around.unnumbered {
			out = append(out, name+marker+lines[i])
		} else {
			out = append(out, fmt.Sprintf("%s:%d%s%s", name, i+1, marker, lines[i]))
		}
		prev = i
	}
	return out
}

// multilineHits are the lines (0-based) every match of re in content
// touches, for a pattern that may span lines.
func multilineHits(content string, re *regexp.Regexp) []int {
	seen := map[int]bool{}
	var hits []int
	for _, m := range re.FindAllStringIndex(content, -1) {
		first := strings.Count(content[:m[0]], "\n")
		last := first + strings.Count(content[m[0]:max(m[0], m[1]-1)], "\n")
		for l := first; l <= last; l++ {
			if !seen[l] {
				seen[l] = true
				hits = append(hits, l)
			}
		}
	}
	sort.Ints(hits)
	return hits
}
