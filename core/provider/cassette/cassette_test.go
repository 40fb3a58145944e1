package cassette

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"trail/core/chat"
	"trail/core/errs"
	"trail/core/provider"
)

const (
	sys1  = `{"id":"s1","role":"system","content":"You are trail.\n\nWorking directory: /rec/dir\nDate: 2026-01-02\nPlatform: darwin/arm64\n"}`
	user1 = `{"id":"u1","role":"user","content":"read a.txt","state":"complete","timestamp":"2026-01-02T10:00:00.000Z"}`
	asst1 = `{"id":"a1","role":"assistant","content":"","state":"complete","timestamp":"2026-01-02T10:00:01.000Z","toolCalls":[{"id":"toolu_1","type":"function","function":{"name":"Read","arguments":"{\"file_path\":\"a.txt\"}"}}],"metadata":{"round":1,"inputTokens":10,"outputTokens":5}}`
	tool1 = `{"id":"t1","role":"tool","content":"{\"success\":true,\"output\":\"hello from /rec/dir/a.txt\"}","state":"complete","timestamp":"2026-01-02T10:00:02.000Z","toolCallId":"toolu_1","name":"Read"}`
)

// recordingLog is a log of one step with two rounds, as trail writes it:
// a tool call with thinking streamed through Anthropic's events, then an
// answer with cache usage and providerData.
func recordingLog(t *testing.T) string {
	t.Helper()
	lines := []string{
		`{"timestamp":"2026-01-02T10:00:00.000Z","sessionId":"rec","event":"session_init","seq":0,"cwd":"/rec/dir"}`,
		`{"timestamp":"2026-01-02T10:00:00.000Z","sessionId":"rec","event":"provider_request","seq":1,"executionId":"x","round":1,"provider":"anthropic","model":"claude-sonnet-4-5","messages":[` + sys1 + `,` + user1 + `],"tools":[]}`,
		`{"timestamp":"2026-01-02T10:00:00.100Z","sessionId":"rec","event":"provider_native_raw_payload","seq":2,"executionId":"x","round":1,"provider":"anthropic","apiSurface":"anthropic-messages","payloadKind":"stream_event","payload":{"type":"message_start","message":{"model":"claude-opus-4-6"}},"sequence":0}`,
		`{"timestamp":"2026-01-02T10:00:00.200Z","sessionId":"rec","event":"provider_native_raw_payload","seq":3,"executionId":"x","round":1,"provider":"anthropic","apiSurface":"anthropic-messages","payloadKind":"stream_event","payload":{"type":"content_block_delta","index":0,"delta":{"type":"thinking_delta","thinking":"Look at a.txt."}},"sequence":1}`,
		`{"timestamp":"2026-01-02T10:00:00.900Z","sessionId":"rec","event":"provider_response_normalized","seq":4,"executionId":"x","round":1,"response":{"role":"assistant","content":"","toolCalls":[{"id":"toolu_1","type":"function","function":{"name":"Read","arguments":"{\"file_path\":\"a.txt\"}"}}],"usage":{"inputTokens":10,"outputTokens":5},"stopReason":"tool_use"},"toolCallsCount":1}`,
		`{"timestamp":"2026-01-02T10:00:01.000Z","sessionId":"rec","event":"assistant_message_committed","seq":5,"executionId":"x","round":1,"message":` + asst1 + `}`,
		`{"timestamp":"2026-01-02T10:00:03.000Z","sessionId":"rec","event":"provider_request","seq":6,"executionId":"x","round":2,"provider":"anthropic","model":"claude-sonnet-4-5","messages":[` + strings.Join([]string{sys1, user1, asst1, tool1}, ",") + `],"tools":[]}`,
		`{"timestamp":"2026-01-02T10:00:03.100Z","sessionId":"rec","event":"provider_stream_raw_delta","seq":7,"executionId":"x","round":2,"sequence":0,"delta":"It says "}`,
		`{"timestamp":"2026-01-02T10:00:03.300Z","sessionId":"rec","event":"provider_stream_raw_delta","seq":8,"executionId":"x","round":2,"sequence":1,"delta":"hello."}`,
		`{"timestamp":"2026-01-02T10:00:03.400Z","sessionId":"rec","event":"provider_response_normalized","seq":9,"executionId":"x","round":2,"response":{"role":"assistant","content":"It says hello.","usage":{"inputTokens":30,"outputTokens":4},"stopReason":"max_tokens"},"toolCallsCount":0}`,
		`{"timestamp":"2026-01-02T10:00:03.400Z","sessionId":"rec","event":"assistant_message_committed","seq":10,"executionId":"x","round":2,"message":{"id":"a2","role":"assistant","content":"It says hello.","state":"complete","metadata":{"round":2,"inputTokens":30,"outputTokens":4,"cacheReadInputTokens":20,"stopReason":"max_tokens"},"providerData":{"provider":"anthropic","blocks":[1]}}}`,
		`{"timestamp":"2026-01-02T10:00:04.000Z","sessionId":"rec","event":"provider_request","seq":11,"executionId":"y","round":1,"provider":"anthropic","model":"claude-sonnet-4-5","messages":[` + user1 + `],"tools":[]}`,
		`{"timestamp":"2026-01-02T10:00:04.500Z","sessionId":"rec","event":"provider_response_normalized","seq":12,"executionId":"y","round":1,"response":null,"toolCallsCount":0,"error":{"message":"overloaded","status":529}}`,
	}
	path := filepath.Join(t.TempDir(), "rec.jsonl")
	if err := os.WriteFile(path, []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// request is what a new run sends: the recorded messages with new ids,
// timestamps and metadata, in another directory on another day.
func request(t testing.TB, k int, raws ...string) *provider.Request {
	t.Helper()
	req := &provider.Request{CallIndex: k}
	for _, r := range raws {
		r = strings.NewReplacer(`"id":"s1"`, `"id":"s2"`, `"id":"u1"`, `"id":"u2"`, `"id":"a1"`, `"id":"a2"`, `"id":"t1"`, `"id":"t2"`, "2026-01-02", "2026-03-04", "/rec/dir", "/ci/work", "darwin/arm64", "linux/amd64",
			`"metadata":{"round":1,"inputTokens":10,"outputTokens":5}`, `"metadata":{"round":1}`).Replace(r)
		m, err := chat.DecodeMessage(json.RawMessage(r))
		if err != nil {
			t.Fatal(err)
		}
		req.Messages = append(req.Messages, m)
	}
	return req
}

type sink struct {
	text, thinking strings.Builder
	started        []string
}

func (s *sink) TextDelta(t string)                  { s.text.WriteString(t + "|") }
func (s *sink) ThinkingDelta(t string)              { s.thinking.WriteString(t) }
func (s *sink) ToolCallStarted(_ int, id, n string) { s.started = append(s.started, id+" "+n) }
func (s *sink) RawPayload(string, any)              {}
func (s *sink) Retry(int, time.Duration, error)     {}

func load(t *testing.T, opts Options) *Provider {
	t.Helper()
	p, err := Load(recordingLog(t), opts)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func TestCallPlaysTheRecordedAnswers(t *testing.T) {
	p := load(t, Options{Cwd: "/ci/work"})
	if p.Calls() != 3 {
		t.Fatalf("%d calls", p.Calls())
	}
	var s sink
	resp, err := p.Call(context.Background(), request(t, 0, sys1, user1), &s)
	if err != nil {
		t.Fatal(err)
	}
	if len(resp.ToolCalls) != 1 || resp.ToolCalls[0].Name != "Read" || resp.ToolCalls[0].Arguments != `{"file_path":"a.txt"}` ||
		resp.StopReason != "tool_use" || resp.Stop != "" || resp.Thinking != "Look at a.txt." || s.thinking.String() != "Look at a.txt." ||
		resp.Model != "claude-opus-4-6" || !resp.HasUsage || resp.Usage.InputTokens != 10 || resp.Usage.OutputTokens != 5 {
		t.Errorf("round 1 = %+v", resp)
	}
	if len(s.started) != 1 || s.started[0] != "toolu_1 Read" {
		t.Errorf("tool calls started: %v", s.started)
	}

	s = sink{}
	resp, err = p.Call(context.Background(), request(t, 1, sys1, user1, asst1, tool1), &s)
	if err != nil {
		t.Fatal(err)
	}
	if s.text.String() != "It says |hello.|" || resp.Text != "It says hello." {
		t.Errorf("streamed %q, answer %q", s.text.String(), resp.Text)
	}
	if resp.Stop != provider.StopMaxTokens || resp.Usage.CacheReadTokens != 20 || string(resp.ProviderData) != `{"provider":"anthropic","blocks":[1]}` ||
		resp.Model != "claude-sonnet-4-5" {
		t.Errorf("round 2 = %+v", resp)
	}

	_, err = p.Call(context.Background(), request(t, 2, user1), &sink{})
	var pe *errs.ProviderError
	if !errors.As(err, &pe) || pe.Provider != "anthropic" || pe.Status != 529 || pe.Message != "overloaded" {
		t.Errorf("a recorded failure comes back as it was: %v", err)
	}

	_, err = p.Call(context.Background(), request(t, 3, user1), &sink{})
	if !errors.As(err, &pe) || pe.Provider != "cassette" || !strings.HasPrefix(pe.Message, "request 4: the recording holds 3 provider calls") {
		t.Errorf("out of answers: %v", err)
	}
}

func TestCallRefusesARequestUnlikeTheRecordedOne(t *testing.T) {
	changed := strings.Replace(tool1, "hello from", "bye from", 1)
	for _, tt := range []struct {
		name string
		k    int
		msgs []string
		want string
	}{
		{"a tool result", 1, []string{sys1, user1, asst1, changed}, `request 2: message 3 (tool) content differs: "…\"output\":\"hello from /ci/work/a.txt\"}" vs "…\"output\":\"bye from /ci/work/a.txt\"}"`},
		{"a message fewer", 1, []string{sys1, user1, asst1}, "request 2: 4 messages recorded, 3 sent: message 3 (tool) is missing"},
		{"a message more", 0, []string{sys1, user1, user1}, "request 1: 2 messages recorded, 3 sent: message 2 (user) is new"},
		{"a tool call", 1, []string{sys1, user1, strings.Replace(asst1, `a.txt\"}`, `b.txt\"}`, 1), tool1}, `request 2: message 2 (assistant) toolCalls differs:`},
		{"the system prompt", 0, []string{strings.Replace(sys1, "You are trail.", "You are a poet.", 1), user1}, `request 1: message 0 (system) content differs: "You are trail.`},
		{"a key the recording lacks", 0, []string{sys1, strings.Replace(user1, `"state"`, `"name":"x","state"`, 1)}, `request 1: message 1 (user) name differs: (none) vs "x"`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			p := load(t, Options{Cwd: "/ci/work"})
			_, err := p.Call(context.Background(), request(t, tt.k, tt.msgs...), &sink{})
			var pe *errs.ProviderError
			if !errors.As(err, &pe) || !strings.HasPrefix(pe.Message, tt.want) || strings.Contains(pe.Message, "\n") {
				t.Fatalf("got %v\nwant %s", err, tt.want)
			}
			lenient := load(t, Options{Lenient: true, Cwd: "/ci/work"})
			if _, err := lenient.Call(context.Background(), request(t, tt.k, tt.msgs...), &sink{}); err != nil {
				t.Errorf("lenient: %v", err)
			}
		})
	}
}

// Without the working directory, the recorded one is not read as the new
// one: the system prompts differ.
func TestTheWorkingDirectoryIsReadOnlyWhenKnown(t *testing.T) {
	p := load(t, Options{})
	_, err := p.Call(context.Background(), request(t, 0, sys1, user1), &sink{})
	if err == nil || !strings.Contains(err.Error(), "message 0 (system) content differs") {
		t.Fatalf("err = %v", err)
	}
}

func TestRecordedSpeedStopsOnCancel(t *testing.T) {
	p := load(t, Options{Recorded: true, Cwd: "/ci/work"})
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := p.Call(ctx, request(t, 1, sys1, user1, asst1, tool1), &sink{}); !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v", err)
	}
}

func TestLoadRefusesWhatIsNotALog(t *testing.T) {
	dir := t.TempDir()
	_, err := Load(filepath.Join(dir, "none.jsonl"), Options{})
	var nf *errs.NotFoundError
	if !errors.As(err, &nf) {
		t.Errorf("missing: %v", err)
	}
	bad := filepath.Join(dir, "bad.jsonl")
	os.WriteFile(bad, []byte("{\"event\":\"user\"}\n[1,2]\n{}\n"), 0o644)
	_, err = Load(bad, Options{})
	var inv *errs.InvalidDataError
	if !errors.As(err, &inv) || !strings.Contains(err.Error(), "line 2") {
		t.Errorf("broken: %v", err)
	}
}
