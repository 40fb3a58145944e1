package tools

import (
	"path"
	"strings"
	"testing"
	"time"
)

// backtrackMatchSegs is the matcher trail used before: it tries every
// placement of every "**", which is exponential in their number. It is the
// reference the fuzz target compares against, on inputs small enough for it.
func backtrackMatchSegs(pat, segs []string) bool {
	for len(pat) > 0 {
		if pat[0] == "**" {
			rest := pat[1:]
			for i := 0; i <= len(segs); i++ {
				if backtrackMatchSegs(rest, segs[i:]) {
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

func TestGlobMatch(t *testing.T) {
	tests := []struct {
		pattern, path string
		want          bool
	}{
		{"*.go", "a.go", true},
		{"*.go", "sub/a.go", false},
		{"**/*.go", "a.go", true},
		{"**/*.go", "sub/deep/a.go", true},
		{"sub/**", "sub/a/b", true},
		{"sub/**", "sub", true},
		{"sub/**/x", "sub/x", true},
		{"sub/**/x", "sub/a/b/x", true},
		{"sub/**/x", "other/a/x", false},
		{"**", "", true},
		{"a/**/**/b", "a/b", true},
		{"a/**/b/**/c", "a/x/b/y/c", true},
		{"a/**/b/**/c", "a/x/c/y/b", false},
		{"?.txt", "ab.txt", false},
		{"[ab].txt", "b.txt", true},
		{"*.{go,md}", "README.md", true},
		{"**/a/**/a/**/a/b", "a/a/a/a/a/b", true},
		{"**/a/**/a/**/a/b", "a/a/x/b", false},
	}
	for _, tt := range tests {
		g, err := parseGlob(tt.pattern)
		if err != nil {
			t.Fatalf("%s: %v", tt.pattern, err)
		}
		if got := g.match(tt.path); got != tt.want {
			t.Errorf("%q against %q = %v, want %v", tt.pattern, tt.path, got, tt.want)
		}
	}
}

// pathological is "**/a/" n times (then "b") against a path of depth
// folders named a: every "**" can take any number of them, so a matcher
// that tries the placements one by one does exponential work before it
// learns that the last segment never matches.
func pathological(n, depth int) (*globPattern, string) {
	g, err := parseGlob(strings.Repeat("**/a/", n) + "b")
	if err != nil {
		panic(err)
	}
	return g, strings.Repeat("a/", depth) + "c"
}

// BenchmarkGlobPathological: "**/a/" eight times against a 40-deep path.
// The backtracking matcher took about 5 s per match; this one takes
// microseconds.
func BenchmarkGlobPathological(b *testing.B) {
	g, p := pathological(8, 40)
	for b.Loop() {
		if g.match(p) {
			b.Fatal("matched")
		}
	}
}

// maxStarsForReference keeps the exponential reference to inputs it
// finishes quickly.
const maxStarsForReference = 4

// FuzzGlobMatch compares the matcher with the backtracking reference and
// fails when one match takes more than 100 ms: the bound is what keeps a
// model's pattern from hanging a walk that runs it on every file.
func FuzzGlobMatch(f *testing.F) {
	f.Add("**/*.go", "sub/deep/a.go")
	f.Add("sub/**/x", "sub/x")
	f.Add("a/**/b/**/c", "a/x/c/y/b")
	f.Add("*.{go,md}", "README.md")
	f.Add("[!a]?/**", "bc/d")
	f.Add(strings.Repeat("**/a/", 8)+"b", strings.Repeat("a/", 40)+"c")
	f.Add(strings.Repeat("**/a*/", 12), strings.Repeat("aaaa/", 60))
	f.Add(strings.Repeat("a*", 40)+"b", strings.Repeat("a", 4000))
	f.Fuzz(func(t *testing.T, pattern, rel string) {
		g, err := parseGlob(pattern)
		if err != nil {
			return
		}
		start := time.Now()
		got := g.match(rel)
		if d := time.Since(start); d > 100*time.Millisecond {
			t.Fatalf("%q against a %d-byte path took %v", pattern, len(rel), d)
		}
		segs := splitSegments(rel)
		for _, a := range g.alts {
			stars := 0
			for _, s := range a {
				if s == "**" {
					stars++
				}
			}
			if stars > maxStarsForReference || len(segs) > 16 {
				return
			}
		}
		want := false
		for _, a := range g.alts {
			want = want || backtrackMatchSegs(a, segs)
		}
		if got != want {
			t.Fatalf("%q against %q = %v, the reference says %v", pattern, rel, got, want)
		}
	})
}
