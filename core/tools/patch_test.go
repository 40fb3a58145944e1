package tools

import (
	"encoding/json"
	"math/rand/v2"
	"strings"
	"testing"

	"trail/logfmt"
)

type testHunk struct {
	OldStart, OldLines, NewStart, NewLines int
	Lines                                  []string
}

func hunksOf(t *testing.T, patch []any) []testHunk {
	t.Helper()
	raw, err := logfmt.Marshal(patch)
	if err != nil {
		t.Fatal(err)
	}
	var hs []testHunk
	if err := json.Unmarshal(raw, &hs); err != nil {
		t.Fatal(err)
	}
	return hs
}

// The hunk Claude Code sends for a one-word Edit (agent-verification-kit's
// captured payload): one line out, one in, at line 1.
func TestStructuredPatchOfAnEdit(t *testing.T) {
	got := hunksOf(t, structuredPatch("hello world\n", "hello there\n"))
	if len(got) != 1 || got[0].OldStart != 1 || got[0].OldLines != 1 || got[0].NewStart != 1 || got[0].NewLines != 1 ||
		strings.Join(got[0].Lines, "|") != "-hello world|+hello there" {
		t.Fatalf("got %+v", got)
	}
	lines := "a\nb\nc\nd\ne\nf\ng\nh\ni\nj\nk\nl\nm\n"
	got = hunksOf(t, structuredPatch(lines, strings.Replace(strings.Replace(lines, "b\n", "B\n", 1), "l\n", "", 1)))
	if len(got) != 2 {
		t.Fatalf("two changes nine lines apart are two hunks: %+v", got)
	}
	if h := got[1]; h.OldStart != 9 || h.OldLines != 5 || h.NewStart != 9 || h.NewLines != 4 || h.Lines[3] != "-l" {
		t.Fatalf("second hunk %+v", h)
	}
	if got := structuredPatch(lines, lines); len(got) != 0 {
		t.Fatalf("no change, hunks %+v", got)
	}
	// The final newline is part of the text, as jsdiff and diff(1) say.
	got = hunksOf(t, structuredPatch("a\nb", "a\nb\n"))
	if len(got) != 1 || strings.Join(got[0].Lines, "|") != ` a|-b|\ No newline at end of file|+b` || got[0].OldLines != 2 || got[0].NewLines != 2 {
		t.Fatalf("adding the final newline: %+v", got)
	}
}

func jsonNum(n ...int) string {
	raw, _ := json.Marshal(n)
	return string(raw)
}

// Every patch, applied to the old text, gives the new one, and its hunks
// count their lines right: random edits of random files.
func TestStructuredPatchApplies(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for i := range 2000 {
		before := randomLines(r, r.IntN(30))
		after := mutate(r, before)
		hs := hunksOf(t, structuredPatch(strings.Join(before, ""), strings.Join(after, "")))
		got := apply(t, trimNL(before), hs)
		if strings.Join(got, "|") != strings.Join(trimNL(after), "|") {
			t.Fatalf("case %d: %q -> %q: patch %+v gives %q", i, before, after, hs, got)
		}
	}
}

// A file rewritten from top to bottom past the diff's budget is still a
// true patch.
func TestStructuredPatchPastTheBudget(t *testing.T) {
	var a, b []string
	for i := range 3000 {
		a = append(a, "old "+jsonNum(i)+"\n")
		b = append(b, "new "+jsonNum(i)+"\n")
	}
	hs := hunksOf(t, structuredPatch(strings.Join(a, ""), strings.Join(b, "")))
	if got := apply(t, trimNL(a), hs); strings.Join(got, "|") != strings.Join(trimNL(b), "|") {
		t.Fatal("the fallback patch does not apply")
	}
}

func randomLines(r *rand.Rand, n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = string(rune('a'+r.IntN(4))) + "\n"
	}
	return out
}

func mutate(r *rand.Rand, in []string) []string {
	out := append([]string(nil), in...)
	for range r.IntN(6) {
		switch p := r.IntN(len(out) + 1); r.IntN(3) {
		case 0:
			out = append(out[:p], append([]string{string(rune('a'+r.IntN(6))) + "\n"}, out[p:]...)...)
		case 1:
			if p < len(out) {
				out = append(out[:p], out[p+1:]...)
			}
		default:
			if p < len(out) {
				out[p] = "x\n"
			}
		}
	}
	return out
}

func trimNL(ls []string) []string {
	out := make([]string, len(ls))
	for i, l := range ls {
		out[i] = strings.TrimSuffix(l, "\n")
	}
	return out
}

// apply runs hunks over old lines as patch(1) would, checking each hunk's
// context and counts.
func apply(t *testing.T, old []string, hs []testHunk) []string {
	t.Helper()
	var out []string
	pos := 0 // next old line (0-based)
	for _, h := range hs {
		start := h.OldStart - 1
		if start < pos {
			t.Fatalf("hunks overlap or go back: %+v", hs)
		}
		out = append(out, old[pos:start]...)
		pos = start
		oldN, newN := 0, 0
		for _, l := range h.Lines {
			switch l[0] {
			case '\\':
				continue // "\ No newline at end of file"
			case ' ', '-':
				if pos >= len(old) || old[pos] != l[1:] {
					t.Fatalf("hunk %+v: line %q does not match old line %d", h, l, pos+1)
				}
				if l[0] == ' ' {
					out = append(out, l[1:])
					newN++
				}
				pos++
				oldN++
			case '+':
				out = append(out, l[1:])
				newN++
			}
		}
		if oldN != h.OldLines || newN != h.NewLines || h.NewStart-1 != len(out)-newN {
			t.Fatalf("hunk %+v counts %d/%d lines", h, oldN, newN)
		}
	}
	return append(out, old[pos:]...)
}
