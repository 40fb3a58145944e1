package core

// The decision for each tool call, in call order, before any call runs:
//
//  1. PreToolUse hooks. Exit 2 (or decision block, or continue false)
//     blocks the call, even under bypassPermissions; updatedInput (in
//     Claude Code's parameter names, mapped back) replaces its arguments;
//     additionalContext goes to the model beside the result.
//  2. A deny rule denies; a hook's deny denies; a hook's defer (when the
//     round has that one call) pauses the round (exit 4); an ask rule asks
//     (a hook's allow overrides neither rule, as in Claude Code).
//  3. A hook's permissionDecision: allow allows without a prompt, ask
//     forces a prompt.
//  4. An allow rule allows (or the rules find a read-only command); else
//     the mode table.
//  5. ask: in dontAsk mode, denied; a tool the person allowed for the
//     session is allowed; on a terminal the person answers y / a / n;
//     without one --on-ask decides: deny, or pause the round (SPEC 5.4).

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"trail/core/hooks"
	"trail/core/permission"
	"trail/core/tools"
	"trail/logfmt"
)

// Denial texts, as the model reads them in the tool result.
const (
	deniedByPerson     = "Permission denied. The user did not approve this action."
	deniedNoTerminal   = "Permission denied. This call needs approval and trail runs without a terminal to ask on (--on-ask deny), so it was not approved."
	blockedByHookLabel = "Blocked by hook: "
	deniedDontAsk      = "Permission denied. The permission mode is dontAsk: a call that would need approval is denied."
)

// DeniedAtInterrupt is the reason of a call whose question a Ctrl-C
// ended: the person stopped trail, they did not decline the call.
const DeniedAtInterrupt = "Permission denied. The user interrupted trail at the approval question; the call did not run."

func (s *session) decide(ctx context.Context, round int, r *toolRun) {
	if r.tool == nil {
		r.result = s.unknownTool(r.call.Name)
		return
	}
	if ctx.Err() != nil {
		r.result = tools.Result{Error: "Aborted before start"}
		return
	}
	var hook hooks.Outcome
	if s.hooks.Has(hooks.PreToolUse) {
		hook = s.runHooks(ctx, hooks.PreToolUse, hooks.PreToolUseInput(s.hookCall(r)))
	}
	r.context = append(r.context, hook.Context...)
	if hook.Stop {
		s.stopByHook(hooks.PreToolUse, hook)
	}
	if hook.Blocked {
		s.settle(round, r, permission.DecisionDeny, permission.SourceHook, "", blockedByHookLabel+hook.Reason)
		return
	}
	if len(hook.UpdatedInput) > 0 && json.Valid(hook.UpdatedInput) {
		// A hook answers in Claude Code's names; the tool reads Robota's.
		r.args, r.hookArgs = tools.Normalize(r.call.Name, hook.UpdatedInput), true
	}
	if hook.Permission == hooks.DecisionDefer && s.roundCalls > 1 {
		s.obs.Event(StepEvent{Kind: EvWarning, Text: fmt.Sprintf("a PreToolUse hook deferred %s, but the model made %d calls at once: defer works for a single call; deciding it as usual", r.call.Name, s.roundCalls)})
		hook.Permission = ""
	}
	v := s.perms.Check(r.call.Name, r.args)
	switch {
	case v.Decision == permission.DecisionDeny && v.Source == permission.SourceRule:
		s.settle(round, r, permission.DecisionDeny, permission.SourceRule, v.Rule, "Permission denied by rule "+v.Rule+".")
	case hook.Permission == permission.DecisionDeny:
		s.settle(round, r, permission.DecisionDeny, permission.SourceHook, "", blockedByHookLabel+cmp.Or(strings.TrimSpace(hook.PermissionReason), "permissionDecision deny"))
	case hook.Permission == hooks.DecisionDefer:
		// Claude Code's print mode: the call waits, the step stops with
		// it pending (exit 4); resume asks the hooks again.
		r.deferred = true
		s.settle(round, r, permission.DecisionAsk, permission.SourceHook, "", "deferred by a PreToolUse hook")
	case v.Decision == permission.DecisionAsk && v.Source == permission.SourceRule:
		// An ask rule asks every time: neither the session's allowed
		// tools nor a hook's allow answer for the person.
		r.askedBy = "ask rule " + v.Rule
		if v.Unseen != "" {
			// the command is why: its words do not say all it runs
			r.askedBy = "a command whose words do not say all it runs (" + v.UnseenWhy + ", so " + v.Unseen + " cannot judge it)"
		}
		s.ask(ctx, round, r, true, "")
	case hook.Permission == permission.DecisionAllow:
		s.settle(round, r, permission.DecisionAllow, permission.SourceHook, "", hook.PermissionReason)
	case hook.Permission == permission.DecisionAsk:
		r.askedBy = "a PreToolUse hook"
		s.ask(ctx, round, r, true, hook.PermissionReason)
	case v.Decision == permission.DecisionAllow:
		s.settle(round, r, permission.DecisionAllow, v.Source, v.Rule, "")
	case v.Decision == permission.DecisionDeny:
		s.settle(round, r, permission.DecisionDeny, permission.SourceMode, "", fmt.Sprintf("Permission denied: %s is not allowed in %s mode.", r.call.Name, s.perms.Mode))
	default:
		s.ask(ctx, round, r, false, "")
	}
}

