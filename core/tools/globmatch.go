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

// matchSegs reports whether segs match pat segment by segment, "**"
// standing for any number of segments. A pattern is untrusted (the model
// writes it, and a walk runs it on every file), so the cost must not depend
// on how the "**"s could be placed: the answer for each (pattern position,
// path position) pair is worked out once, from the ends backwards, which
// bounds a match to len(pat)×len(segs) segment tests. (Trying every
// placement instead took seconds for "**/a/" eight times against a deep path.)
func matchSegs(pat, segs []string) bool {
	if !hasDoubleStar(pat) {
		return matchFixed(pat, segs)
	}
	n := len(segs)
	// next[j]: pat[i+1:] matches segs[j:]; cur[j]: pat[i:] matches segs[j:].
	buf := make([]bool, 2*(n+1))
	next, cur := buf[:n+1], buf[n+1:]
	next[n] = true
	for i := len(pat) - 1; i >= 0; i-- {
		if pat[i] == "**" {
			cur[n] = next[n]
			for j := n - 1; j >= 0; j-- {
				cur[j] = next[j] || cur[j+1]
			}
		} else {
			cur[n] = false
			for j := n - 1; j >= 0; j-- {
				cur[j] = next[j+1] && segMatch(pat[i], segs[j])
			}
		}
		next, cur = cur, next
	}
	return next[0]
}

// matchFixed matches a pattern without "**": one segment for one segment.
func matchFixed(pat, segs []string) bool {
	if len(pat) != len(segs) {
		return false
	}
	for i := range pat {
		if !segMatch(pat[i], segs[i]) {
			return false
		}
	}
	return true
}

func hasDoubleStar(pat []string) bool {
	for _, p := range pat {
		if p == "**" {
			return true
		}
	}
	return false
}

// segMatch is path.Match on one segment (parseGlob rejected bad patterns);
// path.Match itself runs in time linear in pattern × name.
func segMatch(pat, seg string) bool {
	ok, _ := path.Match(pat, seg)
	return ok
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
		if !segMatch(pat[0], segs[0]) {
			return false
		}
		pat, segs = pat[1:], segs[1:]
	}
	return len(pat) > 0
}
