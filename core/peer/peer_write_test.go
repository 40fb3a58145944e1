package peer

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tidwall/gjson"

	"trail/core/chat"
)

// a trail conversation as a session record holds it: ids are UUIDv7,
// tool results are trail's result objects.
func trailMessages() []chat.Message {
	md := func(s string) json.RawMessage { return json.RawMessage(s) }
	return []chat.Message{
		{ID: "01a20000-0000-7000-8000-000000000001", Role: chat.RoleSystem, Content: "You are trail.", State: chat.StateComplete, Timestamp: "2026-01-01T00:00:00.000Z"},
		{ID: "01a20000-0000-7000-8000-000000000002", Role: chat.RoleUser, Content: "fix the test", State: chat.StateComplete, Timestamp: "2026-01-01T00:00:01.000Z"},
		{ID: "01a20000-0000-7000-8000-000000000003", Role: chat.RoleAssistant, Content: "Running it.", State: chat.StateComplete, Timestamp: "2026-01-01T00:00:02.000Z",
			ToolCalls: []chat.ToolCall{
				{ID: "toolu_1", Type: "function", Name: "Bash", Arguments: `{"command":"go test ./..."}`},
				{ID: "toolu_2", Type: "function", Name: "Read", Arguments: `{"filePath": "calc.go"}`},
			},
			Metadata: md(`{"round":1,"inputTokens":120,"outputTokens":30,"usage":{"totalTokens":150,"inputTokens":120,"outputTokens":30}}`)},
		{ID: "01a20000-0000-7000-8000-000000000004", Role: chat.RoleTool, Content: `{"success":false,"output":"FAIL","error":"exit status 1","exitCode":1}`, State: chat.StateComplete, Timestamp: "2026-01-01T00:00:03.000Z", ToolCallID: "toolu_1", Name: "Bash"},
		{ID: "01a20000-0000-7000-8000-000000000005", Role: chat.RoleTool, Content: "{\"success\":true,\"output\":\"package calc ```go``` \"}", State: chat.StateComplete, Timestamp: "2026-01-01T00:00:03.000Z", ToolCallID: "toolu_2", Name: "Read"},
		{ID: "01a20000-0000-7000-8000-000000000006", Role: chat.RoleAssistant, Content: "Fixed.\n\nThe test passes.", State: chat.StateComplete, Timestamp: "2026-01-01T00:00:04.000Z"},
		{ID: "01a20000-0000-7000-8000-000000000007", Role: chat.RoleUser, Content: "<env>ctx</env>", State: chat.StateComplete, Timestamp: "2026-01-01T00:00:05.000Z", Metadata: md(`{"synthetic":true,"sourceType":"isMeta"}`)},
		{ID: "01a20000-0000-7000-8000-000000000008", Role: chat.RoleUser, Content: "thanks", State: chat.StateComplete, Timestamp: "2026-01-01T00:00:06.000Z"},
	}
}

// same compares what a conversation says: roles, text, calls (ids, names,
// arguments as compact JSON: Claude Code stores an object, whose spacing is
// not kept), results (call ids, names, failure) and which messages the
// harness added. Ids, timestamps and the rest of metadata are the
// carrier's own.
func same(t *testing.T, got, want []chat.Message) {
	t.Helper()
	say := func(msgs []chat.Message) string {
		var b strings.Builder
		for _, m := range msgs {
			if m.Role == chat.RoleSystem {
				continue
			}
			b.WriteString(m.Role + "|" + m.Content + "|" + m.ToolCallID + "|" + m.Name)
			for _, tc := range m.ToolCalls {
				b.WriteString("|" + tc.ID + " " + tc.Name + " " + string(chat.CompactBytes([]byte(tc.Arguments))))
			}
			if m.Role == chat.RoleTool && ToolFailed(m) {
				b.WriteString("|failed")
			}
			if gjson.GetBytes(m.Metadata, "synthetic").Bool() {
				b.WriteString("|synthetic")
			}
			b.WriteString("\n")
		}
		return b.String()
	}
	if g, w := say(got), say(want); g != w {
		t.Fatalf("messages differ:\n%s", lineDiff(w, g))
	}
}

