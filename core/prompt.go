package core

// One prompt (SPEC 5.1): SessionStart, then either the decided batch of a
// paused round and the loop after it, or UserPromptSubmit, the user message
// and the loop; then Stop, which may send the model back to work.

import (
	"context"
	"strconv"
	"strings"

	"trail/core/chat"
	"trail/core/errs"
	"trail/core/hooks"
	"trail/logfmt"
)

// maxStopContinuations bounds how often Stop hooks may send the model back
// to work in a row, so a hook that always blocks cannot loop forever:
// Claude Code's cap of 8 consecutive blocks, which
// CLAUDE_CODE_STOP_HOOK_BLOCK_CAP changes (0 lifts it).
const maxStopContinuations = 8

// runPrompt runs the step's prompt (and, on a paused session, the decided
// calls first) and finishes the step.
func (s *session) runPrompt(ctx context.Context, prompt string) (*Result, error) {
	s.obs.Event(StepEvent{Kind: EvSession, SessionID: s.rec.ID, Resumed: s.resumed, Provider: s.pcfg.Name, Model: s.pcfg.Model,
		Cwd: s.rec.Cwd, PermissionMode: s.perms.Mode, Tools: toolNames(s.tools), Stream: s.opts.Stream != nil && *s.opts.Stream})
	s.showOpenWarnings()
	resuming := len(s.pending) > 0
	s.sessionStart(ctx)
	stop, err := StopEndTurn, error(nil)
	if resuming {
		stop, err = s.continuePaused(ctx)
		if prompt != "" && (err != nil || stop != StopEndTurn) {
			s.obs.Event(StepEvent{Kind: EvWarning, Text: "the new prompt was not run: the session stopped (" + stop + ") before it"})
			prompt = ""
		}
	}
	switch {
	case prompt != "":
		stop, err = s.submit(ctx, prompt)
	case !resuming && s.owesAnswer():
		// No new prompt: the answer a failed step did not get.
		s.obs.Event(StepEvent{Kind: EvNotice, Text: "no new prompt: asking the model again for the answer the last step did not get"})
		stop, err = s.loop(ctx)
	}
	stop, err = s.stopHooks(ctx, stop, err)
	return s.finish(ctx, stop, err)
}

// sessionStart runs SessionStart hooks; what they print is injected before
// the next prompt.
func (s *session) sessionStart(ctx context.Context) {
	source := "startup"
	switch {
	case s.opts.Fork:
		source = "fork" // Claude Code's source for a forked session
	case s.resumed:
		source = "resume"
	}
	s.sessionStartHooks(ctx, source)
}

// sessionStartHooks runs SessionStart hooks for source (startup, resume,
// compact). Their plain stdout and additionalContext are injected before
// the next prompt; what they write to CLAUDE_ENV_FILE, Bash runs first.
func (s *session) sessionStartHooks(ctx context.Context, source string) {
	s.prepareEnvFile()
	out := s.runHooks(ctx, hooks.SessionStart, hooks.SessionStartInput(source, s.pcfg.Model))
	s.startContext = append(append(s.startContext, out.Plain...), out.Context...)
}

// continuePaused runs the paused round with the decisions given, then the loop.
func (s *session) continuePaused(ctx context.Context) (string, error) {
	paused, err := s.resumePending(ctx)
	if err != nil {
		return StopError, err
	}
	if paused {
		return StopRequiresAction, nil
	}
	if stop, err := s.roundDone(ctx); stop != "" {
		return stop, err
	}
	return s.loop(ctx)
}

