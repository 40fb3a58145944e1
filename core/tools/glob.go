package tools

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"trail/core/chat"
	"trail/logfmt"
	"trail/store"
)

const globDefaultLimit = 1000

const globDescription = "Fast file pattern matching tool that works with any codebase size.\n\nSupports glob patterns like '**/*.js' or 'src/**/*.ts'. Returns matching file paths sorted by modification time.\n\nUse this tool when you need to find files by name patterns.\n\nDefault limit is 1000 results. Use the limit parameter if you need fewer results to save context space."

// Glob lists files matching a pattern, newest first.
type Glob struct{}

func (Glob) Schema() chat.ToolSchema {
	return schema("Glob", globDescription,
		param{name: "pattern", typ: "string", desc: `The glob pattern to match files against (e.g. "**/*.ts", "src/**/*.tsx")`, required: true},
		param{name: "path", typ: "string", desc: "The directory to search in. Defaults to the current working directory. Must be a valid directory path if provided"},
		param{name: "limit", typ: "number", desc: "Maximum number of results to return (default: 1000). Use a smaller limit to save context space"},
		param{name: "noIgnore", typ: "boolean", desc: noIgnoreDesc},
	)
}

type globArgs struct {
	Pattern  string   `json:"pattern"`
	Path     string   `json:"path"`
	Limit    *float64 `json:"limit"`
	NoIgnore bool     `json:"noIgnore"`
}

type globHit struct {
	rel   string // relative to cwd, for the model
	mtime int64
}

func (Glob) Run(ctx context.Context, raw json.RawMessage, env Env) Result {
	started := time.Now()
	var a globArgs
	if r := decodeArgs("Glob", raw, &a); r != nil {
		return *r
	}
	if a.Pattern == "" {
		return missing("Glob", "pattern")
	}
	root, r := searchRoot(env, a.Path)
	if r != nil {
		return *r
	}
	pattern := filepath.ToSlash(a.Pattern)
	if filepath.IsAbs(a.Pattern) {
		rel, err := filepath.Rel(root, a.Pattern)
		if err != nil || strings.HasPrefix(rel, "..") {
			return fail("Access denied: %s is outside the search directory", store.QuoteInput(a.Pattern))
		}
		pattern = filepath.ToSlash(rel)
	}
	for _, seg := range strings.Split(pattern, "/") {
		if seg == ".." {
			return fail("Access denied: %s leaves the search directory", store.QuoteInput(a.Pattern))
		}
	}
	g, err := parseGlob(pattern)
	if err != nil {
		return fail("Invalid glob pattern: %s", a.Pattern)
	}
	start := filepath.Join(root, filepath.FromSlash(g.staticPrefix()))
	if _, err := os.Lstat(start); err == nil && !env.reaches(start) {
		// The pattern's folder part is a symlink out (link_out/**): the
		// walk would list what lies beyond the working directories.
		return fail("Access denied: %s leads outside the working directories", store.QuoteInput(a.Pattern))
	}
	var hits []globHit
	w := &walk{ignore: !a.NoIgnore, descend: func(rel string) bool {
		return ctx.Err() == nil && g.mayContain(relTo(root, start, rel))
	}}
	if w.ignore {
		var reachable bool
		if w.above, reachable = ignoredStart(root, start); !reachable {
			return ok("(no matches)" + noIgnoreHint)
		}
	}
	err = w.files(start, func(abs, rel string, d fs.DirEntry) error {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		if !g.match(relTo(root, start, rel)) || readDenied(env, abs) {
			return nil
		}
		var mtime int64
		if d.Type()&fs.ModeSymlink != 0 {
			// listed as the file it leads to, as Read would take it: a link
			// to a folder, to nothing, to itself or out of the working
			// directories names no file Read could open
			fi, err := os.Stat(abs)
			if err != nil || !fi.Mode().IsRegular() || !env.reaches(abs) {
				return nil
			}
			mtime = fi.ModTime().UnixNano()
		} else if fi, err := d.Info(); err == nil {
			mtime = fi.ModTime().UnixNano()
		}
		hits = append(hits, globHit{rel: display(env.Cwd, abs), mtime: mtime})
		return nil
	})
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		if ctx.Err() != nil {
			return fail("Aborted")
		}
		return fail("%s", err.Error())
	}
	sort.Slice(hits, func(i, j int) bool {
		if hits[i].mtime != hits[j].mtime {
			return hits[i].mtime > hits[j].mtime
		}
		return hits[i].rel < hits[j].rel
	})
	limit := count(a.Limit, globDefaultLimit)
	total := len(hits)
	if total > limit {
		hits = hits[:limit]
	}
	lines := make([]string, len(hits))
	for i, h := range hits {
		lines[i] = h.rel
	}
	out := strings.Join(lines, "\n")
	if total == 0 {
		out = "(no matches)"
		if w.skipped > 0 {
			out += noIgnoreHint
		}
	}
	if total > limit {
		out += fmt.Sprintf("\n\n[Showing %d of %d matches. Use limit parameter to see more.]", limit, total)
	}
	res := ok(out)
	res.Response = logfmt.Object{
		logfmt.F("filenames", lines),
		logfmt.F("durationMs", time.Since(started).Milliseconds()),
		logfmt.F("numFiles", len(lines)),
		logfmt.F("truncated", total > limit),
	}
	return res
}

// relTo turns a path relative to the walk's start into one relative to root.
func relTo(root, start, rel string) string {
	if start == root {
		return rel
	}
	prefix, _ := filepath.Rel(root, start)
	return filepath.ToSlash(prefix) + "/" + rel
}

// searchRoot resolves the folder a search starts in: cwd, or p inside a
// working directory.
func searchRoot(env Env, p string) (string, *Result) {
	if p == "" {
		return env.Cwd, nil
	}
	root, denied := resolvePath(env, p)
	if denied != nil {
		return "", denied
	}
	if _, err := os.Stat(root); err != nil {
		r := fail("Path not found: %s", p)
		return "", &r
	}
	return root, nil
}
