package core

// One round's tool calls: decide every call (PreToolUse hooks, rules, mode,
// a person), then either pause the round untouched (--on-ask pause) or run
// the allowed calls, at most maxParallelTools at once, and commit a result
// for every call in call order. A round is committed whole or not at all.

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"sync"
	"time"

	"trail/core/chat"
	"trail/core/errs"
	"trail/core/hooks"
	"trail/core/permission"
	"trail/core/procgroup"
	"trail/core/tools"
	"trail/logfmt"
)

// maxParallelTools caps the tool calls of one round running at once (Robota's batch).
const maxParallelTools = 5

// toolRun is one call of a batch: what was decided and how it ended.
type toolRun struct {
	call     chat.ToolCall
	args     json.RawMessage // as the tool gets them (a hook may have changed them)
	hookArgs bool            // args are a PreToolUse hook's updatedInput
	askedBy  string          // what made the call a question no allow answers: "ask rule R", "a PreToolUse hook"
	tool     tools.Tool
	decision string // DecisionAllow, DecisionDeny or DecisionAsk (paused)
	source   string
	rule     string
	reason   string // why it was denied, as the model reads it
	result   tools.Result
	denied   bool
	ran      bool
	deferred bool          // a PreToolUse hook answered defer
	alone    bool          // it changes something: run with no other call beside it
	context  []string      // hook text for the model, beside the result
	duration time.Duration // how long the tool ran
}

// runTools decides and runs the calls of an assistant message. paused is
// true when the round waits for approval (nothing ran, nothing committed).
func (s *session) runTools(ctx context.Context, round int, msg chat.Message) (paused bool, err error) {
	runs := make([]*toolRun, len(msg.ToolCalls))
	for i, call := range msg.ToolCalls {
		// Claude Code's spelling (file_path...) becomes the tool's own
		// before the rules, the hooks and the log see the call.
		runs[i] = &toolRun{call: call, args: tools.Normalize(call.Name, call.Args()), tool: toolNamed(s.tools, call.Name)}
	}
	s.roundCalls = len(runs)
	for _, r := range runs {
		s.decide(ctx, round, r)
	}
	for _, r := range runs {
		if r.decision == permission.DecisionAsk {
			s.pause(round, runs)
			return true, nil
		}
	}
	return false, s.executeBatch(ctx, round, runs)
}

// executeBatch logs the batch, runs the allowed calls, runs PostToolUse
// hooks, and commits every result in call order.
func (s *session) executeBatch(ctx context.Context, round int, runs []*toolRun) error {
	batchID, err := s.newID()
	if err != nil {
		return err
	}
	names := make([]string, len(runs))
	mode := "parallel" // reads only: side by side
	for i, r := range runs {
		names[i] = r.call.Name
		r.alone = !s.onlyReads(r)
		if r.tool != nil && r.alone {
			mode = "sequential" // execute runs such a call alone
		}
	}
	s.logEvent("tool_batch_started", roundFields(s.execID, round,
		logfmt.F("batchId", batchID),
		logfmt.F("mode", mode),
		logfmt.F("maxConcurrency", procgroup.Parallel(maxParallelTools)),
		logfmt.F("requestCount", len(runs)),
		logfmt.F("tools", names))...)
	for i, r := range runs {
		s.logEvent("tool_execution_request", s.callFields(round, batchID, i,
			logfmt.F("toolName", r.call.Name),
			logfmt.F("toolCallId", r.call.ID),
			logfmt.F("parameters", r.args),
			logfmt.F("ownerPath", []any{
				logfmt.Object{logfmt.F("type", "execution"), logfmt.F("id", s.execID)},
				logfmt.Object{logfmt.F("type", "tool"), logfmt.F("id", r.call.ID)},
			}))...)
	}
	s.execute(ctx, round, runs)
	s.postToolUse(ctx, runs)
	for _, r := range runs {
		if len(r.context) > 0 {
			r.result.Extra = append(r.result.Extra, tools.ResultField{Key: "hookFeedback", Value: joinLines(r.context)})
		}
		if r.result.Response != nil {
			s.noteResponse(r.call.ID, r.result.Response)
		}
	}
	s.logUnsaved()
	summary := make([]any, len(runs))
	for i, r := range runs {
		content := encodeToolResult(r.result)
		s.logEvent("tool_execution_result", s.callFields(round, batchID, i, resultFields(r, content)...)...)
		tm, err := s.newMessage(chat.RoleTool, content)
		if err != nil {
			return err
		}
		tm.ToolCallID, tm.Name = r.call.ID, r.call.Name
		if r.result.Seen != nil {
			tm.Metadata = fileSeenMetadata(r.result.Seen)
		}
		s.logEvent("tool_message_committed", s.callFields(round, batchID, i, logfmt.F("message", tm))...)
		s.appendMessage(tm, round, batchID)
		summary[i] = logfmt.Object{
			logfmt.F("toolName", r.call.Name),
			logfmt.F("toolCallId", r.call.ID),
			logfmt.F("success", r.result.Success),
			logfmt.F("denied", r.denied),
		}
		out := &ToolOutcome{Success: r.result.Success, Denied: r.denied, Summary: r.result.Error, Result: content, ExitCode: r.result.ExitCode,
			Response: r.result.Response, IsError: r.failed() || r.denied || r.tool == nil,
			Source: r.source, Rule: r.rule, Mode: s.perms.Mode}
		if r.hookArgs {
			out.Rewritten = r.args
		}
		out.AskedBy = r.askedBy
		s.obs.Event(StepEvent{Kind: EvToolFinished, Round: round, ToolCall: &r.call, Tool: out})
	}
	s.eventEntry("tool-summary", logfmt.Object{logfmt.F("round", round), logfmt.F("tools", summary)})
	return nil
}

