package peer

import (
	"errors"
	"os"
	"strings"
	"testing"

	"github.com/tidwall/gjson"

	"trail/core/chat"
)

// roles is a conversation's messages as "role:content" (tool results as
// "tool:<call id>"), compactions as "compaction".
func roles(c *Conversation) []string {
	var out []string
	for _, it := range c.Items {
		if it.Compaction != nil {
			out = append(out, "compaction")
			continue
		}
		m := it.Message
		switch {
		case m.Role == chat.RoleTool:
			out = append(out, "tool:"+m.ToolCallID)
		case len(m.ToolCalls) > 0:
			var ids []string
			for _, tc := range m.ToolCalls {
				ids = append(ids, tc.ID)
			}
			out = append(out, "assistant:"+m.Content+"→"+strings.Join(ids, ","))
		default:
			out = append(out, m.Role+":"+m.Content)
		}
	}
	return out
}

func mustRead(t *testing.T, input, format string) *Conversation {
	t.Helper()
	c, err := Read(strings.NewReader(input), format)
	if err != nil {
		t.Fatalf("Read: %v", err)
	}
	return c
}

func sameList(t *testing.T, got, want []string) {
	t.Helper()
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("got\n  %s\nwant\n  %s", strings.Join(got, "\n  "), strings.Join(want, "\n  "))
	}
}

