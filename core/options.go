package core

// Every option of a step gets its effective value here, once, and is
// checked here, once, before any file is touched (SPEC 2): a flag wins over
// the environment, the environment over the settings files, the settings
// over the defaults. Two precedences also weigh the stored session, and
// live beside what they decide: provider.Resolve (flags, the session's
// provider, the environment, the settings, the API keys present) and
// permissionMode below (the flag, the session's mode, the settings, the
// default). After resolve, the rest of the engine reads StepOptions only:
// no other place looks a setting up in the settings.

import (
	"cmp"
	"encoding/json"
	"strings"

	"trail/core/errs"
	"trail/core/permission"
	"trail/core/provider"
	"trail/core/settings"
	"trail/core/tools"
	"trail/store"
)

// DefaultAutoCompact is the share of the context window at which a prompt
// compacts first (Robota's default).
const DefaultAutoCompact = 0.835

// OnAsk values: what a needed approval does without a terminal.
const (
	OnAskDeny  = "deny"
	OnAskPause = "pause"
)

// errNoPrompt: a step with nothing to do.
var errNoPrompt = &errs.UsageError{Msg: "no prompt", Fix: "give a prompt as arguments, with -p, or on standard input"}

const modeHint = "use default, plan, acceptEdits, bypassPermissions or dontAsk (Claude Code's manual and auto run as default)"

// resolve checks the options and gives each its effective value; it
// returns the tools the step offers, of available. The checks run in the
// order a user meets them: the flags first, then what the settings say.
func (o *StepOptions) resolve(available []tools.Tool) ([]tools.Tool, error) {
	if o.Observer == nil {
		o.Observer = nopObserver{}
	}
	if o.Settings == nil {
		o.Settings = &settings.Settings{}
	}
	if o.PermissionMode != "" && !permission.ValidMode(o.PermissionMode) {
		return nil, errs.Usagef(modeHint, "unknown --permission-mode %s", store.QuoteInput(o.PermissionMode))
	}
	if from := o.Settings.Permissions.DisableBypassFrom; o.PermissionMode == permission.ModeBypass && from != "" {
		return nil, errs.Usagef("drop the flag, or remove disableBypassPermissionsMode from "+from,
			"--permission-mode bypassPermissions is disabled by permissions.disableBypassPermissionsMode in %s", from)
	}
	// A resume without a prompt is judged once its session is loaded
	// (requirePrompt): a paused one names the calls it waits for.
	if !o.Resume && strings.TrimSpace(o.Prompt) == "" {
		return nil, errNoPrompt
	}
	offered, err := offeredTools(o.Tools, available)
	if err != nil {
		return nil, err
	}
	if m := o.Settings.Permissions.DefaultMode; m != "" && !permission.ValidMode(m) {
		return nil, errs.Usagef(modeHint, "unknown permissions.defaultMode %s in the settings", store.QuoteInput(m))
	}
	switch o.OnAsk {
	case "":
		o.OnAsk = OnAskDeny
	case OnAskDeny, OnAskPause:
	default:
		return nil, errs.Usagef("use --on-ask deny or --on-ask pause", "unknown --on-ask value %s", store.QuoteInput(o.OnAsk))
	}
	if !o.Resume && (o.Approve != "" || o.Deny != "") {
		return nil, errs.Usagef("--approve and --deny decide a paused session: trail resume ID --approve all", "--approve/--deny need resume")
	}

	s := o.Settings
	if o.MaxTurns == 0 && s.MaxTurns != nil {
		o.MaxTurns = *s.MaxTurns
	}
	o.Timeout = cmp.Or(max(o.Timeout, 0), s.Timeout, provider.DefaultTimeout)
	if o.MaxTokens <= 0 {
		o.MaxTokens = s.MaxTokens // 0: the model's limit, once the model is known
	}
	if o.Stream == nil {
		o.Stream = cmp.Or(s.Stream, new(false))
	}
	switch {
	case o.AutoCompactOff, o.AutoCompact > 0:
	case s.AutoCompactOff:
		o.AutoCompactOff = true
	case s.AutoCompactThreshold != nil:
		o.AutoCompact = *s.AutoCompactThreshold
	default:
		o.AutoCompact = DefaultAutoCompact
	}
	return offered, nil
}

// offeredTools is the --tools list as tools (nil: every one available).
func offeredTools(names []string, available []tools.Tool) ([]tools.Tool, error) {
	if names == nil {
		return available, nil
	}
	out := make([]tools.Tool, 0, len(names))
	for _, name := range names {
		t := toolNamed(available, name)
		if t == nil {
			return nil, errs.Usagef("available tools: "+strings.Join(toolNames(available), ", ")+", or none",
				"--tools: unknown tool %s", store.QuoteInput(name))
		}
		out = append(out, t)
	}
	return out, nil
}

// permissionMode is the step's permission mode: --permission-mode, else
// the mode the session was saved with (permissionMode field, when valid),
// else the settings' defaultMode, else default.
func permissionMode(flag string, stored json.RawMessage, settingsMode string) string {
	return cmp.Or(flag, savedMode(stored), settingsMode, permission.ModeDefault)
}

// savedMode is the session's stored mode, "" when none or one trail
// does not know.
func savedMode(stored json.RawMessage) string {
	var saved string
	if len(stored) > 0 && (json.Unmarshal(stored, &saved) != nil || !permission.ValidMode(saved)) {
		saved = ""
	}
	return saved
}

// toolNamed is the tool of list called name, or nil.
func toolNamed(list []tools.Tool, name string) tools.Tool {
	for _, t := range list {
		if t.Schema().Name == name {
			return t
		}
	}
	return nil
}

// toolNames are the names of list, in its order.
func toolNames(list []tools.Tool) []string {
	names := make([]string, 0, len(list))
	for _, t := range list {
		names = append(names, t.Schema().Name)
	}
	return names
}
