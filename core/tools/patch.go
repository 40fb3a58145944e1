package tools

import (
	"strings"

	"trail/logfmt"
)

// The structuredPatch of an Edit's or Write's tool_response: the change as
// line hunks in jsdiff's shape, which Claude Code sends and hooks read
// (.tool_response.structuredPatch[0].newStart to jump to the change):
//
//	{"oldStart":1,"oldLines":1,"newStart":1,"newLines":1,"lines":["-a","+b"]}
//
// Lines carry no newline; each starts with ' ' (context), '-' or '+'. A
// last line without its newline is followed by "\ No newline at end of
// file", as jsdiff and diff(1) write it, so adding or dropping the final
// newline is a change too. Hunks keep three lines of context, as unified
// diffs do.

const (
	patchContext = 3
	// patchMaxEdits bounds the diff's work (Myers' D): past it the changed
	// middle is one hunk, every old line out and every new line in. Still
	// a true patch, only not the shortest, and never quadratic in a file
	// rewritten from top to bottom.
	patchMaxEdits = 1000
)

type lineOp struct {
	kind byte // ' ', '-' or '+'
	text string
}

// structuredPatch is the hunks that turn before into after, [] when the
// two are the same.
func structuredPatch(before, after string) []any {
	ops := diffLines(splitLines(before), splitLines(after))
	hunks := []any{}
	for i := 0; i < len(ops); {
		if ops[i].kind == ' ' {
			i++
			continue
		}
		// A hunk starts patchContext lines before its first change and runs
		// until a stretch of more than 2*patchContext unchanged lines.
		start := max(0, i-patchContext)
		end := i
		for j := i; j < len(ops); j++ {
			if ops[j].kind != ' ' {
				end = j + 1
				continue
			}
			if j-end >= 2*patchContext {
				break
			}
		}
		stop := min(len(ops), end+patchContext)
		hunks = append(hunks, hunkObject(ops, start, stop))
		i = stop
	}
	return hunks
}

// hunkObject renders ops[start:stop] with the line numbers it starts at.
func hunkObject(ops []lineOp, start, stop int) logfmt.Object {
	oldStart, newStart := 1, 1
	for _, op := range ops[:start] {
		if op.kind != '+' {
			oldStart++
		}
		if op.kind != '-' {
			newStart++
		}
	}
	oldLines, newLines := 0, 0
	lines := make([]string, 0, stop-start)
	for _, op := range ops[start:stop] {
		if op.kind != '+' {
			oldLines++
		}
		if op.kind != '-' {
			newLines++
		}
		text, noEOL := strings.CutSuffix(op.text, noEOLMark)
		lines = append(lines, string(op.kind)+text)
		if noEOL {
			lines = append(lines, `\ No newline at end of file`)
		}
	}
	return logfmt.Object{
		logfmt.F("oldStart", oldStart),
		logfmt.F("oldLines", oldLines),
		logfmt.F("newStart", newStart),
		logfmt.F("newLines", newLines),
		logfmt.F("lines", lines),
	}
}

// splitLines cuts text at newlines; a final newline ends the last line
// rather than starting an empty one. A last line without one carries
// noEOLMark, so it differs from the same text with its newline.
func splitLines(s string) []string {
	if s == "" {
		return nil
	}
	lines := strings.Split(strings.TrimSuffix(s, "\n"), "\n")
	if !strings.HasSuffix(s, "\n") {
		lines[len(lines)-1] += noEOLMark
	}
	return lines
}

// noEOLMark ends a last line that has no newline: bytes no text line holds.
const noEOLMark = "\x00\x00no newline"

// diffLines is the line edit script from a to b: the common head and tail
// as they are, the middle by Myers' algorithm.
func diffLines(a, b []string) []lineOp {
	head := 0
	for head < len(a) && head < len(b) && a[head] == b[head] {
		head++
	}
	tail := 0
	for tail < len(a)-head && tail < len(b)-head && a[len(a)-1-tail] == b[len(b)-1-tail] {
		tail++
	}
	ops := make([]lineOp, 0, len(a)+len(b)-head-tail)
	for _, l := range a[:head] {
		ops = append(ops, lineOp{' ', l})
	}
	ops = append(ops, myers(a[head:len(a)-tail], b[head:len(b)-tail])...)
	for _, l := range a[len(a)-tail:] {
		ops = append(ops, lineOp{' ', l})
	}
	return ops
}

// myers finds a shortest edit script (Myers 1986), keeping each round's
// frontier to walk it back; past patchMaxEdits rounds it gives up on
// shortest and replaces the whole stretch.
func myers(a, b []string) []lineOp {
	n, m := len(a), len(b)
	if n == 0 || m == 0 {
		return replaceAll(a, b)
	}
	maxD := min(n+m, patchMaxEdits)
	off := maxD + 1
	v := make([]int, 2*maxD+3)
	var trace [][]int
	for d := 0; d <= maxD; d++ {
		// Round d reads k±1 for |k| <= d: keep only that window.
		trace = append(trace, append([]int(nil), v[off-d-1:off+d+2]...))
		for k := -d; k <= d; k += 2 {
			var x int
			if k == -d || (k != d && v[off+k-1] < v[off+k+1]) {
				x = v[off+k+1] // down: an insertion
			} else {
				x = v[off+k-1] + 1 // right: a deletion
			}
			y := x - k
			for x < n && y < m && a[x] == b[y] {
				x, y = x+1, y+1
			}
			v[off+k] = x
			if x >= n && y >= m {
				return backtrack(a, b, trace, d)
			}
		}
	}
	return replaceAll(a, b)
}

// backtrack walks the frontiers from the end back to the start, collecting
// the script in reverse.
func backtrack(a, b []string, trace [][]int, d int) []lineOp {
	x, y := len(a), len(b)
	var rev []lineOp
	for ; d > 0; d-- {
		w, base := trace[d], d+1 // w[base+k] is the frontier's x on diagonal k
		k := x - y
		var prevK int
		if k == -d || (k != d && w[base+k-1] < w[base+k+1]) {
			prevK = k + 1
		} else {
			prevK = k - 1
		}
		prevX := w[base+prevK]
		prevY := prevX - prevK
		for x > prevX && y > prevY {
			x, y = x-1, y-1
			rev = append(rev, lineOp{' ', a[x]})
		}
		if x == prevX {
			y--
			rev = append(rev, lineOp{'+', b[y]})
		} else {
			x--
			rev = append(rev, lineOp{'-', a[x]})
		}
	}
	for x > 0 && y > 0 {
		x, y = x-1, y-1
		rev = append(rev, lineOp{' ', a[x]})
	}
	ops := make([]lineOp, len(rev))
	for i, op := range rev {
		ops[len(rev)-1-i] = op
	}
	return ops
}

func replaceAll(a, b []string) []lineOp {
	ops := make([]lineOp, 0, len(a)+len(b))
	for _, l := range a {
		ops = append(ops, lineOp{'-', l})
	}
	for _, l := range b {
		ops = append(ops, lineOp{'+', l})
	}
	return ops
}
