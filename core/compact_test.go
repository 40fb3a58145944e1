package core

import (
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"trail/core/chat"
)

func TestSplitForCompactionKeepsToolCallsWithTheirResults(t *testing.T) {
	roles := func(spec string) []chat.Message {
		var out []chat.Message
		for _, r := range strings.Split(spec, ",") {
			m := chat.Message{Role: map[string]string{"s": chat.RoleSystem, "u": chat.RoleUser, "a": chat.RoleAssistant, "c": chat.RoleAssistant, "t": chat.RoleTool}[r]}
			if r == "c" {
				m.ToolCalls = []chat.ToolCall{{ID: "x"}}
			}
			out = append(out, m)
		}
		return out
	}
	join := func(ms []chat.Message) string {
		var b strings.Builder
		for _, m := range ms {
			switch {
			case m.Role == chat.RoleSystem:
				b.WriteString("s")
			case m.Role == chat.RoleUser:
				b.WriteString("u")
			case len(m.ToolCalls) > 0:
				b.WriteString("c")
			case m.Role == chat.RoleTool:
				b.WriteString("t")
			default:
				b.WriteString("a")
			}
		}
		return b.String()
	}
	tests := []struct {
		msgs                  string
		keep                  int
		system, dropped, tail string
	}{
		{"s,u,a,u,a", 0, "s", "uaua", ""},
		{"s,u,a,u,a", 2, "s", "ua", "ua"},
		{"s,u,c,t,a", 2, "s", "u", "cta"},
		{"s,u,c,t,t,a", 2, "s", "u", "ctta"},
		{"s,u,c,t,t", 1, "s", "u", "ctt"},
		{"s,u,a", 5, "s", "", "ua"},
		{"u,a", 0, "", "ua", ""},
		{"s", 0, "s", "", ""},
	}
	for _, tt := range tests {
		sys, dropped, tail := splitForCompaction(roles(tt.msgs), tt.keep)
		if join(sys) != tt.system || join(dropped) != tt.dropped || join(tail) != tt.tail {
			t.Errorf("%s keep %d: got %s|%s|%s, want %s|%s|%s", tt.msgs, tt.keep,
				join(sys), join(dropped), join(tail), tt.system, tt.dropped, tt.tail)
		}
	}
}

func TestCompactionPromptWritesContentThatIsNotAStringAsJSON(t *testing.T) {
	parts, err := chat.DecodeMessage([]byte(`{"role": "user", "content": [ {"type": "text", "text": "and again"} ]}`))
	if err != nil {
		t.Fatal(err)
	}
	calls := chat.Message{Role: chat.RoleAssistant, ContentNull: true}
	got := CompactionPrompt([]chat.Message{parts, calls}, "", 0)
	want := "\nConversation:\nuser: [{\"type\":\"text\",\"text\":\"and again\"}]\nassistant: null"
	if !strings.HasSuffix(got, want) {
		t.Fatalf("prompt ends\n%q\nwant\n%q", got[strings.LastIndex(got, "\nConversation:"):], want)
	}
}

