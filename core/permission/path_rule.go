package permission

// Path rules (Read, Edit, Write) follow Claude Code's documentation: the
// pattern is a gitignore pattern, anchored by its first characters:
//
//	//path   from the filesystem root          Read(//etc/passwd)
//	~/path   from the home folder              Read(~/.ssh/**)
//	/path    from the settings source's root   Edit(/src/**): <project>/src in a
//	         project's .claude or .trail settings; the folder of any other
//	         settings file; the working directory for flags
//	path     from the working directory        Read(.env), Read(./src/**)
//
// A relative pattern with no "/" but a trailing one matches at any depth
// below its anchor (Read(.env) is Read(**/.env)); one with a "/" inside is
// anchored. A single folder segment followed by /** (src/**) is anchored
// for allow rules and matches at any depth for deny and ask rules, so a
// deny Edit(src/**) covers vendor/pkg/src too. "*" and "?" stay within one
// path segment, "**" crosses them, [a-z] is a class. A pattern that names
// a folder covers everything inside it. Nothing outside the anchor ever
// matches: Read(.env) does not reach a parent's .env.

import (
	"path/filepath"
	"regexp"
	"strings"

	"trail/lazy"
)

type anchorKind int

const (
	anchorCwd   anchorKind = iota // the policy's working directory
	anchorHome                    // the user's home folder
	anchorFixed                   // base: the filesystem root or a settings source
)

// pathPattern is a compiled path rule.
type pathPattern struct {
	anchor anchorKind
	base   string
	re     *regexp.Regexp // matches a slash-separated path relative to the anchor
}

// compilePath compiles a path rule's pattern. deny is true for deny and
// ask rules (single-segment folder patterns match at any depth for them).
// sourceRoot anchors "/path" patterns.
func compilePath(pattern string, deny bool, sourceRoot string) (*pathPattern, error) {
	pp := &pathPattern{anchor: anchorCwd}
	p := pattern
	anchored := false
	switch {
	case strings.HasPrefix(p, "//"):
		pp.anchor, pp.base, p, anchored = anchorFixed, "/", p[2:], true
	case p == "~" || strings.HasPrefix(p, "~/"):
		pp.anchor, p, anchored = anchorHome, strings.TrimPrefix(strings.TrimPrefix(p, "~"), "/"), true
	case strings.HasPrefix(p, "/"):
		pp.anchor, pp.base, p, anchored = anchorFixed, sourceRoot, p[1:], true
		if sourceRoot == "" {
			pp.anchor = anchorCwd
		}
	default:
		// "./x" is x in the working directory itself (Claude Code's
		// "relative to the current directory"), not x at any depth as a
		// bare name is: Edit(./config.json) must not allow every
		// config.json below.
		for strings.HasPrefix(p, "./") {
			p, anchored = p[2:], true
		}
	}
	p = strings.TrimSuffix(p, "/")
	if p == "" || p == "." {
		p = "**"
	}
	if !anchored {
		switch {
		case !strings.Contains(p, "/"):
			p = "**/" + p
		case deny && singleFolder.Get().MatchString(p):
			p = "**/" + p
		}
	}
	re, err := regexp.Compile(gitignoreRegexp(p, true))
	if err != nil {
		// A bracket that is not a valid class is taken literally.
		re, err = regexp.Compile(gitignoreRegexp(p, false))
	}
	if err != nil {
		return nil, err
	}
	pp.re = re
	return pp, nil
}

// singleFolder: one folder name followed by /** (src/**).
var singleFolder = lazy.Regexp{Expr: `^[^/*?\[]+/\*\*$`}

// gitignoreRegexp turns a gitignore pattern into an anchored expression
// over slash-separated relative paths.
func gitignoreRegexp(p string, classes bool) string {
	var b strings.Builder
	b.WriteString(`^`)
	for i := 0; i < len(p); {
		switch {
		case strings.HasPrefix(p[i:], "**/"):
			b.WriteString(`(?:.*/)?`)
			i += 3
		case strings.HasPrefix(p[i:], "/**") && i+3 == len(p):
			b.WriteString(`/.*`)
			i += 3
		case strings.HasPrefix(p[i:], "**"):
			b.WriteString(`.*`)
			i += 2
		case p[i] == '*':
			b.WriteString(`[^/]*`)
			i++
		case p[i] == '?':
			b.WriteString(`[^/]`)
			i++
		case p[i] == '\\' && i+1 < len(p):
			b.WriteString(regexp.QuoteMeta(p[i+1 : i+2]))
			i += 2
		case p[i] == '[' && classes:
			j := strings.IndexByte(p[i+1:], ']')
			if j <= 0 {
				b.WriteString(`\[`)
				i++
				continue
			}
			class := p[i+1 : i+1+j]
			if strings.HasPrefix(class, "!") {
				class = "^" + class[1:]
			}
			b.WriteString("[" + strings.ReplaceAll(class, `\`, `\\`) + "]")
			i += j + 2
		default:
			j := i + 1
			for j < len(p) && !strings.ContainsRune(`*?\[`, rune(p[j])) {
				j++
			}
			b.WriteString(regexp.QuoteMeta(p[i:j]))
			i = j
		}
	}
	b.WriteString(`$`)
	return b.String()
}

// baseFor is the folder the pattern is anchored at for a policy.
func (pp *pathPattern) baseFor(p *Policy) string {
	switch pp.anchor {
	case anchorHome:
		return p.Home
	case anchorFixed:
		return pp.base
	}
	return p.Cwd
}

// matchAbs reports whether the absolute path abs (or a folder holding it)
// matches, with base the anchor folder.
func (pp *pathPattern) matchAbs(base, abs string) bool {
	if base == "" {
		return false
	}
	rel, err := filepath.Rel(base, abs)
	if err != nil || rel == ".." || strings.HasPrefix(rel, "../") {
		return false
	}
	rel = filepath.ToSlash(rel)
	if rel == "." {
		return pp.re.MatchString("")
	}
	// The path itself, then each folder above it: a pattern naming a
	// folder covers what is inside.
	for end := 0; ; {
		next := strings.IndexByte(rel[end:], '/')
		if next < 0 {
			return pp.re.MatchString(rel)
		}
		end += next
		if pp.re.MatchString(rel[:end]) {
			return true
		}
		end++
	}
}

// pathForms are the absolute forms of a call's path: as written (made
// absolute against cwd and cleaned) and, when symlinks lead elsewhere, the
// file it really names.
func (p *Policy) pathForms(raw string) (lexical, real string) {
	abs := raw
	if !filepath.IsAbs(abs) && p.Cwd != "" {
		abs = filepath.Join(p.Cwd, abs)
	}
	abs = filepath.Clean(abs)
	real = abs
	if r, err := CanonicalPath(abs); err == nil {
		real = r
	}
	return abs, real
}

// matchPath applies a path rule to a path as a deny/ask rule (either the
// link or its target matches) or an allow rule (both must).
func (p *Policy) matchPath(pp *pathPattern, raw string, deny bool) bool {
	abs, real := p.pathForms(raw)
	base := pp.baseFor(p)
	realBase := base
	if rb, err := CanonicalPath(base); err == nil {
		realBase = rb
	}
	lex := pp.matchAbs(base, abs) || pp.matchAbs(realBase, abs)
	if real == abs {
		return lex
	}
	target := pp.matchAbs(realBase, real) || pp.matchAbs(base, real)
	if deny {
		return lex || target
	}
	return lex && target
}