// callFields start the lines of call i of a batch: the round's keys, then
// batchId and index.
func (s *session) callFields(round int, batchID string, i int, extra ...logfmt.Field) []logfmt.Field {
	return roundFields(s.execID, round, append([]logfmt.Field{logfmt.F("batchId", batchID), logfmt.F("index", i)}, extra...)...)
}

// execute runs the allowed calls in call order, reads side by side (at
// most maxParallelTools at once, fewer under a low open-files limit:
// procgroup.Parallel) and every other call alone, once the calls before it
// are done, as Claude Code runs them. Models send several Edits of one
// file in one turn; run together, each read the file before the others
// wrote it and the last rename won, so edits reported done were lost.
// Results stay in call order because each run owns its slot. Calls that
// were not allowed already hold their result.
func (s *session) execute(ctx context.Context, round int, runs []*toolRun) {
	sem := make(chan struct{}, procgroup.Parallel(maxParallelTools))
	var wg sync.WaitGroup
	seen := &roundSeen{}
	env := tools.Env{Cwd: s.rec.Cwd, Dirs: s.dirs, Env: s.toolEnv(), ReadDenied: s.perms.ReadDenied(), NoteTemp: s.noteToolTemp, EnvFile: s.activeEnvFile(),
		LastSeen: func(path string) (tools.FileSeen, bool) { return s.lastSeen(seen, path) }}
	for _, r := range runs {
		if r.tool == nil || r.decision != permission.DecisionAllow {
			continue
		}
		if ctx.Err() != nil {
			r.result = tools.Result{Error: "Aborted before start"}
			continue
		}
		if r.alone {
			wg.Wait() // the calls before it are done
		}
		wg.Add(1)
		sem <- struct{}{}
		r.ran = true
		s.obs.Event(StepEvent{Kind: EvToolStarted, Round: round, ToolCall: &r.call})
		go func(r *toolRun) {
			defer wg.Done()
			defer func() { <-sem }()
			// A tool must not panic; if one does, its call fails and the
			// round is still committed whole instead of the process dying.
			defer func() {
				if p := recover(); p != nil {
					r.result = tools.Result{Error: fmt.Sprintf("internal error in %s: %v", r.call.Name, p)}
				}
			}()
			start := time.Now()
			r.result = r.tool.Run(ctx, r.args, env)
			r.duration = time.Since(start)
			seen.note(r.result.Seen)
		}(r)
		if r.alone {
			wg.Wait() // and the calls after it wait for it
		}
	}
	wg.Wait()
}

// onlyReads reports whether a call changes nothing, so it may run beside
// others: Read, Glob, Grep, and a Bash command that only reads.
func (s *session) onlyReads(r *toolRun) bool {
	switch r.call.Name {
	case "Read", "Glob", "Grep":
		return true
	case "Bash":
		var a struct {
			Command string `json:"command"`
		}
		return json.Unmarshal(r.args, &a) == nil && s.perms.ReadOnlyCommand(a.Command)
	}
	return false
}

