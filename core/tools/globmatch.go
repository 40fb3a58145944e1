package tools

import (
	"errors"
	"path"
	"strings"
)

// globPattern is a parsed file glob: "/"-separated segments where "**"
// matches any number of folders (zero included) and every other segment is a
// path.Match pattern (*, ?, [...]). Braces {a,b} expand into alternatives.
type globPattern struct {
	alts [][]string
}

var errBadGlob = errors.New("invalid glob pattern")

func parseGlob(p string) (*globPattern, error) {
	if p == "" {
		return nil, errBadGlob
	}
	expanded, err := expandBraces(p, 0)
	if err != nil {
		return nil, err
	}
	g := &globPattern{}
	for _, e := range expanded {
		segs := splitSegments(e)
		for _, s := range segs {
			if s == "**" {
				continue
			}
			if _, err := path.Match(s, ""); err != nil {
				return nil, errBadGlob
			}
		}
		g.alts = append(g.alts, segs)
	}
	return g, nil
}

func splitSegments(p string) []string {
	var out []string
	for _, s := range strings.Split(p, "/") {
		if s != "" && s != "." {
			out = append(out, s)
		}
	}
	return out
}

// maxBraceAlternatives bounds {a,b}{c,d}... expansion so a hostile pattern
// cannot blow up memory.
const maxBraceAlternatives = 256

func expandBraces(p string, depth int) ([]string, error) {
	open := strings.IndexByte(p, '{')
	if open < 0 {
		return []string{p}, nil
	}
	if depth > 8 {
		return nil, errBadGlob
	}
	level, close := 0, -1
	var commas []int
	for i := open; i < len(p); i++ {
		switch p[i] {
		case '{':
			level++
		case '}':
			level--
			if level == 0 {
				close = i
			}
		case ',':
			if level == 1 {
				commas = append(commas, i)
			}
		}
		if close >= 0 {
			break
		}
	}
	if close < 0 {
		return nil, errBadGlob
	}
	if len(commas) == 0 {
		// "{x}" is literal in most globs; keep it so.
		rest, err := expandBraces(p[close+1:], depth)
		if err != nil {
			return nil, err
		}
		out := make([]string, len(rest))
		for i, r := range rest {
			out[i] = p[:close+1] + r
		}
		return out, nil
	}
	var parts []string
	start := open + 1
	for _, c := range commas {
		parts = append(parts, p[start:c])
		start = c + 1
	}
	parts = append(parts, p[start:close])
	var out []string
	for _, part := range parts {
		sub, err := expandBraces(p[:open]+part+p[close+1:], depth+1)
		if err != nil {
			return nil, err
		}
		out = append(out, sub...)
		if len(out) > maxBraceAlternatives {
			return nil, errBadGlob
		}
	}
	return out, nil
}

// match reports whether rel (a "/"-separated path relative to the search
// root) matches the pattern.
func (g *globPattern) match(rel string) bool {
	segs := splitSegments(rel)
	for _, a := range g.alts {
		if matchSegs(a, segs) {
			return true
		}
	}
	return false
}

// mayContain reports whether something below the folder dir could match, so
// the walk skips folders no pattern can reach.
func (g *globPattern) mayContain(dir string) bool {
	segs := splitSegments(dir)
	for _, a := range g.alts {
		if prefixSegs(a, segs) {
			return true
		}
	}
	return false
}

// staticPrefix is the leading folders every alternative shares with no
// wildcard in them: the walk can start there.
func (g *globPattern) staticPrefix() string {
	var common []string
	for i, a := range g.alts {
		var lit []string
		for _, s := range a[:max(len(a)-1, 0)] {
			if s == "**" || strings.ContainsAny(s, "*?[\\") {
				break
			}
			lit = append(lit, s)
		}
		if i == 0 {
			common = lit
			continue
		}
		n := 0
		for n < len(common) && n < len(lit) && common[n] == lit[n] {
			n++
		}
		common = common[:n]
	}
	return strings.Join(common, "/")
}

func matchSegs(pat, segs []string) bool {
	for len(pat) > 0 {
		if pat[0] == "**" {
			rest := pat[1:]
			for i := 0; i <= len(segs); i++ {
				if matchSegs(rest, segs[i:]) {
					return true
				}
			}
			return false
		}
		if len(segs) == 0 {
			return false
		}
		if ok, _ := path.Match(pat[0], segs[0]); !ok {
			return false
		}
		pat, segs = pat[1:], segs[1:]
	}
	return len(segs) == 0
}

// prefixSegs: can segs be the leading folders of a path matching pat?
func prefixSegs(pat, segs []string) bool {
	for len(segs) > 0 {
		if len(pat) == 0 {
			return false
		}
		if pat[0] == "**" {
			return true
		}
		if ok, _ := path.Match(pat[0], segs[0]); !ok {
			return false
		}
		pat, segs = pat[1:], segs[1:]
	}
	return len(pat) > 0
}
