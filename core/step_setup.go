package core

// What a step needs besides the record: the tools it offers, the permission
// rules and mode, the hook runner, and the approval state kept in the
// record (sessionAllowedTools, pendingToolCalls, permissionMode).

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	"trail/logfmt"
)

// OnAsk values: what a needed approval does without a terminal.
const (
	OnAskDeny  = "deny"
	OnAskPause = "pause"
)

// Record fields trail owns for permissions.
const (
	fieldPending        = "pendingToolCalls"
	fieldSessionAllowed = "sessionAllowedTools"
	fieldPermissionMode = "permissionMode"
)

// prepare checks what can be checked before any file is touched: the
// offered tools, the rules and the flags.
func (s *session) prepare() error {
	o := s.opts
	if o.Tools == nil {
		s.tools = s.e.Tools
	} else {
		for _, name := range o.Tools {
			t := s.engineTool(name)
			if t == nil {
				return Usagef("available tools: "+strings.Join(s.engineToolNames(), ", ")+", or none", "--tools: unknown tool %q", name)
			}
			s.tools = append(s.tools, t)
		}
	}
	if o.PermissionMode != "" && !ValidMode(o.PermissionMode) {
		return Usagef("use default, plan, acceptEdits or bypassPermissions", "unknown permission mode %q", o.PermissionMode)
	}
	if m := o.Settings.Permissions.DefaultMode; m != "" && !ValidMode(m) {
		return Usagef("use default, plan, acceptEdits or bypassPermissions", "unknown permissions.defaultMode %q in the settings", m)
	}
	switch o.OnAsk {
	case "":
		o.OnAsk = OnAskDeny
	case OnAskDeny, OnAskPause:
	default:
		return Usagef("use --on-ask deny or --on-ask pause", "unknown --on-ask value %q", o.OnAsk)
	}
	if !o.Resume && (o.Approve != "" || o.Deny != "") {
		return Usagef("--approve and --deny decide a paused session: trail resume ID --approve all", "--approve/--deny need resume")
	}
	p, err := BuildPermissions(ModeDefault, o.Settings, o.AllowRules, o.DenyRules, o.Cwd)
	if err != nil {
		return err
	}
	s.perms = p
	return nil
}

func (s *session) engineTool(name string) Tool {
	for _, t := range s.e.Tools {
		if t.Schema().Name == name {
			return t
		}
	}
	return nil
}

func (s *session) engineToolNames() []string {
	names := make([]string, 0, len(s.e.Tools))
	for _, t := range s.e.Tools {
		names = append(names, t.Schema().Name)
	}
	return names
}

// opened finishes the setup once the record is known: the mode (flag, then
// the session's stored mode, then settings, then default), the session's
// allowed tools, and the hook runner.
func (s *session) opened() {
	o := s.opts
	mode := o.PermissionMode
	if mode == "" {
		if raw, ok := s.rec.Fields.Get(fieldPermissionMode); ok {
			var stored string
			if json.Unmarshal(raw, &stored) == nil && ValidMode(stored) {
				mode = stored
			}
		}
	}
	if mode == "" {
		mode = o.Settings.Permissions.DefaultMode
	}
	if mode == "" {
		mode = ModeDefault
	}
	s.perms.Mode = mode
	// Tools resolve paths against the session's cwd, so rules match there too.
	s.perms.Cwd = s.rec.Cwd
	if raw, ok := s.rec.Fields.Get(fieldSessionAllowed); ok {
		_ = json.Unmarshal(raw, &s.sessionAllowed)
	}
	s.hooks = &HookRunner{
		Hooks:          o.Settings.Hooks,
		SessionID:      s.rec.ID,
		TranscriptPath: s.e.Store.RecordPath(s.rec.ID),
		Cwd:            s.rec.Cwd,
		PermissionMode: mode,
		Env:            s.toolEnv(),
		OnRun: func(r HookRun) {
			s.logEvent("hook_run", hookRunFields(s.execID, r)...)
		},
		OnMessage: func(msg string) {
			s.obs.Event(StepEvent{Kind: EvNotice, Text: msg})
		},
	}
}

// runHooks runs the hooks of one event. Compaction calls it with
// PreCompactInput/PostCompactInput.
func (s *session) runHooks(ctx context.Context, event string, in HookInput) HookOutcome {
	return s.hooks.Run(ctx, event, in)
}

