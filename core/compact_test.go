package core

import (
	"strings"
	"testing"

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
	got := CompactionPrompt([]chat.Message{parts, calls}, "")
	want := "\nConversation:\nuser: [{\"type\":\"text\",\"text\":\"and again\"}]\nassistant: null"
	if !strings.HasSuffix(got, want) {
		t.Fatalf("prompt ends\n%q\nwant\n%q", got[strings.LastIndex(got, "\nConversation:"):], want)
	}
}