func TestReadKeepsTrailsRules(t *testing.T) {
	const claudeHead = `{"type":"user","uuid":"u1","parentUuid":null,"sessionId":"s","message":{"role":"user","content":"go"}}` + "\n"
	rows := []struct {
		name   string
		input  string
		format string
		want   []string
		added  int
		skips  []string // types of the skipped entries, in order
	}{
		{
			name: "a call the file recorded no result for is answered by a failed result trail adds, before the conversation goes on",
			input: claudeHead +
				`{"type":"assistant","uuid":"a1","parentUuid":"u1","sessionId":"s","message":{"id":"m1","role":"assistant","content":[{"type":"tool_use","id":"t1","name":"Bash","input":{"command":"ls"}}]}}` + "\n" +
				`{"type":"user","uuid":"u2","parentUuid":"a1","sessionId":"s","message":{"role":"user","content":"stop"}}` + "\n",
			want:  []string{"user:go", "assistant:→t1", "tool:t1", "user:stop"},
			added: 1,
		},
		{
			name: "a result that answers no call of the answer before it is skipped, not sent to a provider alone",
			input: claudeHead +
				`{"type":"user","uuid":"u2","parentUuid":"u1","sessionId":"s","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"nobody","content":"x"}]}}` + "\n",
			want:  []string{"user:go"},
			skips: []string{"user/tool_result"},
		},
		{
			name: "the lines of one Claude answer (one block each, the same message.id) make one message, results between them or not",
			input: claudeHead +
				`{"type":"assistant","uuid":"a1","parentUuid":"u1","sessionId":"s","message":{"id":"m1","role":"assistant","content":[{"type":"text","text":"looking"}]}}` + "\n" +
				`{"type":"assistant","uuid":"a2","parentUuid":"a1","sessionId":"s","message":{"id":"m1","role":"assistant","content":[{"type":"tool_use","id":"t1","name":"Read","input":{}}]}}` + "\n" +
				`{"type":"user","uuid":"u2","parentUuid":"a2","sessionId":"s","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":"one"}]}}` + "\n" +
				`{"type":"assistant","uuid":"a3","parentUuid":"u2","sessionId":"s","message":{"id":"m1","role":"assistant","content":[{"type":"tool_use","id":"t2","name":"Read","input":{}}]}}` + "\n" +
				`{"type":"user","uuid":"u3","parentUuid":"a3","sessionId":"s","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"t2","content":"two"}]}}` + "\n",
			want: []string{"user:go", "assistant:looking→t1,t2", "tool:t1", "tool:t2"},
		},
		{
			name: "a Claude answer after its results, under another message.id, is a new round",
			input: claudeHead +
				`{"type":"assistant","uuid":"a1","parentUuid":"u1","sessionId":"s","message":{"id":"m1","role":"assistant","content":[{"type":"tool_use","id":"t1","name":"Read","input":{}}]}}` + "\n" +
				`{"type":"user","uuid":"u2","parentUuid":"a1","sessionId":"s","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":"one"}]}}` + "\n" +
				`{"type":"assistant","uuid":"a2","parentUuid":"u2","sessionId":"s","message":{"id":"m2","role":"assistant","content":[{"type":"text","text":"done"}]}}` + "\n",
			want: []string{"user:go", "assistant:→t1", "tool:t1", "assistant:done"},
		},
		{
			name: "an id used twice is made unique, so results pair with the right call",
			input: claudeHead +
				`{"type":"assistant","uuid":"a1","parentUuid":"u1","sessionId":"s","message":{"id":"m1","role":"assistant","content":[{"type":"tool_use","id":"t1","name":"Read","input":{}}]}}` + "\n" +
				`{"type":"user","uuid":"u2","parentUuid":"a1","sessionId":"s","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":"one"}]}}` + "\n" +
				`{"type":"assistant","uuid":"a2","parentUuid":"u2","sessionId":"s","message":{"id":"m2","role":"assistant","content":[{"type":"tool_use","id":"t1","name":"Read","input":{}}]}}` + "\n" +
				`{"type":"user","uuid":"u3","parentUuid":"a2","sessionId":"s","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":"two"}]}}` + "\n" +
				`{"type":"assistant","uuid":"a3","parentUuid":"u3","sessionId":"s","message":{"id":"m3","role":"assistant","content":[{"type":"tool_use","id":"t1","name":"Read","input":{}}]}}` + "\n",
			want:  []string{"user:go", "assistant:→t1", "tool:t1", "assistant:→call_l4_0", "tool:call_l4_0", "assistant:→call_l6_0", "tool:call_l6_0"},
			added: 1,
		},
		{
			name:   "the first Codex developer message is the system prompt when the file has none; Codex calls of one answer join it",
			format: Codex,
			input: `{"timestamp":"2026-01-01T00:00:00Z","type":"session_meta","payload":{"id":"c1","cwd":"/w"}}` + "\n" +
				`{"timestamp":"2026-01-01T00:00:01Z","type":"response_item","payload":{"type":"message","role":"developer","content":[{"type":"input_text","text":"be brief"}]}}` + "\n" +
				`{"timestamp":"2026-01-01T00:00:02Z","type":"response_item","payload":{"type":"message","role":"user","content":[{"type":"input_text","text":"hi"}]}}` + "\n" +
				`{"timestamp":"2026-01-01T00:00:03Z","type":"response_item","payload":{"type":"function_call","name":"shell","arguments":"{\"command\":[\"ls\"]}","call_id":"c1"}}` + "\n" +
				`{"timestamp":"2026-01-01T00:00:03Z","type":"response_item","payload":{"type":"function_call","name":"shell","arguments":"{\"command\":[\"pwd\"]}","call_id":"c2"}}` + "\n" +
				`{"timestamp":"2026-01-01T00:00:04Z","type":"response_item","payload":{"type":"function_call_output","call_id":"c2","output":"/w"}}` + "\n" +
				`{"timestamp":"2026-01-01T00:00:04Z","type":"response_item","payload":{"type":"function_call_output","call_id":"c1","output":"a"}}` + "\n" +
				`{"timestamp":"2026-01-01T00:00:05Z","type":"response_item","payload":{"type":"function_call","name":"shell","arguments":"{}","call_id":"c3"}}` + "\n",
			want:  []string{"user:hi", "assistant:→c1,c2", "tool:c2", "tool:c1", "assistant:→c3", "tool:c3"},
			added: 1,
		},
		{
			name:   "Codex's thread_rolled_back takes the last turns back out, and they are noted as skipped",
			format: Codex,
			input: `{"timestamp":"2026-01-01T00:00:00Z","type":"session_meta","payload":{"id":"c1"}}` + "\n" +
				`{"timestamp":"2026-01-01T00:00:01Z","type":"response_item","payload":{"type":"message","role":"user","content":[{"type":"input_text","text":"one"}]}}` + "\n" +
				`{"timestamp":"2026-01-01T00:00:02Z","type":"response_item","payload":{"type":"message","role":"assistant","content":[{"type":"output_text","text":"1"}]}}` + "\n" +
				`{"timestamp":"2026-01-01T00:00:03Z","type":"response_item","payload":{"type":"message","role":"user","content":[{"type":"input_text","text":"two"}]}}` + "\n" +
				`{"timestamp":"2026-01-01T00:00:04Z","type":"response_item","payload":{"type":"message","role":"assistant","content":[{"type":"output_text","text":"2"}]}}` + "\n" +
				`{"timestamp":"2026-01-01T00:00:05Z","type":"event_msg","payload":{"type":"thread_rolled_back","num_turns":1}}` + "\n",
			want:  []string{"user:one", "assistant:1"},
			skips: []string{"rolled back user", "rolled back assistant"},
		},
		{
			name:   "a Gemini record appended again replaces the first where it stood, and $rewindTo drops a message and what follows",
			format: Gemini,
			input: `{"sessionId":"g","projectHash":"p","startTime":"2026-01-01T00:00:00Z"}` + "\n" +
				`{"id":"1","timestamp":"2026-01-01T00:00:01Z","type":"user","content":"hi"}` + "\n" +
				`{"id":"2","timestamp":"2026-01-01T00:00:02Z","type":"gemini","content":"draft"}` + "\n" +
				`{"id":"3","timestamp":"2026-01-01T00:00:03Z","type":"user","content":"more"}` + "\n" +
				`{"id":"2","timestamp":"2026-01-01T00:00:02Z","type":"gemini","content":"final"}` + "\n" +
				`{"id":"4","timestamp":"2026-01-01T00:00:04Z","type":"gemini","content":"ok"}` + "\n" +
				`{"$rewindTo":"4"}` + "\n",
			want:  []string{"user:hi", "assistant:final", "user:more"},
			skips: []string{"rewound gemini"},
		},
		{
			name:   "pi's entries off the path to the last entry are skipped",
			format: Pi,
			input: `{"type":"session","version":3,"id":"p","timestamp":"2026-01-01T00:00:00Z","cwd":"/w"}` + "\n" +
				`{"type":"message","id":"a","parentId":null,"timestamp":"2026-01-01T00:00:01Z","message":{"role":"user","content":"first"}}` + "\n" +
				`{"type":"message","id":"b","parentId":"a","timestamp":"2026-01-01T00:00:02Z","message":{"role":"user","content":"left behind"}}` + "\n" +
				`{"type":"message","id":"c","parentId":"a","timestamp":"2026-01-01T00:00:03Z","message":{"role":"user","content":"taken"}}` + "\n",
			want:  []string{"user:first", "user:taken"},
			skips: []string{"message/user"},
		},
	}
	for _, r := range rows {
		t.Run(r.name, func(t *testing.T) {
			c := mustRead(t, r.input, r.format)
			sameList(t, roles(c), r.want)
			if c.Added != r.added {
				t.Errorf("added %d results, want %d", c.Added, r.added)
			}
			var skips []string
			for _, s := range c.Skipped {
				skips = append(skips, s.Type)
			}
			sameList(t, skips, r.skips)
			assertAnswered(t, c)
		})
	}
}

