package core

// What a step needs besides the record: the tools it offers, the permission
// rules and mode, the hook runner, and the approval state kept in the
// record (sessionAllowedTools, pendingToolCalls, permissionMode).

import (
	"context"
	"encoding/json"
	"sort"
	"strings"

	"trail/core/hooks"
	"trail/core/permission"
	"trail/logfmt"
)

// Record fields trail owns for permissions.
const (
	fieldPending        = "pendingToolCalls"
	fieldSessionAllowed = "sessionAllowedTools"
	fieldPermissionMode = "permissionMode"
)

// requirePrompt judges a loaded session: a resume needs a prompt unless it
// decides a paused round (a paused session without a decision has already
// been refused with the calls it waits for, exit 4).
func requirePrompt(s *session) error {
	if strings.TrimSpace(s.opts.Prompt) == "" && len(s.pending) == 0 {
		return errNoPrompt
	}
	return nil
}

// prepare resolves and checks the options, and builds the rules, before
// any file is touched.
func (s *session) prepare() error {
	o := s.opts
	offered, err := o.resolve(s.e.Tools)
	if err != nil {
		return err
	}
	s.tools = offered
	p, err := permission.Build(permission.ModeDefault, o.Settings, o.AllowRules, o.DenyRules, o.Cwd)
	if err != nil {
		return err
	}
	s.perms = p
	return nil
}

// opened finishes the setup once the record is known: the mode
// (permissionMode), the session's allowed tools, and the hook runner.
func (s *session) opened() {
	o := s.opts
	stored, _ := s.rec.Fields.Get(fieldPermissionMode)
	mode := permissionMode(o.PermissionMode, stored, o.Settings.Permissions.DefaultMode)
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
