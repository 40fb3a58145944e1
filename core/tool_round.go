package core

import (
	"context"
	"encoding/json"
	"sort"
	"sync"

	"trail/logfmt"
)

// maxParallelTools caps the tool calls of one round running at once (Robota's batch).
const maxParallelTools = 5

// toolRun is one call of a batch and how it ended.
type toolRun struct {
	call   ToolCall
	args   json.RawMessage
	tool   Tool
	result ToolResult
	denied bool
}

// runTools executes the calls of an assistant message and appends their
// results in call order. Every call gets a result: unknown tools and bad
// arguments fail the call, never the step.
func (s *session) runTools(ctx context.Context, round int, msg Message) error {
	batchID, err := s.newID()
	if err != nil {
		return err
	}
	runs := make([]*toolRun, len(msg.ToolCalls))
	names := make([]string, len(msg.ToolCalls))
	for i, call := range msg.ToolCalls {
		runs[i] = &toolRun{call: call, args: toolArgs(call.Arguments), tool: s.findTool(call.Name)}
		names[i] = call.Name
	}
	s.logEvent("tool_batch_started",
		logfmt.F("executionId", s.execID),
		logfmt.F("conversationId", conversationID),
		logfmt.F("round", round),
		logfmt.F("batchId", batchID),
		logfmt.F("mode", "parallel"),
		logfmt.F("maxConcurrency", maxParallelTools),
		logfmt.F("requestCount", len(runs)),
		logfmt.F("tools", names))
	for i, r := range runs {
		s.logEvent("tool_execution_request",
			logfmt.F("executionId", s.execID),
			logfmt.F("conversationId", conversationID),
			logfmt.F("round", round),
			logfmt.F("batchId", batchID),
			logfmt.F("index", i),
			logfmt.F("toolName", r.call.Name),
			logfmt.F("toolCallId", r.call.ID),
			logfmt.F("parameters", r.args),
			logfmt.F("ownerPath", []any{
				logfmt.Object{logfmt.F("type", "execution"), logfmt.F("id", s.execID)},
				logfmt.Object{logfmt.F("type", "tool"), logfmt.F("id", r.call.ID)},
			}))
	}
	s.execute(ctx, round, runs)
	summary := make([]any, len(runs))
	for i, r := range runs {
		content := encodeToolResult(r.result)
		s.logEvent("tool_execution_result",
			logfmt.F("executionId", s.execID),
			logfmt.F("conversationId", conversationID),
			logfmt.F("round", round),
			logfmt.F("batchId", batchID),
			logfmt.F("index", i),
			logfmt.F("toolName", r.call.Name),
			logfmt.F("toolCallId", r.call.ID),
			logfmt.F("success", r.result.Success),
			logfmt.F("result", content),
			logfmt.F("error", r.result.Error),
			logfmt.F("metadata", logfmt.Object{logfmt.F("denied", r.denied)}))
		tm, err := s.newMessage(RoleTool, content)
		if err != nil {
			return err
		}
		tm.ToolCallID, tm.Name = r.call.ID, r.call.Name
		s.logEvent("tool_message_committed",
			logfmt.F("executionId", s.execID),
			logfmt.F("conversationId", conversationID),
			logfmt.F("round", round),
			logfmt.F("batchId", batchID),
			logfmt.F("index", i),
			logfmt.F("message", tm))
		s.appendMessage(tm, round, batchID)
		summary[i] = logfmt.Object{
			logfmt.F("toolName", r.call.Name),
			logfmt.F("toolCallId", r.call.ID),
			logfmt.F("success", r.result.Success),
			logfmt.F("denied", r.denied),
		}
	}
	s.eventEntry("tool-summary", logfmt.Object{logfmt.F("round", round), logfmt.F("tools", summary)})
	return nil
}

// execute runs the batch, at most maxParallelTools at once; results stay in
// call order because each run owns its slot.
func (s *session) execute(ctx context.Context, round int, runs []*toolRun) {
	sem := make(chan struct{}, maxParallelTools)
	var wg sync.WaitGroup
	env := ToolEnv{Cwd: s.rec.Cwd, Env: s.toolEnv()}
	for _, r := range runs {
		if r.tool == nil {
			r.result = s.unknownTool(r.call.Name)
			continue
		}
		wg.Add(1)
		sem <- struct{}{}
		s.obs.Event(StepEvent{Kind: EvToolStarted, Round: round, ToolCall: &r.call})
		go func(r *toolRun) {
			defer wg.Done()
			defer func() { <-sem }()
			r.result = r.tool.Run(ctx, r.args, env)
		}(r)
	}
	wg.Wait()
	for _, r := range runs {
		out := &ToolOutcome{Success: r.result.Success, Denied: r.denied, Summary: r.result.Error}
		s.obs.Event(StepEvent{Kind: EvToolFinished, Round: round, ToolCall: &r.call, Tool: out})
	}
}

func (s *session) findTool(name string) Tool {
	for _, t := range s.e.Tools {
		if t.Schema().Name == name {
			return t
		}
	}
	return nil
}

func (s *session) unknownTool(name string) ToolResult {
	avail := make([]string, 0, len(s.e.Tools))
	for _, t := range s.e.Tools {
		avail = append(avail, t.Schema().Name)
	}
	sort.Strings(avail)
	return ToolResult{
		Success: false,
		Error:   "Unknown tool: " + name + ". The call was not executed.",
		Extra: []ToolResultField{
			{"errorCode", "unknown_tool"},
			{"toolName", name},
			{"availableTools", avail},
		},
	}
}

func (s *session) toolEnv() []string {
	env := make([]string, 0, len(s.opts.Settings.Env))
	for k, v := range s.opts.Settings.Env {
		env = append(env, k+"="+v)
	}
	sort.Strings(env)
	return env
}

// toolArgs parses a call's JSON arguments; anything else is kept as a string
// so the log and the tool see exactly what the model sent.
func toolArgs(arguments string) json.RawMessage {
	if arguments == "" {
		return json.RawMessage("{}")
	}
	if json.Valid([]byte(arguments)) {
		return json.RawMessage(arguments)
	}
	b, _ := json.Marshal(arguments)
	return b
}

// encodeToolResult is the tool message content: a JSON string of Robota's
// {success, output, error?, exitCode?} plus extra keys.
func encodeToolResult(r ToolResult) string {
	o := logfmt.Object{logfmt.F("success", r.Success), logfmt.F("output", r.Output)}
	if r.Error != "" {
		o = append(o, logfmt.F("error", r.Error))
	}
	if r.ExitCode != nil {
		o = append(o, logfmt.F("exitCode", *r.ExitCode))
	}
	for _, f := range r.Extra {
		o = append(o, logfmt.F(f.Key, f.Value))
	}
	b, err := logfmt.Marshal(o)
	if err != nil {
		return `{"success":false,"output":"","error":"result could not be encoded"}`
	}
	return string(b)
}
