//go:build linux || darwin

package main_test

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"unicode"
)

// columns is how many columns a terminal gives s, counted here apart from
// trail's own table: CJK, kana, Hangul, fullwidth forms and pictographic
// emoji take two, combining marks and ZWJ none, escape sequences none.
func columns(s string) int {
	s = regexp.MustCompile(`\x1b\[[0-9;?]*[A-Za-z]`).ReplaceAllString(s, "")
	n := 0
	for _, r := range s {
		switch {
		case unicode.In(r, unicode.Mn, unicode.Me, unicode.Cf):
		case unicode.In(r, unicode.Han, unicode.Hiragana, unicode.Katakana, unicode.Hangul),
			r >= 0x3000 && r <= 0x303F, r >= 0xFF01 && r <= 0xFF60,
			r >= 0x1F300 && r <= 0x1FAFF:
			n += 2
		default:
			n++
		}
	}
	return n
}

// terminalLines are the lines a terminal was sent, without their \r\n.
func terminalLines(out string) []string {
	return strings.Split(strings.TrimRight(strings.ReplaceAll(out, "\r\n", "\n"), "\n"), "\n")
}

// `trail list` with CJK names, prompts and cwd, a ZWJ emoji and combining
// marks: every row fits the terminal, on 80 columns and on 20, where the
// table drops columns rather than wrap.
func TestListWithWideCharactersFitsTheTerminal(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.cwd = filepath.Join(e.cwd, "projects", "日本語プロジェクト")
	if err := os.MkdirAll(e.cwd, 0o755); err != nil {
		t.Fatal(err)
	}
	e.must("", "run", "--provider", "echo", "--name", "日本語のセッション名前テスト用の長い名前です", "x")
	e.must("", "run", "--provider", "echo", "这是一个非常长的中文提示，用来测试列表的宽度计算是否正确处理全角字符的显示宽度问题")
	e.must("", "run", "--provider", "echo", "--name", "emoji 👨\u200d👩\u200d👧\u200d👦🎉🚀 party", "x")
	e.must("", "run", "--provider", "echo", "--name", "cafe\u0301 e\u0301e\u0301e\u0301 combining", "x")
	for _, cols := range []int{80, 20} {
		e.cols = cols
		code, out := e.startOnTerminal("list").wait()
		lines := terminalLines(out)
		if code != 0 || len(lines) != 5 {
			t.Fatalf("%d columns: exit %d, %d lines:\n%s", cols, code, len(lines), out)
		}
		for _, l := range lines {
			if n := columns(l); n >= cols {
				t.Errorf("%d columns: a row of %d columns wraps: %q", cols, n, l)
			}
		}
		name := strings.Index(lines[0], "NAME")
		for _, l := range lines[1:] {
			if !regexp.MustCompile(`^[0-9a-f]{6}  `).MatchString(l) || columns(l[:name]) != name {
				t.Errorf("%d columns: the name is not under NAME: %q", cols, l)
			}
		}
		t.Logf("%d columns:\n%s", cols, out)
	}
}
