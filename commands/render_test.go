package commands

import (
	"bytes"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"trail/core"
	"trail/core/chat"
	"trail/core/errs"
)

func testRenderer(t *testing.T, output string, stdoutTTY, stderrTTY, quiet bool) (*renderer, *bytes.Buffer, *bytes.Buffer) {
	t.Helper()
	ios, _, out, errOut := TestIO()
	ios.SetTTY(false, stdoutTTY, stderrTTY)
	d := testDeps(t, ios)
	o := &RunOptions{IO: ios, Deps: d, Output: output, Globals: globals{Quiet: quiet}}
	return newRenderer(o), out, errOut
}

func answer(r *renderer, deltas ...string) {
	r.Event(core.StepEvent{Kind: core.EvSession, SessionID: "s1", Provider: "anthropic", Model: "claude-x"})
	r.Event(core.StepEvent{Kind: core.EvProviderWaiting, Round: 1})
	text := ""
	for _, d := range deltas {
		r.Event(core.StepEvent{Kind: core.EvTextDelta, Round: 1, Text: d})
		text += d
	}
	m := chat.Message{ID: "m1", Role: chat.RoleAssistant, Content: text, State: chat.StateComplete}
	r.Event(core.StepEvent{Kind: core.EvAssistantMessage, Round: 1, Message: &m, Usage: chat.Usage{InputTokens: 5, OutputTokens: 2}})
}

func TestTextOutput(t *testing.T) {
	tests := []struct {
		name       string
		stdoutTTY  bool
		wantStdout string
	}{
		{"on a terminal the answer streams, then ends its line", true, "Hello there\n"},
		{"piped, the answer is written once", false, "Hello there\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, out, _ := testRenderer(t, outText, tt.stdoutTTY, false, false)
			answer(r, "Hello", " there")
			if got := out.String(); tt.stdoutTTY && got != "Hello there\n" {
				t.Fatalf("live stdout before finish = %q", got)
			} else if !tt.stdoutTTY && got != "" {
				t.Fatalf("piped stdout before finish = %q, want nothing yet", got)
			}
			if err := r.finish(&core.Result{SessionID: "s1", Text: "Hello there", Subtype: core.SubtypeSuccess}, nil); err != nil {
				t.Fatal(err)
			}
			if out.String() != tt.wantStdout {
				t.Errorf("stdout = %q, want %q", out.String(), tt.wantStdout)
			}
		})
	}
}

func TestSpinner(t *testing.T) {
	tests := []struct {
		name      string
		output    string
		stdoutTTY bool
		stderrTTY bool
		quiet     bool
		want      bool
	}{
		{"on a terminal a spinner shows while waiting", outText, false, true, false, true},
		{"piped, no spinner", outText, false, false, false, false},
		{"--quiet, no spinner", outText, false, true, true, false},
		{"-o stream-json read by a program, the spinner shows on the terminal", outStreamJSON, false, true, false, true},
		{"-o stream-json on the terminal, no spinner between its lines", outStreamJSON, true, true, false, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, out, errOut := testRenderer(t, tt.output, tt.stdoutTTY, tt.stderrTTY, tt.quiet)
			if (r.spin != nil) != tt.want {
				t.Fatalf("spinner made = %v, want %v", r.spin != nil, tt.want)
			}
			drawn := make(chan struct{}, 1)
			if r.spin != nil {
				r.spin.delay, r.spin.drawn = time.Millisecond, drawn
			}
			r.Event(core.StepEvent{Kind: core.EvSession, SessionID: "s1", Provider: "anthropic"})
			r.Event(core.StepEvent{Kind: core.EvProviderWaiting, Round: 1})
			if tt.want {
				waitDrawn(t, drawn)
			}
			r.Event(core.StepEvent{Kind: core.EvTextDelta, Round: 1, Text: "hi"})
			got := errOut.String()
			if shown := strings.Contains(got, "waiting for anthropic"); shown != tt.want {
				t.Fatalf("spinner shown = %v, want %v; stderr %q", shown, tt.want, got)
			}
			if tt.want && !strings.HasSuffix(got, "\r\x1b[K") { // colour on: escapes allowed
				t.Errorf("the spinner did not clear its line: %q", got)
			}
			if strings.Contains(out.String(), "waiting for") {
				t.Errorf("the spinner touched stdout: %q", out.String())
			}
		})
	}
}

// waitDrawn waits for the spinner's first frame; a spinner that never
// draws fails the test rather than hanging it.
func waitDrawn(t *testing.T, drawn <-chan struct{}) {
	t.Helper()
	select {
	case <-drawn:
	case <-time.After(10 * time.Second):
		t.Fatal("the spinner drew no frame")
	}
}

