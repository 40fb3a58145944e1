package core

// Pausing for approval (SPEC 5.4). With --on-ask pause, a round whose calls
// include an ask that cannot be asked runs nothing: the assistant message
// stays the record's last message and pendingToolCalls holds every call of
// the round with the decision known so far. resume --approve/--deny decides
// the asks (unnamed ones are denied), runs the round, and the loop goes on.

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"trail/core/chat"
	"trail/core/errs"
	"trail/core/permission"
	"trail/core/tools"
	"trail/logfmt"
	"trail/store"
)

// pause keeps the round for later: nothing runs, the assistant message stays
// as the last message, and the calls with the decisions known so far are
// saved as pendingToolCalls (SPEC 5.4).
func (s *session) pause(round int, runs []*toolRun) {
	s.logUnsaved()
	s.pending = make([]PendingToolCall, len(runs))
	list := make([]any, len(runs))
	for i, r := range runs {
		p := PendingToolCall{ID: r.call.ID, Name: r.call.Name, Arguments: r.args, Decision: r.decision, Source: r.source, Reason: r.reason, Deferred: r.deferred}
		if r.tool == nil {
			p.Decision, p.Source, p.Reason = permission.DecisionDeny, "", r.result.Error
		}
		if r.deferred {
			s.deferred = &DeferredToolUse{ID: r.call.ID, Name: r.call.Name, Input: tools.ClaudeInput(r.call.Name, r.args, s.rec.Cwd)}
		}
		s.pending[i] = p
		list[i] = p
	}
	s.logEvent("requires_action", roundFields(s.execID, round,
		logfmt.F("pendingToolCalls", list))...)
	s.eventEntry("approval-requested", logfmt.Object{logfmt.F("round", round), logfmt.F("pendingToolCalls", list)})
}

// resumePending runs a paused round with the decisions of --approve and
// --deny (unnamed calls are denied), then the loop goes on. A call a
// PreToolUse hook deferred, which neither flag names, is decided again
// from the start, hooks first (Claude Code's resume of a deferred call):
// paused is true when it has to wait once more.
func (s *session) resumePending(ctx context.Context) (paused bool, err error) {
	msg := s.messages[len(s.messages)-1]
	runs := make([]*toolRun, len(msg.ToolCalls))
	s.roundCalls = len(msg.ToolCalls)
	for i, call := range msg.ToolCalls {
		p := s.pending[i]
		r := &toolRun{call: call, args: p.Arguments, tool: toolNamed(s.tools, call.Name)}
		runs[i] = r
		switch {
		case p.Decision == permission.DecisionAsk && p.Deferred && !s.approve.has(call.ID) && !s.deny.has(call.ID):
			s.decide(ctx, 0, r)
		case r.tool == nil:
			r.result = s.unknownTool(call.Name)
		case p.Decision == permission.DecisionAllow:
			r.decision, r.source = permission.DecisionAllow, p.Source
		case p.Decision == permission.DecisionDeny:
			r.decision, r.source, r.denied = permission.DecisionDeny, p.Source, true
			r.result = tools.Result{Error: cmp.Or(strings.TrimSpace(p.Reason), deniedByPerson)}
			s.denials = append(s.denials, PermissionDenial{ToolName: call.Name, ToolUseID: call.ID, ToolInput: tools.ClaudeInput(call.Name, r.args, s.rec.Cwd)})
		case approves(s.approve, s.deny, call.ID):
			s.settle(0, r, permission.DecisionAllow, permission.SourceFlag, "", "")
		default:
			s.settle(0, r, permission.DecisionDeny, permission.SourceFlag, "", deniedByPerson)
		}
	}
	for _, r := range runs {
		if r.decision == permission.DecisionAsk {
			s.pause(0, runs)
			return true, nil
		}
	}
	s.pending = nil
	return false, s.executeBatch(ctx, 0, runs)
}

