package core

// What a step needs besides the record: the tools it offers, the permission
// rules and mode, the hook runner, and the approval state kept in the
// record (sessionAllowedTools, pendingToolCalls, permissionMode).

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"time"

	"trail/core/errs"
	"trail/core/hooks"
	"trail/core/permission"
	"trail/core/tools"
	"trail/logfmt"
	"trail/store"
)

// Record fields trail owns for permissions.
const (
	fieldPending        = "pendingToolCalls"
	fieldSessionAllowed = "sessionAllowedTools"
	fieldPermissionMode = "permissionMode"
	// fieldHookContext keeps what SessionStart hooks said after a manual
	// compaction, for the next step's prompt.
	fieldHookContext = "pendingHookContext"
)

// requirePrompt judges a loaded session: a resume needs a prompt unless it
// decides a paused round (a paused session without a decision has already
// been refused with the calls it waits for, exit 4) or the model owes the
// conversation an answer (unanswered.go).
func requirePrompt(s *session) error {
	if strings.TrimSpace(s.opts.Prompt) == "" && len(s.pending) == 0 && !s.owesAnswer() {
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
	s.tools = withBashLimits(offered, o.Settings.BashTimeout, o.Settings.BashMaxTimeout)
	allow := o.AllowRules
	if o.Settings.ManagedRulesOnly && len(allow) > 0 {
		// the policy's rules alone decide (settings/managed.go); a deny
		// given here only narrows them, and stands
		s.openWarnings = append(s.openWarnings, fmt.Sprintf("--allow-tool is ignored: the managed settings (%s) allow only their own rules (allowManagedPermissionRulesOnly)", o.Settings.ManagedRulesFrom))
		allow = nil
	}
	p, err := permission.Build(permission.ModeDefault, o.Settings, allow, o.DenyRules, o.Cwd)
	if err != nil {
		return err
	}
	s.perms = p
	s.openWarnings = append(s.openWarnings, p.Warnings...)
	if s.addDirs, err = addDirs(o, s.env("HOME")); err != nil {
		return err
	}
	return nil
}

// withBashLimits gives the Bash tool among offered the user's time
// limits (Claude Code's BASH_*_TIMEOUT_MS, settings.ApplyClaudeCodeVars);
// its schema says them to the model.
func withBashLimits(offered []tools.Tool, def, most time.Duration) []tools.Tool {
	if def == 0 && most == 0 {
		return offered
	}
	out := slices.Clone(offered)
	for i, t := range out {
		if b, ok := t.(tools.Bash); ok {
			b.Timeout, b.MaxTimeout = def, most
			out[i] = b
		}
	}
	return out
}

// opened finishes the setup once the record is known: the mode
// (permissionMode), the session's allowed tools, and the hook runner.
func (s *session) opened() {
	o := s.opts
	stored, _ := s.rec.Fields.Get(fieldPermissionMode)
	mode := s.effectiveMode(permissionMode(o.PermissionMode, stored, o.Settings.Permissions.DefaultMode))
	s.perms.Mode = mode
	// A project's bypassPermissions or auto is said only where it would
	// have decided: no flag, no mode saved with the session.
	if p := o.Settings.Permissions; p.IgnoredModeFrom != "" && o.PermissionMode == "" && savedMode(stored) == "" {
		s.openWarnings = append(s.openWarnings, fmt.Sprintf("permissions.defaultMode %s in %s is ignored: a project's settings may not set it (set it in your user settings, ~/.claude/settings.json or $CLAUDE_CONFIG_DIR/settings.json, or pass --permission-mode); running in %s mode", p.IgnoredMode, p.IgnoredModeFrom, mode))
	}
	// Tools resolve paths against the session's cwd, so rules match there too.
	s.perms.Cwd = s.rec.Cwd
	s.perms.Home = s.env("HOME")
	s.perms.Env = s.env
	s.dirs = s.workingDirs()
	if raw, ok := s.rec.Fields.Get(fieldSessionAllowed); ok {
		_ = json.Unmarshal(raw, &s.sessionAllowed)
	}
	if raw, ok := s.rec.Fields.Get(fieldHookContext); ok {
		var kept []string
		if json.Unmarshal(raw, &kept) == nil {
			s.startContext = append(kept, s.startContext...)
		}
	}
	s.hooks = &hooks.Runner{
		Hooks:          o.Settings.Hooks,
		Disabled:       o.Settings.DisableAllHooks,
		SessionID:      s.rec.ID,
		TranscriptPath: s.e.Store.TranscriptPath(s.rec.ID),
		Cwd:            s.rec.Cwd,
		Home:           s.perms.Home,
		PermissionMode: mode,
		Env:            s.toolEnv(),
		Getenv:         s.env,
		BeforeRun:      func(string) { s.syncTranscript() },
		OnRun: func(r hooks.Execution) {
			s.logEvent("hook_run", hookRunFields(s.execID, r)...)
		},
		OnMessage: func(msg string) {
			s.obs.Event(StepEvent{Kind: EvNotice, Text: msg})
		},
		Now: s.now,
	}
}

// workingDirs are the folders the file tools reach besides the session's
// cwd, as Claude Code takes them: the settings' additionalDirectories
// (relative to the session's folder; one missing here is left out, since
// shared settings may name folders of other machines), then --add-dir's,
// already checked by prepare.
func (s *session) workingDirs() []string {
	var out []string
	add := func(abs string) {
		if !slices.Contains(out, abs) {
			out = append(out, abs)
		}
	}
	for _, d := range s.opts.Settings.Permissions.AdditionalDirectories {
		if abs := dirPath(d, s.rec.Cwd, s.perms.Home); abs != "" {
			if fi, err := os.Stat(abs); err == nil && fi.IsDir() {
				add(abs)
			}
		}
	}
	for _, d := range s.addDirs {
		add(d)
	}
	return out
}

// addDirs resolves --add-dir's folders against the folder trail runs in,
// where the user typed them: one that is not a folder is a usage error.
func addDirs(o *StepOptions, home string) ([]string, error) {
	var out []string
	for _, d := range o.AddDirs {
		abs := dirPath(d, o.Cwd, home)
		fi, err := os.Stat(abs)
		if abs == "" || err != nil || !fi.IsDir() {
			return nil, &errs.UsageError{Msg: fmt.Sprintf("--add-dir %s is not a folder", store.QuoteInput(d)), Fix: "name a folder that exists"}
		}
		out = append(out, abs)
	}
	return out, nil
}

// dirPath makes d absolute: ~/ is home, a relative path is below base.
func dirPath(d, base, home string) string {
	d = strings.TrimSpace(d)
	switch {
	case d == "":
		return ""
	case d == "~" || strings.HasPrefix(d, "~/"):
		if home == "" {
			return ""
		}
		d = filepath.Join(home, strings.TrimPrefix(d, "~"))
	case !filepath.IsAbs(d):
		d = filepath.Join(base, d)
	}
	return filepath.Clean(d)
}

// effectiveMode is the mode the step runs for mode: Claude Code's modes
// trail does not have become their closest meaning, with a warning
// (permission.ResolveMode), and bypassPermissions becomes default when a
// settings file disables it (Claude Code's disableBypassPermissionsMode).
func (s *session) effectiveMode(mode string) string {
	m, note := permission.ResolveMode(mode)
	if note != "" {
		s.openWarnings = append(s.openWarnings, note)
	}
	if from := s.opts.Settings.Permissions.DisableBypassFrom; m == permission.ModeBypass && from != "" {
		s.openWarnings = append(s.openWarnings, "bypassPermissions is disabled by permissions.disableBypassPermissionsMode in "+from+"; running in default mode")
		m = permission.ModeDefault
	}
	return m
}

// env reads trail's environment ("" when the engine has none).
func (s *session) env(name string) string {
	if s.e.Env == nil {
		return ""
	}
	return s.e.Env(name)
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
	if len(s.startContext) > 0 {
		if err := f.Set(fieldHookContext, s.startContext); err != nil {
			return err
		}
	} else {
		f.Delete(fieldHookContext)
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