// The spinner's clock is the injected one: what it shows is what Deps.Now
// says, not the wall clock.
func TestSpinnerShowsTheInjectedClock(t *testing.T) {
	t0 := time.Date(2026, 11, 21, 12, 0, 0, 0, time.UTC)
	calls := 0
	now := func() time.Time {
		calls++
		if calls == 1 {
			return t0
		}
		return t0.Add(65 * time.Second)
	}
	var buf bytes.Buffer
	s := newSpinner(&buf, false, now)
	drawn := make(chan struct{}, 1)
	s.delay, s.drawn = time.Millisecond, drawn
	s.Start("waiting for echo")
	waitDrawn(t, drawn)
	s.Stop()
	if !strings.Contains(buf.String(), "waiting for echo 1m05s") {
		t.Errorf("spinner wrote %q, want the injected clock's 1m05s", buf.String())
	}
}

// lineWriter records each Write, so tests see that every stream-json line
// is written whole, in one call.
type lineWriter struct{ writes []string }

func (w *lineWriter) Write(p []byte) (int, error) {
	w.writes = append(w.writes, string(p))
	return len(p), nil
}

func streamEvents(t *testing.T, w *lineWriter) []map[string]any {
	t.Helper()
	var out []map[string]any
	for i, line := range w.writes {
		if strings.Count(line, "\n") != 1 || !strings.HasSuffix(line, "\n") {
			t.Fatalf("write %d is not exactly one line: %q", i, line)
		}
		var m map[string]any
		if err := json.Unmarshal([]byte(line), &m); err != nil {
			t.Fatalf("line %d does not parse: %v\n%s", i, err, line)
		}
		out = append(out, m)
	}
	return out
}

// seedEvents drops Claude Code's lines (system init, assistant, user) from
// a stream, leaving seed 004's events and the result.
func seedEvents(evs []map[string]any) []map[string]any {
	var out []map[string]any
	for _, e := range evs {
		switch e["type"] {
		case "assistant", "user":
			continue
		case "system":
			if e["subtype"] == "init" {
				continue
			}
		}
		out = append(out, e)
	}
	return out
}