// sessionAllows reports whether the person allowed tool for the rest of the session.
func (s *session) sessionAllows(tool string) bool {
	for _, t := range s.sessionAllowed {
		if t == tool {
			return true
		}
	}
	return false
}

func (s *session) allowForSession(tool string) {
	if !s.sessionAllows(tool) {
		s.sessionAllowed = append(s.sessionAllowed, tool)
		sort.Strings(s.sessionAllowed)
	}
}

// saveApprovalState writes the permission fields into the record.
func (s *session) saveApprovalState() error {
	f := &s.rec.Fields
	if len(s.sessionAllowed) > 0 {
		if err := f.Set(fieldSessionAllowed, s.sessionAllowed); err != nil {
			return err
		}
	}
	if len(s.pending) > 0 {
		if err := f.Set(fieldPending, s.pending); err != nil {
			return err
		}
	} else {
		f.Delete(fieldPending)
	}
	if s.perms != nil {
		return f.Set(fieldPermissionMode, s.perms.Mode)
	}
	return nil
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
			return Usagef("drop --approve and --deny", "session %s is not waiting for approval", s.rec.ID)
		}
		return nil
	}
	if !deciding {
		return &RequiresActionError{SessionID: s.rec.ID, Pending: describePending(calls)}
	}
	approve, deny := parseIDList(o.Approve), parseIDList(o.Deny)
	if approve.all && deny.all {
		return Usagef("approve all, or deny all, or name the calls", "--approve all and --deny all both given")
	}
	known := map[string]bool{}
	for _, c := range calls {
		known[c.ID] = true
	}
	for _, list := range []idList{approve, deny} {
		for _, id := range list.ids {
			if !known[id] {
				return Usagef("pending calls: "+strings.Join(describePending(calls), "; "), "tool call %q is not pending in session %s", id, s.rec.ID)
			}
			if approve.has(id) && deny.has(id) && !approve.all && !deny.all {
				return Usagef("name each call once", "tool call %q is both approved and denied", id)
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
			return nil, &InvalidDataError{Path: s.e.Store.RecordPath(s.rec.ID), Err: fmt.Errorf("pendingToolCalls: %w", err)}
		}
	}
	if s.rec.Status != StatusRequiresAction && len(stored) == 0 {
		return nil, nil
	}
	if len(s.messages) == 0 {
		return nil, nil
	}
	last := s.messages[len(s.messages)-1]
	if last.Role != RoleAssistant || len(last.ToolCalls) == 0 {
		if len(stored) > 0 {
			return nil, &InvalidDataError{Path: s.e.Store.RecordPath(s.rec.ID), Err: fmt.Errorf("pendingToolCalls set but the last message has no tool calls")}
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
			p = PendingToolCall{ID: tc.ID, Name: tc.Name, Arguments: toolArgs(tc.Arguments), Decision: DecisionAsk}
		}
		if len(p.Arguments) == 0 {
			p.Arguments = toolArgs(tc.Arguments)
		}
		out[i] = p
	}
	return out, nil
}

func describePending(calls []PendingToolCall) []string {
	var out []string
	for _, c := range calls {
		if c.Decision == DecisionAsk {
			out = append(out, c.ID+" "+describeCall(c.Name, c.Arguments))
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
	if l.all {
		return true
	}
	for _, x := range l.ids {
		if x == id {
			return true
		}
	}
	return false
}

// logDecision writes permission_decision and, for decisions a person or a
// hook made, a history event entry.
func (s *session) logDecision(round int, r *toolRun) {
	fields := []logfmt.Field{
		logfmt.F("executionId", s.execID),
		logfmt.F("conversationId", conversationID),
		logfmt.F("round", round),
		logfmt.F("tool", r.call.Name),
		logfmt.F("toolCallId", r.call.ID),
		logfmt.F("decision", r.decision),
		logfmt.F("source", r.source),
	}
	if r.rule != "" {
		fields = append(fields, logfmt.F("rule", r.rule))
	}
	if r.reason != "" {
		fields = append(fields, logfmt.F("reason", r.reason))
	}
	s.logEvent("permission_decision", fields...)
	typ := ""
	switch {
	case r.decision == DecisionDeny:
		typ = "tool-denial"
	case r.decision == DecisionAllow && (r.source == SourcePrompt || r.source == SourceFlag || r.source == SourceHook):
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
