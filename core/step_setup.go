package core

// What a step needs besides the record: the tools it offers, the permission
// rules and mode, the hook runner, and the approval state kept in the
// record (sessionAllowedTools, pendingToolCalls, permissionMode).

import (
	"context"
	"encoding/json"
	"sort"
	"strings"

	"trail/core/errs"
	"trail/core/hooks"
	"trail/core/permission"
	"trail/core/tools"
	"trail/logfmt"
	"trail/store"
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

// errNoPrompt: a step with nothing to do.
var errNoPrompt = errs.Usagef("give a prompt as arguments, with -p, or on standard input", "no prompt")

// requirePrompt judges a loaded session: a resume needs a prompt unless it
// decides a paused round (a paused session without a decision has already
// been refused with the calls it waits for, exit 4).
func requirePrompt(s *session) error {
	if strings.TrimSpace(s.opts.Prompt) == "" && len(s.pending) == 0 {
		return errNoPrompt
	}
	return nil
}

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
				return errs.Usagef("available tools: "+strings.Join(s.engineToolNames(), ", ")+", or none", "--tools: unknown tool %s", store.QuoteInput(name))
			}
			s.tools = append(s.tools, t)
		}
	}
	if o.PermissionMode != "" && !permission.ValidMode(o.PermissionMode) {
		return errs.Usagef("use default, plan, acceptEdits or bypassPermissions", "unknown permission mode %s", store.QuoteInput(o.PermissionMode))
	}
	if m := o.Settings.Permissions.DefaultMode; m != "" && !permission.ValidMode(m) {
		return errs.Usagef("use default, plan, acceptEdits or bypassPermissions", "unknown permissions.defaultMode %s in the settings", store.QuoteInput(m))
	}
	switch o.OnAsk {
	case "":
		o.OnAsk = OnAskDeny
	case OnAskDeny, OnAskPause:
	default:
		return errs.Usagef("use --on-ask deny or --on-ask pause", "unknown --on-ask value %s", store.QuoteInput(o.OnAsk))
	}
	if !o.Resume && strings.TrimSpace(o.Prompt) == "" {
		return errNoPrompt
	}
	if !o.Resume && (o.Approve != "" || o.Deny != "") {
		return errs.Usagef("--approve and --deny decide a paused session: trail resume ID --approve all", "--approve/--deny need resume")
	}
	p, err := permission.Build(permission.ModeDefault, o.Settings, o.AllowRules, o.DenyRules, o.Cwd)
	if err != nil {
		return err
	}
	s.perms = p
	return nil
}

func (s *session) engineTool(name string) tools.Tool {
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
			if json.Unmarshal(raw, &stored) == nil && permission.ValidMode(stored) {
				mode = stored
			}
		}
	}
	if mode == "" {
		mode = o.Settings.Permissions.DefaultMode
	}
	if mode == "" {
		mode = permission.ModeDefault
	}
	s.perms.Mode = mode
	// Tools resolve paths against the session's cwd, so rules match there too.
	s.perms.Cwd = s.rec.Cwd
	if raw, ok := s.rec.Fields.Get(fieldSessionAllowed); ok {
		_ = json.Unmarshal(raw, &s.sessionAllowed)
	}
	s.hooks = &hooks.Runner{
		Hooks:          o.Settings.Hooks,
		SessionID:      s.rec.ID,
		TranscriptPath: s.e.Store.RecordPath(s.rec.ID),
		Cwd:            s.rec.Cwd,
		PermissionMode: mode,
		Env:            s.toolEnv(),
		OnRun: func(r hooks.Execution) {
			s.logEvent("hook_run", hookRunFields(s.execID, r)...)
		},
		OnMessage: func(msg string) {
			s.obs.Event(StepEvent{Kind: EvNotice, Text: msg})
		},
		Now: s.now,
	}
}

// runHooks runs the hooks of one event. Compaction calls it with
// PreCompactInput/PostCompactInput.
func (s *session) runHooks(ctx context.Context, event string, in hooks.Input) hooks.Outcome {
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

// hookRunFields are the data of a hook_run log line (SPEC 5.5). The hook
// event goes under hookEvent: "event" is the envelope's own key.
func hookRunFields(execID string, r hooks.Execution) []logfmt.Field {
	f := []logfmt.Field{
		logfmt.F("executionId", execID),
		logfmt.F("hookEvent", r.Event),
		logfmt.F("command", r.Command),
		logfmt.F("exitCode", r.ExitCode),
		logfmt.F("durationMs", r.Duration.Milliseconds()),
		logfmt.F("blocked", r.Blocked),
	}
	if r.TimedOut {
		f = append(f, logfmt.F("timedOut", true))
	}
	return f
}