func TestClaudeExportReadsBackAsTheSameMessages(t *testing.T) {
	msgs := trailMessages()
	var buf bytes.Buffer
	n, err := WriteClaude(&buf, ClaudeSession{ID: "01a20000-0000-7000-8000-0000000000ff", Cwd: "/home/me/proj", Model: "claude-sonnet-4-5", Messages: msgs})
	if err != nil {
		t.Fatal(err)
	}
	if n != len(msgs)-1 {
		t.Fatalf("wrote %d messages, want %d (the system prompt is Claude Code's own)", n, len(msgs)-1)
	}
	exported := buf.String()
	c, err := Read(strings.NewReader(exported), "")
	if err != nil {
		t.Fatalf("read the export back: %v\n%s", err, exported)
	}
	if c.Format != Claude || c.SourceID != "01a20000-0000-7000-8000-0000000000ff" || c.Cwd != "/home/me/proj" || c.Added != 0 {
		t.Fatalf("format %s, source %s, cwd %s, added %d", c.Format, c.SourceID, c.Cwd, c.Added)
	}
	same(t, c.Messages(), msgs)
	// Only the closing last-prompt line has no equivalent.
	if len(c.Skipped) != 1 || c.Skipped[0].Type != "last-prompt" {
		t.Fatalf("skipped %+v", c.Skipped)
	}
	var again bytes.Buffer
	if _, err := WriteClaude(&again, ClaudeSession{ID: "01a20000-0000-7000-8000-0000000000ff", Cwd: "/home/me/proj", Model: "claude-sonnet-4-5", Messages: trailMessages()}); err != nil {
		t.Fatal(err)
	}
	if again.String() != exported {
		t.Fatal("the same session exported twice gives different bytes")
	}
}

// The lines carry what a real transcript's lines carry, in its shapes.
func TestClaudeExportLinesLookLikeClaudeCodes(t *testing.T) {
	var buf bytes.Buffer
	if _, err := WriteClaude(&buf, ClaudeSession{ID: "01a20000-0000-7000-8000-0000000000ff", Cwd: "/w", Messages: trailMessages()}); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(buf.String(), "\n"), "\n")
	real, err := os.ReadFile("../../testdata/peers/claude-2-turns-continued.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	realUser := gjson.Get(strings.Split(string(real), "\n")[2], "@keys")
	parent := ""
	for i, l := range lines[:len(lines)-1] {
		f := gjson.Parse(l)
		if f.Get("parentUuid").String() != parent {
			t.Fatalf("line %d: parentUuid %s, want the line before's uuid %s", i+1, f.Get("parentUuid").Raw, parent)
		}
		parent = f.Get("uuid").Str
		for _, k := range []string{"isSidechain", "type", "message", "uuid", "timestamp", "userType", "cwd", "sessionId", "version", "gitBranch"} {
			if !f.Get(k).Exists() {
				t.Fatalf("line %d has no %s (a real user line has %s)", i+1, k, realUser.Raw)
			}
		}
		if f.Get("type").Str == "assistant" && len(f.Get("message.content").Array()) != 1 {
			t.Fatalf("line %d: an answer line holds one content block, as Claude Code writes them", i+1)
		}
	}
	// The two calls and the text of one answer share its message.id.
	ids := map[string]int{}
	for _, l := range lines {
		if id := gjson.Get(l, "message.id").Str; id != "" {
			ids[id]++
		}
	}
	if len(ids) != 2 {
		t.Fatalf("answers' message ids: %v", ids)
	}
	last := gjson.Parse(lines[len(lines)-1])
	if last.Get("type").Str != "last-prompt" || last.Get("leafUuid").Str != parent || last.Get("lastPrompt").Str != "thanks" {
		t.Fatalf("last line %s", lines[len(lines)-1])
	}
	// A failed result is marked is_error; a result points at its call's line.
	for _, l := range lines {
		blk := gjson.Get(l, "message.content.0")
		if blk.Get("type").Str == "tool_result" {
			failed := blk.Get("is_error").Bool()
			if failed != (blk.Get("tool_use_id").Str == "toolu_1") || gjson.Get(l, "sourceToolAssistantUUID").Str == "" {
				t.Fatalf("result line %s", l)
			}
		}
		if gjson.Get(l, "isMeta").Bool() != strings.Contains(l, "<env>ctx</env>") {
			t.Fatalf("harness context goes back as isMeta: %s", l)
		}
	}
}