// postToolUse runs, for each call that ran, in call order, PostToolUse
// after a success or PostToolUseFailure after a failure (as Claude Code
// does; a Bash command that exited non-zero failed). A hook's reason
// (exit 2, decision block) and its additionalContext reach the model
// beside the result; plain stdout does not.
func (s *session) postToolUse(ctx context.Context, runs []*toolRun) {
	if !s.hooks.Has(hooks.PostToolUse) && !s.hooks.Has(hooks.PostToolUseFailure) {
		return
	}
	for _, r := range runs {
		if !r.ran {
			continue
		}
		call := s.hookCall(r)
		var out hooks.Outcome
		if r.failed() {
			out = s.runHooks(ctx, hooks.PostToolUseFailure, hooks.PostToolUseFailureInput(call, r.failure(), r.result.Interrupted, r.duration))
		} else {
			out = s.runHooks(ctx, hooks.PostToolUse, hooks.PostToolUseInput(call, r.response(), r.duration))
		}
		if out.Blocked {
			r.context = append(r.context, out.Reason)
		}
		r.context = append(r.context, out.Context...)
		if out.Stop {
			s.stopByHook(hooks.PostToolUse, out)
		}
	}
}

// failed reports whether a call that ran failed, as Claude Code counts it:
// an error, or a command that exited non-zero.
func (r *toolRun) failed() bool {
	return !r.result.Success || (r.result.ExitCode != nil && *r.result.ExitCode != 0)
}

// failure is PostToolUseFailure's error: for a command, "Exit code N" and
// its output (Claude Code's form); else the tool's error.
func (r *toolRun) failure() string {
	if r.result.Success && r.result.ExitCode != nil {
		return fmt.Sprintf("Exit code %d\n%s", *r.result.ExitCode, r.result.Output)
	}
	return strings.TrimSpace(cmp.Or(r.result.Error, "failed") + "\n" + r.result.Output)
}

// response is PostToolUse's tool_response: the tool's Claude-shaped
// output, or the result trail sends the model when the tool gave none.
func (r *toolRun) response() any {
	if r.result.Response != nil {
		return r.result.Response
	}
	return json.RawMessage(encodeToolResult(r.result))
}

// stopByHook remembers the first continue:false of a tool hook: the step
// ends once the round is committed.
func (s *session) stopByHook(event string, out hooks.Outcome) {
	if s.hookStop == nil {
		s.hookStop = &errs.HookBlockedError{Event: event, Reason: cmp.Or(strings.TrimSpace(out.StopReason), strings.TrimSpace(out.Reason))}
	}
}

func (s *session) unknownTool(name string) tools.Result {
	avail := toolNames(s.tools)
	sort.Strings(avail)
	return tools.Result{
		Success: false,
		Error:   "Unknown tool: " + name + ". The call was not executed.",
		Extra: []tools.ResultField{
			{Key: "errorCode", Value: "unknown_tool"},
			{Key: "toolName", Value: name},
			{Key: "availableTools", Value: avail},
		},
	}
}

// toolEnv is what Bash adds to trail's environment: the settings env and
// the session's id under Claude Code's name (its Bash tool sets it too).
func (s *session) toolEnv() []string {
	env := make([]string, 0, len(s.opts.Settings.Env)+1)
	for k, v := range s.opts.Settings.Env {
		env = append(env, k+"="+v)
	}
	sort.Strings(env)
	if s.rec != nil {
		env = append(env, "CLAUDE_CODE_SESSION_ID="+s.rec.ID)
	}
	return env
}

// encodeToolResult is the tool message content: a JSON string of Robota's
// {success, output, error?, exitCode?} plus extra keys.
func encodeToolResult(r tools.Result) string {
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

// resultFields are a tool_execution_result's own keys. Robota leaves error
// and metadata out of a success (JSON.stringify drops their undefined), so
// a success here has neither unless there is something to say.
func resultFields(r *toolRun, content string) []logfmt.Field {
	fields := []logfmt.Field{
		logfmt.F("toolName", r.call.Name),
		logfmt.F("toolCallId", r.call.ID),
		logfmt.F("success", r.result.Success),
		logfmt.F("result", content),
	}
	if !r.result.Success || r.result.Error != "" {
		fields = append(fields, logfmt.F("error", r.result.Error))
	}
	if !r.result.Success || r.denied {
		fields = append(fields, logfmt.F("metadata", logfmt.Object{logfmt.F("denied", r.denied)}))
	}
	return fields
}
