package commands

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func TestDisplayWidthCountsColumnsNotRunes(t *testing.T) {
	tests := []struct {
		name string
		s    string
		want int
	}{
		{"ASCII", "hello world", 11},
		{"empty", "", 0},
		{"Latin with precomposed accents", "café", 4},
		{"a combining acute takes no column", "cafe\u0301", 4},
		{"several combining marks", "e\u0301e\u0301e\u0301", 3},
		{"CJK ideographs take two", "日本語", 6},
		{"kana", "プロジェクト", 12},
		{"Hangul syllables", "한국어", 6},
		{"fullwidth forms", "ＡＢＣ１", 8},
		{"the ideographic full stop", "。", 2},
		{"CJK extension B", "\U00020000", 2},
		{"an emoji", "🚀", 2},
		{"emoji with a presentation of their own", "🎉⌚⭐", 6},
		{"ZWJ joins without a column: each emoji of a family counts", "👨\u200d👩\u200d👧\u200d👦", 8},
		{"a variation selector takes none", "☕\ufe0f", 2},
		{"text-presentation symbol stays narrow", "☺", 1},
		{"a skin tone modifier counts as the emoji it is", "👍🏽", 4},
		{"a zero width space", "a\u200bb", 2},
		{"Hangul jamo: the leading consonant is wide, the vowel and final none", "\u1100\u1161\u11a8", 2},
		{"box drawing and the ellipsis are narrow", "│…✓", 3},
		{"East Asian Ambiguous is narrow", "αβ±", 3},
		{"mixed", "emoji 👨\u200d👩\u200d👧\u200d👦🎉🚀 party", 6 + 8 + 4 + 6},
		{"the probe's cwd", "~/projects/日本語プロジェクト", 11 + 18},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := displayWidth(tt.s); got != tt.want {
				t.Errorf("displayWidth(%q) = %d, want %d (runes: %d)", tt.s, got, tt.want, utf8.RuneCountInString(tt.s))
			}
		})
	}
}

// The wide table is sorted and its ranges do not overlap: the binary
// search relies on it.
func TestWideRangesAreSorted(t *testing.T) {
	for i, r := range wide {
		if r[0] > r[1] || i > 0 && r[0] <= wide[i-1][1] {
			t.Fatalf("range %d %X..%X is out of order", i, r[0], r[1])
		}
	}
}

func TestCutsFitTheColumnsAndKeepClustersWhole(t *testing.T) {
	tests := []struct {
		name, s string
		w       int
		end     string // cutEnd
		middle  string // cutMiddle
	}{
		{"fits", "abc", 3, "abc", "abc"},
		{"ASCII", "abcdefghij", 5, "abcd…", "ab…ij"},
		{"wide characters", "日本語のセッション", 7, "日本語…", "日…ョン"},
		{"a wide character straddling the limit is left out", "日本語のセッション", 6, "日本…", "日…ン"},
		{"combining marks stay with their letter", "e\u0301e\u0301e\u0301e\u0301e\u0301", 3, "e\u0301e\u0301…", "e\u0301…e\u0301"},
		{"a ZWJ sequence is not split", "👨\u200d👩\u200d👧 family", 6, "…", "…amily"},
		{"a ZWJ sequence that fits stays whole", "👨\u200d👩\u200d👧 family", 7, "👨\u200d👩\u200d👧…", "…family"},
		{"a flag is not split", "🇯🇵🇫🇷 flags", 4, "🇯🇵…", "…ags"},
		{"one column", "日本", 1, "…", "…"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := cutEnd(tt.s, tt.w); got != tt.end {
				t.Errorf("cutEnd(%q, %d) = %q, want %q", tt.s, tt.w, got, tt.end)
			}
			if got := cutMiddle(tt.s, tt.w); got != tt.middle {
				t.Errorf("cutMiddle(%q, %d) = %q, want %q", tt.s, tt.w, got, tt.middle)
			}
		})
	}
}

// Whatever the text and the width, a cut takes at most the columns asked
// for and starts (cutEnd) with whole clusters of the text.
func TestCutsNeverExceedTheirWidth(t *testing.T) {
	texts := []string{
		"这是一个非常长的中文提示，用来测试列表的宽度计算是否正确处理全角字符的显示宽度问题",
		"emoji 👨\u200d👩\u200d👧\u200d👦🎉🚀 party",
		"cafe\u0301 e\u0301e\u0301e\u0301 combining",
		"~/projects/日本語プロジェクト",
		"🇯🇵🇫🇷🇩🇪👍🏽☕\ufe0f",
	}
	for _, s := range texts {
		for w := 1; w <= displayWidth(s)+1; w++ {
			for name, cut := range map[string]func(string, int) string{"cutEnd": cutEnd, "cutMiddle": cutMiddle, "cutTo": cutTo} {
				got := cut(s, w)
				if displayWidth(got) > w {
					t.Errorf("%s(%q, %d) = %q takes %d columns", name, s, w, got, displayWidth(got))
				}
				if name != "cutMiddle" && !strings.HasPrefix(s, strings.TrimSuffix(got, "…")) {
					t.Errorf("%s(%q, %d) = %q is not a start of the text", name, s, w, got)
				}
			}
		}
	}
}