// assertAnswered checks trail's rule on a conversation: every call of an
// assistant message is answered by a tool message right after it, and no
// tool message answers anything else.
func assertAnswered(t *testing.T, c *Conversation) {
	t.Helper()
	var open []string
	for i, it := range c.Items {
		if it.Compaction != nil {
			if len(open) > 0 {
				t.Fatalf("item %d: a compaction while calls %v wait", i, open)
			}
			continue
		}
		m := it.Message
		if m.Role == chat.RoleTool {
			k := indexOf(open, m.ToolCallID)
			if k < 0 {
				t.Fatalf("item %d: tool result %s answers no open call (%v)", i, m.ToolCallID, open)
			}
			open = append(open[:k], open[k+1:]...)
			continue
		}
		if len(open) > 0 {
			t.Fatalf("item %d (%s): calls %v were never answered", i, m.Role, open)
		}
		for _, tc := range m.ToolCalls {
			open = append(open, tc.ID)
		}
	}
	if len(open) > 0 {
		t.Fatalf("calls %v were never answered", open)
	}
}

func indexOf(list []string, s string) int {
	for i, v := range list {
		if v == s {
			return i
		}
	}
	return -1
}

func TestReadRefusesWhatIsNotASession(t *testing.T) {
	valid, err := os.ReadFile("../../testdata/peers/claude-2-turns-continued.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	rows := []struct {
		name, input, format string
		wantLine            int
		wantMsg             string
	}{
		{"a file cut short mid-line names its last line", string(valid[:len(valid)-40]), "", 13, "cut short"},
		{"a line that is not JSON names its line", string(valid[:200]) + "\n" + "not json\n", "", 2, "not a JSON object"},
		{"trail's own log is refused on line 1", `{"timestamp":"2026-01-01T00:00:00.000Z","sessionId":"x","event":"session_init","seq":0}` + "\n", "", 1, "trail (or Robota) log"},
		{"a JSON object of no agent is refused on line 1", `{"hello":"world"}` + "\n", "", 1, "not a session file of Claude Code, Codex, Gemini CLI or pi"},
		{"--from that does not fit the content names line 1", string(valid), Pi, 1, "not a pi session: it looks like a Claude Code session"},
		{"an empty file holds no entries", "\n\n", "", 0, "no entries"},
		{"a file of entries without a single message is refused", `{"type":"queue-operation","operation":"enqueue","sessionId":"s"}` + "\n", "", 0, "no conversation found"},
	}
	for _, r := range rows {
		t.Run(r.name, func(t *testing.T) {
			_, err := Read(strings.NewReader(r.input), r.format)
			var le *LineError
			if !errors.As(err, &le) {
				t.Fatalf("err = %v, want a *LineError", err)
			}
			if le.Line != r.wantLine || !strings.Contains(le.Error(), r.wantMsg) {
				t.Fatalf("err = %q (line %d), want line %d and %q", le.Error(), le.Line, r.wantLine, r.wantMsg)
			}
		})
	}
	if _, err := Read(strings.NewReader(string(valid)), "vim"); !errors.Is(err, ErrUnknownFormat) {
		t.Fatalf("unknown format: %v", err)
	}
}

