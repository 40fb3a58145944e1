package main_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"time"
)

// The crash campaign's provider: Anthropic's streaming wire format (SSE
// events as the Messages API sends them), answering a prompt with a
// tool_use round that calls Write and a tool result with the final text.

// crashWrite is what the model writes: big enough (over 32 KB) that its
// arguments go to payload files, so kills land among payload writes too.
var crashWrite = strings.Repeat("a line the model wrote to the file\n", 1200)

func sse(event string, data any) string {
	b, _ := json.Marshal(data)
	return "event: " + event + "\ndata: " + string(b) + "\n\n"
}

func messageStart(id string) string {
	return sse("message_start", map[string]any{"type": "message_start", "message": map[string]any{
		"id": id, "type": "message", "role": "assistant", "model": "claude-sonnet-4-5", "content": []any{},
		"stop_reason": nil, "stop_sequence": nil, "usage": map[string]any{"input_tokens": 100, "output_tokens": 1}}})
}

func textDelta(index int, text string) string {
	return sse("content_block_delta", map[string]any{"type": "content_block_delta", "index": index, "delta": map[string]any{"type": "text_delta", "text": text}})
}

func blockStop(index int) string {
	return sse("content_block_stop", map[string]any{"type": "content_block_stop", "index": index})
}

func messageEnd(reason string) []string {
	return []string{
		sse("message_delta", map[string]any{"type": "message_delta", "delta": map[string]any{"stop_reason": reason, "stop_sequence": nil}, "usage": map[string]any{"output_tokens": 20}}),
		sse("message_stop", map[string]any{"type": "message_stop"}),
	}
}

// toolUseEvents is an Anthropic stream that says a few words and calls
// Write; n makes the ids unique.
func toolUseEvents(n int) []string {
	args, _ := json.Marshal(map[string]string{"filePath": "out.txt", "content": crashWrite})
	third := len(args) / 3
	evs := []string{
		messageStart(fmt.Sprintf("msg_tool_%d", n)),
		sse("content_block_start", map[string]any{"type": "content_block_start", "index": 0, "content_block": map[string]any{"type": "text", "text": ""}}),
		textDelta(0, "I will"), textDelta(0, " write"), textDelta(0, " the file."),
		blockStop(0),
		sse("content_block_start", map[string]any{"type": "content_block_start", "index": 1, "content_block": map[string]any{
			"type": "tool_use", "id": fmt.Sprintf("toolu_crash_%d", n), "name": "Write", "input": map[string]any{}}}),
	}
	for _, part := range []string{string(args[:third]), string(args[third : 2*third]), string(args[2*third:])} {
		evs = append(evs, sse("content_block_delta", map[string]any{"type": "content_block_delta", "index": 1, "delta": map[string]any{"type": "input_json_delta", "partial_json": part}}))
	}
	evs = append(evs, blockStop(1))
	return append(evs, messageEnd("tool_use")...)
}

func finalEvents() []string {
	evs := []string{
		messageStart("msg_final"),
		sse("content_block_start", map[string]any{"type": "content_block_start", "index": 0, "content_block": map[string]any{"type": "text", "text": ""}}),
		textDelta(0, "The file"), textDelta(0, " is"), textDelta(0, " written"), textDelta(0, "."),
		blockStop(0),
	}
	return append(evs, messageEnd("end_turn")...)
}

// crashServer answers like Anthropic: a prompt gets a tool_use round, a
// tool result the final text. While slow (the killed step), it sleeps
// between events and carries out the kill plan.
type crashServer struct {
	mu       sync.Mutex
	requests int
	slow     bool
	plan     killPlan
	kill     func()
}

func (s *crashServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	var req struct {
		Messages []struct {
			Role    string          `json:"role"`
			Content json.RawMessage `json:"content"`
		} `json:"messages"`
	}
	if err := json.Unmarshal(body, &req); err != nil || len(req.Messages) == 0 {
		http.Error(w, `{"type":"error","error":{"type":"invalid_request_error","message":"bad body"}}`, http.StatusBadRequest)
		return
	}
	s.mu.Lock()
	s.requests++
	n, slow, plan, kill := s.requests, s.slow, s.plan, s.kill
	s.mu.Unlock()
	last := req.Messages[len(req.Messages)-1].Content
	prompt := last[0] == '"' || bytes.Contains(last, []byte(`"type":"text"`))
	evs := finalEvents()
	if prompt {
		evs = toolUseEvents(n)
	}
	response := 1
	if !prompt {
		response = 2
	}
	w.Header().Set("Content-Type", "text/event-stream")
	w.WriteHeader(http.StatusOK)
	for i, ev := range evs {
		if _, err := io.WriteString(w, ev); err != nil {
			return
		}
		w.(http.Flusher).Flush()
		if slow && plan.response == response && plan.event == i {
			time.AfterFunc(plan.delay, kill)
		}
		if slow {
			time.Sleep(2 * time.Millisecond)
		}
	}
}