// hookCall is a call as hooks see it: Claude Code's parameter names with
// an absolute file_path, and the tools' own names for "if" rules.
func (s *session) hookCall(r *toolRun) hooks.Call {
	return hooks.Call{Name: r.call.Name, ID: r.call.ID, Input: tools.ClaudeInput(r.call.Name, r.args, s.rec.Cwd), Args: r.args}
}

// ask settles a call that needs approval. forced (a hook's ask) skips the
// session's allowed tools.
func (s *session) ask(ctx context.Context, round int, r *toolRun, forced bool, why string) {
	if s.perms.Mode == permission.ModeDontAsk {
		s.settle(round, r, permission.DecisionDeny, permission.SourceMode, "", deniedDontAsk)
		return
	}
	if !forced && s.sessionAllows(r.call.Name) {
		s.settle(round, r, permission.DecisionAllow, permission.SourceSession, "", "")
		return
	}
	t := s.e.Terminal
	if t == nil || !t.CanPrompt() {
		if s.opts.OnAsk == OnAskPause {
			s.notifyApproval(ctx, round, r)
			s.settle(round, r, permission.DecisionAsk, permission.SourceNoTerminal, "", why)
			return
		}
		s.settle(round, r, permission.DecisionDeny, permission.SourceNoTerminal, "", deniedNoTerminal)
		return
	}
	s.notifyApproval(ctx, round, r)
	answer, err := AskContext(ctx, t, approvalQuestion(r, why))
	if err != nil {
		reason := deniedByPerson
		if ctx.Err() != nil {
			reason = DeniedAtInterrupt
		}
		s.settle(round, r, permission.DecisionDeny, permission.SourcePrompt, "", reason)
		return
	}
	switch strings.ToLower(answer) {
	case "y", "yes":
		s.settle(round, r, permission.DecisionAllow, permission.SourcePrompt, "", "")
	case "a", "always":
		s.allowForSession(r.call.Name)
		s.settle(round, r, permission.DecisionAllow, permission.SourcePrompt, "", "allowed for the session")
	default:
		s.settle(round, r, permission.DecisionDeny, permission.SourcePrompt, "", deniedByPerson)
	}
}

// notifyApproval runs the Notification hooks (Claude Code's
// permission_prompt) when a call waits for a person: at the terminal's
// question, or paused for a later resume. Once a round: a batch of calls
// needs one ping.
func (s *session) notifyApproval(ctx context.Context, round int, r *toolRun) {
	if !s.hooks.Has(hooks.Notification) || s.notifiedRound == round {
		return
	}
	s.notifiedRound = round
	s.runHooks(ctx, hooks.Notification, hooks.NotificationInput(hooks.NotificationPermission,
		"trail needs your permission to use "+r.call.Name))
}