// loadPending reads a paused session's pending calls and checks the
// decision flags against them, before anything is written: without a
// decision the step stops here (exit 4), naming the calls.
func (s *session) loadPending() error {
	o := s.opts
	calls, err := s.pausedCalls()
	if err != nil {
		return err
	}
	deciding := o.Approve != "" || o.Deny != ""
	if len(calls) == 0 {
		if deciding {
			return errs.Usagef("drop --approve and --deny", "session %s is not waiting for approval", s.rec.ID)
		}
		return nil
	}
	if !deciding {
		if !onlyDeferred(calls) {
			return &errs.RequiresActionError{SessionID: s.rec.ID, Pending: describePending(calls)}
		}
		s.pending = calls // the hooks are asked again (resumePending)
		return nil
	}
	approve, deny := parseIDList(o.Approve), parseIDList(o.Deny)
	if approve.all && deny.all {
		return errs.Usagef("approve all, or deny all, or name the calls", "--approve all and --deny all both given")
	}
	known := map[string]bool{}
	for _, c := range calls {
		known[c.ID] = true
	}
	for _, list := range []idList{approve, deny} {
		for _, id := range list.ids {
			if !known[id] {
				return errs.Usagef("pending calls: "+strings.Join(describePending(calls), "; "), "tool call %s is not pending in session %s", store.QuoteInput(id), s.rec.ID)
			}
			if approve.names(id) && deny.names(id) {
				return errs.Usagef("name each call once", "tool call %s is both approved and denied", store.QuoteInput(id))
			}
		}
	}
	s.pending, s.approve, s.deny = calls, approve, deny
	return nil
}

// pausedCalls are the calls of the unanswered assistant message of a paused
// session, with the decisions stored in pendingToolCalls.
func (s *session) pausedCalls() ([]PendingToolCall, error) {
	var stored []PendingToolCall
	if raw, ok := s.rec.Fields.Get(fieldPending); ok {
		if err := json.Unmarshal(raw, &stored); err != nil {
			return nil, &errs.InvalidDataError{Path: s.e.Store.RecordPath(s.rec.ID), Err: fmt.Errorf("pendingToolCalls: %w", err)}
		}
	}
	if s.rec.Status != StatusRequiresAction && len(stored) == 0 {
		return nil, nil
	}
	if len(s.messages) == 0 {
		return nil, nil
	}
	last := s.messages[len(s.messages)-1]
	if last.Role != chat.RoleAssistant || len(last.ToolCalls) == 0 {
		if len(stored) > 0 {
			return nil, &errs.InvalidDataError{Path: s.e.Store.RecordPath(s.rec.ID), Err: fmt.Errorf("pendingToolCalls set but the last message has no tool calls")}
		}
		return nil, nil
	}
	byID := map[string]PendingToolCall{}
	for _, p := range stored {
		byID[p.ID] = p
	}
	out := make([]PendingToolCall, len(last.ToolCalls))
	for i, tc := range last.ToolCalls {
		p, ok := byID[tc.ID]
		if !ok {
			p = PendingToolCall{ID: tc.ID, Name: tc.Name, Arguments: tc.Args(), Decision: permission.DecisionAsk}
		}
		if len(p.Arguments) == 0 {
			p.Arguments = tc.Args()
		}
		out[i] = p
	}
	return out, nil
}

// onlyDeferred reports whether every call waiting for a decision was
// deferred by a hook: resume then asks the hooks again, no flag needed.
func onlyDeferred(calls []PendingToolCall) bool {
	waiting := 0
	for _, c := range calls {
		if c.Decision == permission.DecisionAsk {
			if !c.Deferred {
				return false
			}
			waiting++
		}
	}
	return waiting > 0
}

func describePending(calls []PendingToolCall) []string {
	var out []string
	for _, c := range calls {
		if c.Decision == permission.DecisionAsk {
			out = append(out, c.ID+" "+permission.DescribeCall(c.Name, c.Arguments))
		}
	}
	return out
}

// idList is --approve or --deny: "all" or comma-separated tool call ids.
type idList struct {
	all bool
	ids []string
}

func parseIDList(s string) idList {
	var l idList
	for _, part := range strings.Split(s, ",") {
		part = strings.TrimSpace(part)
		switch part {
		case "":
		case "all":
			l.all = true
		default:
			l.ids = append(l.ids, part)
		}
	}
	return l
}

func (l idList) has(id string) bool {
	return l.all || l.names(id)
}

// names reports whether the list gives id itself, not through "all".
func (l idList) names(id string) bool {
	return slices.Contains(l.ids, id)
}

// approves reports whether the decision flags run call id. A call one flag
// names is decided by that flag, so `--approve call_1 --deny all` runs
// call_1 and denies the rest (and `--deny call_2 --approve all` the other
// way round); a call neither names follows "all", and without an
// `--approve all` it is denied.
func approves(approve, deny idList, id string) bool {
	switch {
	case approve.names(id):
		return true
	case deny.names(id):
		return false
	}
	return approve.all
}