// submit runs UserPromptSubmit, appends the user message (with the hooks'
// context before it) and runs the loop. A blocking hook refuses the prompt:
// nothing is appended.
func (s *session) submit(ctx context.Context, prompt string) (string, error) {
	s.autoCompact(ctx)
	s.logEvent("user", logfmt.F("content", prompt))
	// The prompt's id (Claude Code's prompt_id) is the user message's:
	// hooks see it from UserPromptSubmit on.
	user, err := s.newMessage(chat.RoleUser, "")
	if err != nil {
		return StopError, err
	}
	s.hooks.PromptID = user.ID
	out := s.runHooks(ctx, hooks.UserPromptSubmit, hooks.UserPromptSubmitInput(prompt))
	if out.Blocked {
		return StopError, &errs.HookBlockedError{Event: hooks.UserPromptSubmit, Reason: out.Reason}
	}
	input := withReminder(append(append(s.startContext, out.Plain...), out.Context...), prompt)
	s.startContext = nil
	s.logPreRun(input)
	user.Content = input
	first := firstPrompt(s.messages, prompt) // before this one joins them
	s.appendUnsaved(user, 0)                 // logged before the round's request
	if s.rec.Title == "" {
		// Redacted before it is cut, so a key cut in half is not kept.
		s.rec.Title = chat.FirstLine(s.red.String(first), titleLen)
	}
	s.obs.Event(StepEvent{Kind: EvUserMessage, Message: &user})
	return s.loop(ctx)
}

// firstPrompt is the session's first user prompt (SPEC 3.2's title), the
// hook context before it left out; prompt when the conversation has none
// yet. A record another program wrote (Robota keeps no title) is titled
// by how it began, not by the prompt that resumed it.
func firstPrompt(msgs []chat.Message, prompt string) string {
	for _, m := range msgs {
		if m.Role != chat.RoleUser || strings.TrimSpace(m.Content) == "" {
			continue
		}
		text := m.Content
		if rest, ok := strings.CutPrefix(text, "<system-reminder>\n"); ok {
			if _, after, found := strings.Cut(rest, "\n</system-reminder>\n"); found {
				text = after
			}
		}
		return text
	}
	return prompt
}

// withReminder puts hook output before the prompt the way Robota does.
func withReminder(context []string, prompt string) string {
	if len(context) == 0 {
		return prompt
	}
	return "<system-reminder>\n" + strings.Join(context, "\n") + "\n</system-reminder>\n" + prompt
}

// stopHooks runs Stop after a successful answer. A Stop hook that blocks
// (exit 2 or decision block) sends its reason to the model, which goes on;
// the next Stop sees stop_hook_active true (Claude Code's contract).
func (s *session) stopHooks(ctx context.Context, stop string, err error) (string, error) {
	active := false
	limit := s.stopBlockCap()
	for n := 0; err == nil && stop == StopEndTurn && s.hooks.Has(hooks.Stop); n++ {
		out := s.runHooks(ctx, hooks.Stop, hooks.StopInput(s.final, active))
		if out.Stop {
			break
		}
		// A block's reason, or additionalContext ("run the tests before
		// finishing"), sends the model back to work (Claude Code).
		feedback := out.Reason
		if !out.Blocked {
			feedback = strings.Join(out.Context, "\n")
		}
		if feedback == "" {
			break
		}
		if limit > 0 && n == limit {
			s.obs.Event(StepEvent{Kind: EvWarning, Text: "Stop hooks kept the model working " + strconv.Itoa(n) + " times in a row; stopping here"})
			break
		}
		msg, nerr := s.newMessage(chat.RoleUser, "Stop hook feedback:\n"+feedback)
		if nerr != nil {
			return StopError, nerr
		}
		s.appendUnsaved(msg, 0)
		active = true
		stop, err = s.loop(ctx)
	}
	return stop, err
}

// stopBlockCap is how many times in a row Stop hooks may send the model
// back to work: CLAUDE_CODE_STOP_HOOK_BLOCK_CAP when set (0: no cap), else
// maxStopContinuations.
func (s *session) stopBlockCap() int {
	if s.e.Env != nil {
		if n, err := strconv.Atoi(strings.TrimSpace(s.e.Env("CLAUDE_CODE_STOP_HOOK_BLOCK_CAP"))); err == nil && n >= 0 {
			return n
		}
	}
	return maxStopContinuations
}