// AskContext asks without outliving an interrupt: the first Ctrl-C cancels
// ctx and ends the question with ctx's error (a terminal read would
// otherwise go on until a second Ctrl-C kills the process).
func AskContext(ctx context.Context, t Terminal, q string) (string, error) {
	type reply struct {
		s   string
		err error
	}
	ch := make(chan reply, 1)
	go func() {
		s, err := t.Ask(q)
		ch <- reply{s, err}
	}()
	select {
	case r := <-ch:
		return r.s, r.err
	case <-ctx.Done():
		return "", ctx.Err()
	}
}

// maxShownArgs caps the arguments shown in a question (a Write of a large
// file would otherwise scroll the question away). A Bash call is shown
// whole: its command is what the answer approves, and a model could put
// "; rm -rf ~" past any cut. Other calls keep their start and their end.
const maxShownArgs = 2000

// approvalQuestion names the tool and its arguments.
func approvalQuestion(r *toolRun, why string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "\ntrail: allow %s?\n", permission.DescribeCall(r.call.Name, r.args))
	if args := strings.TrimSpace(string(r.args)); args != "" && args != "{}" {
		if r.call.Name != "Bash" {
			args = cutMiddle(args, maxShownArgs)
		}
		fmt.Fprintf(&b, "  arguments: %s\n", args)
	}
	if why != "" {
		fmt.Fprintf(&b, "  hook: %s\n", why)
	}
	// Under 80 columns for the built-in tools' names: a wrapped line
	// breaks at "(default" on a standard terminal.
	fmt.Fprintf(&b, "  y = yes, a = yes to every %s call of this session, n = no (default)\n[y/a/N] ", r.call.Name)
	return b.String()
}

// settle records a call's decision, its result when denied, and logs it.
func (s *session) settle(round int, r *toolRun, decision, source, rule, reason string) {
	r.decision, r.source, r.rule, r.reason = decision, source, rule, reason
	if decision == permission.DecisionDeny {
		r.denied = true
		r.result = tools.Result{Success: false, Error: reason}
		s.denials = append(s.denials, PermissionDenial{ToolName: r.call.Name, ToolUseID: r.call.ID, ToolInput: tools.ClaudeInput(r.call.Name, r.args, s.rec.Cwd)})
	}
	s.logDecision(round, r)
}

// logDecision writes permission_decision and, for decisions a person or a
// hook made, a history event entry.
func (s *session) logDecision(round int, r *toolRun) {
	fields := roundFields(s.execID, round,
		logfmt.F("tool", r.call.Name),
		logfmt.F("toolCallId", r.call.ID),
		logfmt.F("decision", r.decision),
		logfmt.F("source", r.source))
	if r.rule != "" {
		fields = append(fields, logfmt.F("rule", r.rule))
	}
	if r.reason != "" {
		fields = append(fields, logfmt.F("reason", r.reason))
	}
	s.logEvent("permission_decision", fields...)
	typ := ""
	switch {
	case r.decision == permission.DecisionDeny:
		typ = "tool-denial"
	case r.decision == permission.DecisionAllow && (r.source == permission.SourcePrompt || r.source == permission.SourceFlag || r.source == permission.SourceHook):
		typ = "tool-approval"
	}
	if typ != "" {
		s.eventEntry(typ, logfmt.Object{
			logfmt.F("toolName", r.call.Name),
			logfmt.F("toolCallId", r.call.ID),
			logfmt.F("decision", r.decision),
			logfmt.F("source", r.source),
		})
	}
}

// cutMiddle is s cut to about n characters, its start and its end kept
// (the end of a call's arguments is where a last field or an appended
// line sits), saying how much is left out.
func cutMiddle(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	head, tail := r[:n*3/4], r[len(r)-n/4:]
	return fmt.Sprintf("%s … [%d of %d bytes not shown] … %s", string(head), len(s)-len(string(head))-len(string(tail)), len(s), string(tail))
}

func joinLines(s []string) string { return strings.Join(s, "\n") }