func TestCompactionPromptShowsToolCallsAndCutsToolResults(t *testing.T) {
	code := "package main\n\nfunc main() {}\n" + strings.Repeat("// padding\n", 1000)
	msgs := []chat.Message{
		{Role: chat.RoleUser, Content: "write a.go"},
		{Role: chat.RoleAssistant, ContentNull: true, ToolCalls: []chat.ToolCall{
			{ID: "c1", Name: "Write", Arguments: `{"filePath": "a.go", "content": ` + strconvQuote(code) + `}`},
			{ID: "c2", Name: "Bash", Arguments: `{"command":"go build ./..."}`},
		}},
		{Role: chat.RoleTool, ToolCallID: "c1", Content: `{"success":true,"output":"` + strings.Repeat("x", 5000) + `"}`},
		{Role: chat.RoleAssistant, Content: "Let me check.", ToolCalls: []chat.ToolCall{{ID: "c3", Name: "Read", Arguments: `{"filePath":"a.go"}`}}},
		{Role: chat.RoleAssistant, Content: "Done."},
	}
	got := CompactionPrompt(msgs, "", 0)
	conv := got[strings.Index(got, "\nConversation:\n")+len("\nConversation:\n"):]
	lines := strings.Split(conv, "\n")
	if len(lines) != 5 {
		t.Fatalf("%d lines, want one a message:\n%s", len(lines), conv)
	}
	if !strings.HasPrefix(lines[1], `assistant: [tool call Write {"filePath":"a.go","content":"package main\n\nfunc main() {}\n`) ||
		!strings.HasSuffix(lines[1], `[tool call Bash {"command":"go build ./..."}]`) {
		t.Errorf("a tool-only assistant turn shows its calls:\n%s", lines[1])
	}
	if n := utf8.RuneCountInString(lines[1]); n > 2*toolArgsLimit+200 || !strings.Contains(lines[1], "more characters cut]") {
		t.Errorf("the Write arguments are not cut (%d characters)", n)
	}
	if !strings.HasPrefix(lines[2], `tool: {"success":true,"output":"xxx`) || len(lines[2]) > toolResultLimit+100 ||
		!strings.HasSuffix(lines[2], "[... 4,028 more characters cut]") {
		t.Errorf("the tool result is not cut with a note: %q", lines[2][max(0, len(lines[2])-80):])
	}
	if lines[3] != `assistant: Let me check. [tool call Read {"filePath":"a.go"}]` || lines[4] != "assistant: Done." {
		t.Errorf("text and calls:\n%s\n%s", lines[3], lines[4])
	}
}

// A conversation far over the window yields a prompt within the budget
// that keeps the first prompt and the latest turns.
func TestCompactionPromptFitsTheWindow(t *testing.T) {
	big := strings.Repeat("a line of a long answer with \"quotes\" and <tags>\n", 200) // ~10 KB
	var msgs []chat.Message
	msgs = append(msgs, chat.Message{Role: chat.RoleAssistant, Content: SummaryPrefix + "an earlier summary"},
		chat.Message{Role: chat.RoleUser, Content: "the first request"})
	for len(msgs) < 2000 { // ~10 MB
		msgs = append(msgs, chat.Message{Role: chat.RoleUser, Content: "go on"}, chat.Message{Role: chat.RoleAssistant, Content: big})
	}
	msgs = append(msgs, chat.Message{Role: chat.RoleUser, Content: "the last request"}, chat.Message{Role: chat.RoleAssistant, Content: "the last answer"})
	for _, budget := range []int64{200_000 - 64_000, 128_000 - 16_384, 10_000} {
		got := CompactionPrompt(msgs, "keep the file names", budget)
		if tokens := PromptTokens(got) + messageOverhead/chat.BytesPerToken; tokens > budget {
			t.Errorf("budget %d: the prompt takes ~%d tokens", budget, tokens)
		}
		for _, want := range []string{"Additional focus:\nkeep the file names\n", "\nConversation:\nassistant: [Context Summary]\nan earlier summary\nuser: the first request\n[... ",
			" left out to fit the model's context window ...]\n", "\nuser: the last request\nassistant: the last answer"} {
			if !strings.Contains(got, want) {
				t.Errorf("budget %d: the prompt has no %q", budget, want)
			}
		}
	}
	// One message larger than the window: its start stays, cut.
	huge := []chat.Message{{Role: chat.RoleUser, Content: strings.Repeat("y", 10<<20)}}
	got := CompactionPrompt(huge, "", 50_000)
	if tokens := PromptTokens(got); tokens > 50_000 || !strings.HasSuffix(got, "more characters cut]") || !strings.Contains(got, "user: yyy") {
		t.Errorf("a single huge message: ~%d tokens, ends %q", tokens, got[len(got)-60:])
	}
	// Within the budget nothing changes.
	small := msgs[:4]
	if CompactionPrompt(small, "", 200_000) != CompactionPrompt(small, "", 0) {
		t.Error("a conversation within the budget was cut")
	}
}

func strconvQuote(s string) string { return strconv.Quote(s) }
