package commands

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"trail/core"
	"trail/core/chat"
	"trail/core/permission"
	"trail/store"
)

func TestSafeTextEscapesWhatATerminalWouldObey(t *testing.T) {
	for _, tt := range []struct {
		name, in, line, text string
	}{
		{"plain unicode stays as it is", "café ☕ 日本", "café ☕ 日本", "café ☕ 日本"},
		{"an OSC set-title shows as text", "\x1b]0;pwned\a", `\x1b]0;pwned\a`, `\x1b]0;pwned\a`},
		{"a CSI clear-screen shows as text", "\x1b[2Jhi", `\x1b[2Jhi`, `\x1b[2Jhi`},
		{"the C1 CSI U+009B is escaped", "a\u009b31mb", `a\u009b31mb`, `a\u009b31mb`},
		{"the C1 NEL U+0085 is escaped", "a\u0085b", `a\u0085b`, `a\u0085b`},
		{"DEL is escaped", "a\x7fb", `a\x7fb`, `a\x7fb`},
		{"NUL and backspace are escaped", "a\x00\bb", `a\x00\bb`, `a\x00\bb`},
		{"bytes that are not UTF-8 are escaped one by one", "a\xff\xc3b\xe6\x97", `a\xff\xc3b\xe6\x97`, `a\xff\xc3b\xe6\x97`},
		{"a bidi override is escaped", "abc\u202edcba", `abc\u202edcba`, `abc\u202edcba`},
		{"a line separator is escaped", "a\u2028b", `a\u2028b`, `a\u2028b`},
		{"newline and tab: escaped on a line, kept in text", "a\tb\nc", `a\tb\nc`, "a\tb\nc"},
		{"CR before LF is kept in text", "a\r\nb", `a\r\nb`, "a\r\nb"},
		{"a lone CR (it would overwrite the line) is escaped", "safe\revil", `safe\revil`, `safe\revil`},
		{"a CR at the end is escaped", "a\r", `a\r`, `a\r`},
		{"a backslash stays one: a Windows path reads as it is", `C:\Users\x1b`, `C:\Users\x1b`, `C:\Users\x1b`},
		{"the replacement character itself is text", "a\uFFFDb", "a\uFFFDb", "a\uFFFDb"},
		{"empty", "", "", ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if got := safeLine(tt.in); got != tt.line {
				t.Errorf("safeLine(%q) = %q, want %q", tt.in, got, tt.line)
			}
			if got := safeText(tt.in); got != tt.text {
				t.Errorf("safeText(%q) = %q, want %q", tt.in, got, tt.text)
			}
		})
	}
}

// checkShowable fails when s holds anything a terminal would act on.
func checkShowable(t *testing.T, what, s string, multiline bool) {
	t.Helper()
	if !utf8.ValidString(s) {
		t.Errorf("%s is not UTF-8: %q", what, s)
	}
	for _, r := range s {
		if multiline && (r == '\n' || r == '\t' || r == '\r') {
			continue
		}
		if r < 0x20 || (r >= 0x7f && r <= 0x9f) {
			t.Errorf("%s holds %U: %q", what, r, s)
			return
		}
	}
	if multiline && strings.Contains(strings.ReplaceAll(s, "\r\n", ""), "\r") {
		t.Errorf("%s holds a lone CR: %q", what, s)
	}
}

func FuzzSafeText(f *testing.F) {
	for _, s := range []string{"", "café", "\x1b]0;x\a", "\u009b2J", "\xff\xfe", "a\r\nb\rc\td", "\u202e"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		line, text := safeLine(s), safeText(s)
		checkShowable(t, "safeLine", line, false)
		checkShowable(t, "safeText", text, true)
		if safeLine(line) != line || safeText(text) != text {
			t.Errorf("escaping %q twice changes it", s)
		}
		if utf8.ValidString(s) && !strings.ContainsFunc(s, func(r rune) bool { return unsafeRune(r, "", false) }) && (line != s || text != s) {
			t.Errorf("%q has nothing to escape but came back changed", s)
		}
	})
}