func TestStreamJSONToolRound(t *testing.T) {
	w := &lineWriter{}
	n := 0
	s := newStreamJSON(w, nil, func() time.Time { n++; return time.Unix(int64(n), 0) })
	user := chat.Message{ID: "u1", Role: chat.RoleUser, Content: "weather?", Timestamp: "t"}
	call := chat.ToolCall{ID: "toolu_1", Type: "function", Name: "get_weather", Arguments: `{"location":"Paris"}`}
	asst := chat.Message{ID: "a1", Role: chat.RoleAssistant, Content: "Let me check.", ToolCalls: []chat.ToolCall{call}}
	result := chat.Message{ID: "r1", Role: chat.RoleTool, Content: `{"success":true,"output":"14C"}`, ToolCallID: "toolu_1"}
	final := chat.Message{ID: "a2", Role: chat.RoleAssistant, Content: "It is 14C."}
	for _, e := range []core.StepEvent{
		{Kind: core.EvSession, SessionID: "s1", Provider: "anthropic", Model: "claude-x"},
		{Kind: core.EvUserMessage, Message: &user},
		{Kind: core.EvProviderWaiting, Round: 1},
		{Kind: core.EvThinkingDelta, Round: 1, Text: "hmm"},
		{Kind: core.EvTextDelta, Round: 1, Text: "Let me"},
		{Kind: core.EvTextDelta, Round: 1, Text: " check."},
		{Kind: core.EvToolCallStreaming, Round: 1, ToolCall: &chat.ToolCall{ID: "toolu_1", Name: "get_weather"}},
		{Kind: core.EvAssistantMessage, Round: 1, Message: &asst, Usage: chat.Usage{InputTokens: 10, OutputTokens: 5}},
		{Kind: core.EvToolStarted, Round: 1, ToolCall: &call},
		{Kind: core.EvToolFinished, Round: 1, ToolCall: &call, Tool: &core.ToolOutcome{Success: true}},
		{Kind: core.EvToolResult, Round: 1, Message: &result},
		{Kind: core.EvProviderWaiting, Round: 2},
		{Kind: core.EvTextDelta, Round: 2, Text: "It is 14C."},
		{Kind: core.EvAssistantMessage, Round: 2, Message: &final},
	} {
		s.Event(e)
	}
	s.finish(&core.Result{SessionID: "s1", Subtype: core.SubtypeSuccess, Text: "It is 14C.", StopReason: core.StopEndTurn}, nil)
	evs := seedEvents(streamEvents(t, w))

	if evs[0]["type"] != "session" || evs[0]["session_id"] != "s1" || evs[0]["schema_version"] != 1.0 {
		t.Errorf("first line = %v", evs[0])
	}
	if last := evs[len(evs)-1]; last["type"] != "result" || last["result"] != "It is 14C." {
		t.Errorf("last line = %v", last)
	}
	var got []string
	open := map[string]string{} // blockId -> block type
	texts := map[string]string{}
	for _, e := range evs[1 : len(evs)-1] {
		if e["conversationId"] != "main" {
			t.Errorf("no conversationId: %v", e)
		}
		typ, _ := e["type"].(string)
		id, _ := e["blockId"].(string)
		if typ != "metadata_update" && id == "" {
			t.Errorf("no blockId: %v", e)
		}
		block, _ := e["block"].(map[string]any)
		switch typ {
		case "block_start":
			open[id] = block["type"].(string)
			got = append(got, "start "+open[id])
		case "text_delta":
			if open[id] == "" {
				t.Errorf("delta for a block not open: %v", e)
			}
			texts[id] += e["delta"].(string)
		case "block_update":
			upd, _ := json.Marshal(e["updates"])
			got = append(got, "update "+open[id]+" "+string(upd))
		case "block_complete":
			kind := open[id]
			if kind == "" {
				t.Errorf("complete for a block not open: %v", e)
			}
			if c, ok := block["content"].(string); ok && (kind == "assistant_text" || kind == "thinking") && c != texts[id] {
				t.Errorf("%s completed with %q but its deltas were %q", kind, c, texts[id])
			}
			status := ""
			if st, ok := block["status"].(string); ok {
				status = " " + st
			}
			got = append(got, "complete "+kind+status)
			delete(open, id)
		case "metadata_update":
			got = append(got, "metadata")
		}
	}
	if len(open) != 0 {
		t.Errorf("blocks never completed: %v", open)
	}
	want := []string{
		"start user_message", "complete user_message",
		"start thinking", "complete thinking",
		"start assistant_text", "complete assistant_text",
		"start tool_use",
		`update tool_use {"input":{"location":"Paris"}}`,
		"metadata",
		`update tool_use {"status":"running"}`,
		"complete tool_use success",
		"start tool_result", "complete tool_result",
		"start assistant_text", "complete assistant_text",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("events:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

func TestStreamJSONFailedRoundClosesItsBlocksAndSaysWhy(t *testing.T) {
	w := &lineWriter{}
	s := newStreamJSON(w, nil, time.Now)
	s.Event(core.StepEvent{Kind: core.EvSession, SessionID: "s1"})
	s.Event(core.StepEvent{Kind: core.EvProviderWaiting, Round: 1})
	s.Event(core.StepEvent{Kind: core.EvTextDelta, Round: 1, Text: "Hel"})
	perr := &errs.ProviderError{Provider: "anthropic", Message: "overloaded_error: Overloaded"}
	s.finish(&core.Result{SessionID: "s1", Subtype: core.SubtypeError, IsError: true}, perr)
	evs := seedEvents(streamEvents(t, w))
	var types []string
	for _, e := range evs {
		types = append(types, e["type"].(string))
	}
	if strings.Join(types, " ") != "session block_start text_delta block_complete block_start block_complete result" {
		t.Fatalf("types = %v", types)
	}
	sys := evs[4]["block"].(map[string]any)
	if sys["type"] != "system" || sys["subtype"] != "error" || sys["message"] != "anthropic: overloaded_error: Overloaded" {
		t.Errorf("system block = %v", sys)
	}
	if r := evs[6]; r["is_error"] != true || r["error"] != "anthropic: overloaded_error: Overloaded" {
		t.Errorf("result = %v", r)
	}
}

func TestStreamJSONStopsWritingAfterAWriteError(t *testing.T) {
	s := newStreamJSON(failingWriter{}, nil, time.Now)
	s.Event(core.StepEvent{Kind: core.EvSession, SessionID: "s1"})
	s.Event(core.StepEvent{Kind: core.EvTextDelta, Text: "x"})
	if s.err == nil {
		t.Fatal("the write error was not kept")
	}
}

type failingWriter struct{}

func (failingWriter) Write([]byte) (int, error) { return 0, errors.New("broken pipe") }

func TestEachRetryIsOneStderrLineUnlessQuiet(t *testing.T) {
	retry := core.StepEvent{Kind: core.EvRetry, Round: 1, Attempt: 2, Of: 4, Wait: 2 * time.Second,
		Text: "anthropic: 429 rate_limit_error: slow down", Brief: "anthropic: 429 rate_limit_error"}
	tests := []struct {
		name       string
		output     string
		stderrTTY  bool
		quiet      bool
		wantStderr string
	}{
		{"piped text", outText, false, false, "trail: anthropic: 429 rate_limit_error, retrying in 2.0 s (2 of 4)\n"},
		{"json", outJSON, false, false, "trail: anthropic: 429 rate_limit_error, retrying in 2.0 s (2 of 4)\n"},
		{"stream-json keeps its own event and says it on stderr too", outStreamJSON, false, false, "trail: anthropic: 429 rate_limit_error, retrying in 2.0 s (2 of 4)\n"},
		{"-q silences it", outText, false, true, ""},
		{"-q silences it on a terminal", outText, true, true, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, _, errOut := testRenderer(t, tt.output, false, tt.stderrTTY, tt.quiet)
			r.Event(core.StepEvent{Kind: core.EvSession, SessionID: "s1", Provider: "anthropic"})
			r.Event(retry)
			r.spin.Stop()
			if got := errOut.String(); got != tt.wantStderr {
				t.Errorf("stderr = %q, want %q", got, tt.wantStderr)
			}
		})
	}
}