// A session trail compacted starts with its summary: it goes to Claude
// Code as Claude Code's own compaction, and reads back as one.
func TestClaudeExportOfACompactedSession(t *testing.T) {
	msgs := []chat.Message{
		{ID: "s", Role: chat.RoleSystem, Content: "sys", State: chat.StateComplete},
		{ID: "a", Role: chat.RoleAssistant, Content: ContextSummaryPrefix + "We fixed calc.go.", State: chat.StateComplete, Timestamp: "2026-01-01T00:00:00.000Z"},
		{ID: "b", Role: chat.RoleUser, Content: "and now?", State: chat.StateComplete, Timestamp: "2026-01-01T00:00:01.000Z"},
	}
	var buf bytes.Buffer
	if _, err := WriteClaude(&buf, ClaudeSession{ID: "not-a-uuid", Cwd: "/w", Messages: msgs}); err != nil {
		t.Fatal(err)
	}
	first := gjson.Parse(strings.SplitN(buf.String(), "\n", 2)[0])
	if first.Get("subtype").Str != "compact_boundary" {
		t.Fatalf("first line %s", first.Raw)
	}
	c, err := Read(&buf, Claude)
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Items) != 2 || c.Items[0].Compaction == nil || !strings.HasSuffix(c.Items[0].Compaction.Summary[0].Content, "We fixed calc.go.") {
		t.Fatalf("items %s", describe(c))
	}
	if c.SourceID != ClaudeSessionID("not-a-uuid") || len(c.SourceID) != 36 {
		t.Fatalf("a trail id that is no UUID gets one made from it: %s", c.SourceID)
	}
}

func TestClaudeProjectDirNamesTheFolderClaudeCodeUses(t *testing.T) {
	rows := []struct {
		cwd, want string
		ok        bool
	}{
		{"/home/user/peerlab/work/proj", "-home-user-peerlab-work-proj", true},
		{"/Users/me/my_project.v2", "-Users-me-my-project-v2", true},
		{"/tmp/café", "-tmp-caf-", true},
		{"/" + strings.Repeat("a", 200), "", false},
	}
	for _, r := range rows {
		got, ok := ClaudeProjectDir(r.cwd)
		if ok != r.ok || (ok && got != r.want) {
			t.Errorf("%s: %q %v, want %q %v", r.cwd, got, ok, r.want, r.ok)
		}
	}
}

// The Markdown transcript of a fixed conversation is its golden
// (testdata/golden/export-markdown-unit.md): headings per turn, calls
// folded with their results, fences no content can close, a compaction
// note, harness context folded.
func TestMarkdownTranscriptGolden(t *testing.T) {
	msgs := trailMessages()
	var items []TranscriptItem
	for i := range msgs {
		if i == 6 {
			items = append(items, TranscriptItem{Note: "Context compacted here: 6 messages became 2."})
		}
		items = append(items, TranscriptItem{Message: &msgs[i]})
	}
	var buf bytes.Buffer
	err := WriteMarkdown(&buf, MarkdownSession{Title: "fix the\ntest", Facts: [][2]string{{"Session", "`x`"}}, Items: items})
	if err != nil {
		t.Fatal(err)
	}
	golden := filepath.Join("../../testdata/golden", "export-markdown-unit.md")
	if os.Getenv("UPDATE_GOLDEN") != "" {
		if err := os.WriteFile(golden, buf.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	if buf.String() != string(want) {
		t.Fatalf("markdown differs from %s:\n%s", golden, lineDiff(string(want), buf.String()))
	}
	if !strings.Contains(buf.String(), "````\n{\"success\":true,\"output\":\"package calc ```go``` \"}\n````") {
		t.Fatal("a result holding ``` must sit in a longer fence")
	}
}
