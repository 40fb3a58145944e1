package commands

import (
	"strings"
	"testing"
	"time"

	"trail/store"
)

// The probe's sessions: CJK names and prompts, a ZWJ emoji, combining
// marks, all in a CJK cwd. Counted in runes, each of these rows wrapped on
// 80 columns and the columns after the name did not line up.
func wideHeads(home string) []store.Head {
	cwd := home + "/projects/日本語プロジェクト"
	at := "2026-11-21T11:59:59.000Z"
	return []store.Head{
		{ID: "a1", Name: "日本語のセッション名前テスト用の長い名前です", Cwd: cwd, UpdatedAt: at, MessageCount: 2},
		{ID: "b2", FirstPrompt: "这是一个非常长的中文提示，用来测试列表的宽度计算是否正确处理全角字符的显示宽度问题", Cwd: cwd, UpdatedAt: at, MessageCount: 2},
		{ID: "c3", Name: "emoji 👨\u200d👩\u200d👧\u200d👦🎉🚀 party", Cwd: cwd, UpdatedAt: at, MessageCount: 2},
		{ID: "d4", Name: "cafe\u0301 e\u0301e\u0301e\u0301 combining", Cwd: cwd, UpdatedAt: at, MessageCount: 2},
		{ID: "e5", Name: "plain", Cwd: cwd, UpdatedAt: at, MessageCount: 12},
	}
}

func TestListTableFitsInDisplayColumns(t *testing.T) {
	now := time.Date(2026, 11, 21, 12, 0, 0, 0, time.UTC)
	short := map[string]string{"a1": "0193a1", "b2": "0193b2", "c3": "0193c3", "d4": "0193d4", "e5": "0193e5"}
	tests := []struct {
		width  int
		header string // the columns shown
	}{
		{200, "ID UPDATED STATUS MSGS NAME CWD"},
		{80, "ID UPDATED STATUS MSGS NAME CWD"},
		{60, "ID UPDATED STATUS MSGS NAME CWD"},
		{50, "ID UPDATED STATUS MSGS NAME"},
		{40, "ID UPDATED STATUS NAME"},
		{30, "ID STATUS NAME"},
		{20, "ID NAME"},
		{12, "ID"},
	}
	for _, tt := range tests {
		ios, _, out, _ := TestIO()
		ios.SetWidth(tt.width)
		d := testDeps(t, ios)
		home, _ := d.UserHome()
		o := &ListOptions{IO: ios, Deps: d}
		if err := writeHeadsTable(o, wideHeads(home), 5, short, now); err != nil {
			t.Fatal(err)
		}
		lines := strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n")
		if got := strings.Join(strings.Fields(lines[0]), " "); got != tt.header {
			t.Errorf("width %d: header %q, want %q", tt.width, got, tt.header)
		}
		nameAt := displayWidth(lines[0][:max(0, strings.Index(lines[0], "NAME"))])
		for _, l := range lines {
			if w := displayWidth(l); w >= tt.width {
				t.Errorf("width %d: a row of %d columns (the last one stays free): %q", tt.width, w, l)
			}
		}
		for i, l := range lines[1:] {
			if !strings.HasPrefix(l, short[wideHeads(home)[i].ID]) {
				t.Errorf("width %d: the row does not start with its id: %q", tt.width, l)
			}
			// Every row's name starts under NAME, and its cwd (the same
			// in every row, so cut the same) under CWD.
			if i := strings.Index(l, "  ") + 2; tt.header == "ID NAME" && displayWidth(l[:i]) != nameAt {
				t.Errorf("width %d: the name is not under NAME: %q", tt.width, l)
			}
			if cwdAt := strings.Index(lines[0], "CWD"); cwdAt > 0 {
				cwd := l[strings.LastIndex(l, "  ")+2:]
				if !strings.HasPrefix(cwd, "~/") || displayWidth(l[:len(l)-len(cwd)]) != displayWidth(lines[0][:cwdAt]) {
					t.Errorf("width %d: the cwd is not under CWD: %q", tt.width, l)
				}
			}
		}
		if tt.width == 200 && !strings.Contains(out.String(), "~/projects/日本語プロジェクト\n") {
			t.Errorf("width 200: the cwd is cut:\n%s", out)
		}
		if want, ok := wideTables[tt.width]; ok && out.String() != want {
			t.Errorf("width %d:\n%s\nwant\n%s", tt.width, out, want)
		}
	}
}

// wideTables are the tables as a terminal shows them, every column lined
// up in display columns (a row of 80 columns leaves the last one free).
var wideTables = map[int]string{
	80: "ID      UPDATED   STATUS  MSGS  NAME                         CWD\n" +
		"0193a1  just now  idle       2  日本語のセッション名前テス…  ~/projec…ジェクト\n" +
		"0193b2  just now  idle       2  这是一个非常长的中文提示，…  ~/projec…ジェクト\n" +
		"0193c3  just now  idle       2  emoji 👨\u200d👩\u200d👧\u200d👦🎉🚀 party     ~/projec…ジェクト\n" +
		"0193d4  just now  idle       2  cafe\u0301 e\u0301e\u0301e\u0301 combining           ~/projec…ジェクト\n" +
		"0193e5  just now  idle      12  plain                        ~/projec…ジェクト\n",
	20: "ID      NAME\n" +
		"0193a1  日本語のセ…\n" +
		"0193b2  这是一个非…\n" +
		"0193c3  emoji …\n" +
		"0193d4  cafe\u0301 e\u0301e\u0301e\u0301 c…\n" +
		"0193e5  plain\n",
}