// Gemini CLI's older chats are one JSON object, often pretty-printed.
func TestReadGeminiWholeFileChat(t *testing.T) {
	input := `{
  "sessionId": "g1",
  "projectHash": "abc",
  "startTime": "2026-01-01T00:00:00.000Z",
  "messages": [
    {"id": "1", "timestamp": "2026-01-01T00:00:01.000Z", "type": "user", "content": "hi"},
    {"id": "2", "timestamp": "2026-01-01T00:00:02.000Z", "type": "gemini", "content": "hello",
     "toolCalls": [{"id": "t", "name": "ls", "args": {}, "result": "a b", "status": "success"}]}
  ]
}`
	c := mustRead(t, input, "")
	if c.Format != Gemini || c.SourceID != "g1" {
		t.Fatalf("format %s id %s", c.Format, c.SourceID)
	}
	sameList(t, roles(c), []string{"user:hi", "assistant:hello→t", "tool:t"})
	if got := c.Items[2].Message.Content; got != "a b" {
		t.Fatalf("the result recorded on the call: %q", got)
	}
}

// Tool results keep whether they failed, in metadata.success, and
// ToolFailed reads it back (and reads trail's own result objects).
func TestToolFailedReadsImportedAndTrailResults(t *testing.T) {
	c := readFile(t, "../../testdata/peers/claude-tools-compacted.jsonl", "")
	failed := map[string]bool{}
	for _, m := range c.Messages() {
		if m.Role == chat.RoleTool {
			failed[m.ToolCallID] = ToolFailed(m)
		}
	}
	want := map[string]bool{"toolu_01Bash": true, "toolu_01Read": false, "toolu_01Edit": true, "toolu_01Edit2": false}
	for id, w := range want {
		if failed[id] != w {
			t.Errorf("%s failed = %v, want %v", id, failed[id], w)
		}
	}
	if !ToolFailed(chat.Message{Role: chat.RoleTool, Content: `{"success":false,"output":"","error":"denied"}`}) ||
		ToolFailed(chat.Message{Role: chat.RoleTool, Content: `{"success":true,"output":"ok"}`}) {
		t.Fatal("trail's own result objects")
	}
	if gjson.GetBytes(c.Items[len(c.Items)-1].Message.Metadata, "model").Str != "claude-opus-4-6" {
		t.Fatal("the answer keeps its model")
	}
}