// The escaping rule as list applies it: every cell from a record, the
// widths measured after escaping, one TSV row a session.
func TestListEscapesRecordFields(t *testing.T) {
	heads := []store.Head{
		{ID: "a1", Name: "\x1b]0;pwned\a\x1b[2Jname", Cwd: "/w/\x1b[31mred\tdir\nx", Status: "idle\x1b[5m",
			UpdatedAt: "2026-11-21T11:00:00.000Z", MessageCount: 3},
		{ID: "b2", FirstPrompt: "\u009b2Jline1\nline2 \xff", Cwd: "/w/plain", UpdatedAt: "2026-11-21T10:00:00.000Z\x07"},
		{ID: "c3", Name: "café ☕ 日本", Cwd: "/w/c", UpdatedAt: "2026-11-21T09:00:00.000Z"},
	}
	now := time.Date(2026, 11, 21, 12, 0, 0, 0, time.UTC)
	t.Run("TSV", func(t *testing.T) {
		ios, _, out, _ := TestIO()
		o := &ListOptions{IO: ios, Deps: testDeps(t, ios), Header: true}
		if err := writeHeadsTSV(o, heads); err != nil {
			t.Fatal(err)
		}
		lines := strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n")
		if len(lines) != 1+len(heads) {
			t.Fatalf("%d lines for %d sessions and a header:\n%s", len(lines), len(heads), out)
		}
		for _, l := range lines {
			if n := strings.Count(l, "\t"); n != 5 {
				t.Errorf("%d tabs, want 5: %q", n, l)
			}
			for _, f := range strings.Split(l, "\t") {
				checkShowable(t, "a TSV field", f, false)
			}
		}
		for _, want := range []string{
			"a1\t2026-11-21T11:00:00.000Z\tidle\\x1b[5m\t3\t\\x1b]0;pwned\\a\\x1b[2Jname\t/w/\\x1b[31mred\\tdir\\nx",
			"b2\t2026-11-21T10:00:00.000Z\\a\tidle\t0\t\\u009b2Jline1 line2 \\xff\t/w/plain",
			"c3\t2026-11-21T09:00:00.000Z\tidle\t0\tcafé ☕ 日本\t/w/c",
		} {
			if !strings.Contains(out.String(), want+"\n") {
				t.Errorf("no row %q in\n%s", want, out)
			}
		}
	})
	t.Run("table", func(t *testing.T) {
		for _, width := range []int{200, 60} {
			ios, _, out, _ := TestIO()
			ios.SetWidth(width)
			o := &ListOptions{IO: ios, Deps: testDeps(t, ios)}
			short := map[string]string{"a1": "a", "b2": "b", "c3": "c"}
			if err := writeHeadsTable(o, heads, len(heads), short, now); err != nil {
				t.Fatal(err)
			}
			lines := strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n")
			if len(lines) != 1+len(heads) {
				t.Fatalf("width %d: %d lines:\n%s", width, len(lines), out)
			}
			for _, l := range lines {
				checkShowable(t, "a table row", l, false)
				if n := displayWidth(l); n >= width {
					t.Errorf("width %d: a row of %d columns: %q", width, n, l)
				}
			}
			if width == 200 && (!strings.Contains(out.String(), `\x1b]0;pwned\a\x1b[2Jname`) || !strings.Contains(out.String(), "café ☕ 日本") ||
				!strings.Contains(out.String(), `idle\x1b[5m`)) {
				t.Errorf("width %d: the escaped cells are not all there:\n%s", width, out)
			}
		}
	})
}

func TestReplayTextEscapesTheLog(t *testing.T) {
	msg := func(v map[string]any) json.RawMessage {
		b, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	var out bytes.Buffer
	writeTextMessage(&out, msg(map[string]any{"id": "u1", "role": "user", "timestamp": "t\x1b[2J",
		"content": "\x1b]0;pwned\a\x1b[2Jline1\nline2\tcol \u009b31m\r\n"}))
	writeTextMessage(&out, msg(map[string]any{"id": "a1", "role": "assistant", "content": "ok",
		"toolCalls": []any{map[string]any{"id": "c\x1b1", "type": "function",
			"function": map[string]any{"name": "Ba\x1bsh", "arguments": "{\"command\":\"\x1b[2J\"}"}}}}))
	writeTextMessage(&out, msg(map[string]any{"id": "t1", "role": "tool", "name": "Ba\x1bsh", "toolCallId": "c\x1b1",
		"content": `{"success":false,"error":"\u001b]8;;http://x\u0007link"}`}))
	writeTextMessage(&out, []byte("not json \x1b[2J"))
	got := out.String()
	checkShowable(t, "replay text", got, true)
	for _, want := range []string{
		"● user  t\\x1b[2J\n",
		"  \\x1b]0;pwned\\a\\x1b[2Jline1\n  line2\tcol \\u009b31m\r\n",
		"  ↳ Ba\\x1bsh({\"command\":\"\\x1b[2J\"})  [c\\x1b1]\n",
		"● tool Ba\\x1bsh (c\\x1b1): failed",
		"  \\x1b]8;;http://x\\alink\n",
		"  not json \\x1b[2J\n",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("no %q in\n%s", want, got)
		}
	}
}

func TestToolLinesEscapeTheCall(t *testing.T) {
	call := chat.ToolCall{ID: "c1", Name: "Bash\x1b]0;x\a", Arguments: `{"command":"ls \u009b2J"}`}
	for _, out := range []core.ToolOutcome{
		{Denied: true, Source: permission.SourceNoTerminal},
		{Denied: true, Source: permission.SourceHook, Summary: "Blocked by hook: \x1b[2Jno"},
		{Success: false, Summary: "failed \x1b[31mred"},
	} {
		line := toolLine(call, out, true, false)
		// The colour trail adds to the mark is its own; after it, nothing
		// the model or the hook wrote reaches the terminal raw.
		rest := line[strings.Index(line, "\x1b[0m")+len("\x1b[0m"):]
		checkShowable(t, "a tool line", rest, false)
		if !strings.Contains(rest, `Bash\x1b]0;x\a`) {
			t.Errorf("the tool's name is not shown escaped: %q", rest)
		}
	}
}