// Codex names each turn's model in its turn_context: the answers of that
// turn keep it, and a turn on another model gives its answers that one.
func TestCodexAnswersKeepTheirTurnsModel(t *testing.T) {
	in := `{"timestamp":"2026-01-01T00:00:00Z","type":"session_meta","payload":{"id":"c1","cwd":"/w","model_provider":"openai"}}` + "\n" +
		`{"timestamp":"2026-01-01T00:00:01Z","type":"turn_context","payload":{"cwd":"/w","model":"gpt-5-codex"}}` + "\n" +
		`{"timestamp":"2026-01-01T00:00:01Z","type":"response_item","payload":{"type":"message","role":"user","content":[{"type":"input_text","text":"one"}]}}` + "\n" +
		`{"timestamp":"2026-01-01T00:00:02Z","type":"response_item","payload":{"type":"function_call","name":"shell","arguments":"{}","call_id":"c1"}}` + "\n" +
		`{"timestamp":"2026-01-01T00:00:03Z","type":"response_item","payload":{"type":"function_call_output","call_id":"c1","output":"a"}}` + "\n" +
		`{"timestamp":"2026-01-01T00:00:04Z","type":"response_item","payload":{"type":"message","role":"assistant","content":[{"type":"output_text","text":"1"}]}}` + "\n" +
		`{"timestamp":"2026-01-01T00:00:05Z","type":"turn_context","payload":{"cwd":"/w","model":"gpt-5-mini"}}` + "\n" +
		`{"timestamp":"2026-01-01T00:00:05Z","type":"response_item","payload":{"type":"message","role":"user","content":[{"type":"input_text","text":"two"}]}}` + "\n" +
		`{"timestamp":"2026-01-01T00:00:06Z","type":"response_item","payload":{"type":"message","role":"assistant","content":[{"type":"output_text","text":"2"}]}}` + "\n"
	c := mustRead(t, in, Codex)
	var got []string
	for _, it := range c.Items {
		if m := it.Message; m != nil {
			got = append(got, m.Role+":"+gjson.GetBytes(m.Metadata, "model").Str)
		}
	}
	sameList(t, got, []string{"user:", "assistant:gpt-5-codex", "tool:", "assistant:gpt-5-codex", "user:", "assistant:gpt-5-mini"})
	if c.Model != "gpt-5-mini" {
		t.Errorf("the session's model %q, want the last turn's", c.Model)
	}
}
