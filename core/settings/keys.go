package settings

import (
	"bytes"
	"encoding/json"
	"reflect"
	"slices"
	"sort"
	"strings"

	"trail/lazy"
)

// Which keys a settings file may hold. trail reads the same files as
// Claude Code (~/.claude/settings.json, ./.claude/settings*.json), so a
// key Claude Code accepts is known even when trail ignores it: a user's
// real settings never warn. Any other key is reported (Settings.Unknown):
// a misspelt "provder" would otherwise be ignored without a word, and the
// step would fail later for a reason that does not name it.

// claudeKeys are the top-level keys of Claude Code's settings files, from
// its settings reference ("All settings", code.claude.com/docs/en/
// settings-reference, as of 2026-08-22) and keys older versions
// documented (autoUpdates, maxSkillDescriptionChars), plus "$schema" and
// the state Claude Code writes into ~/.claude/settings.json itself
// (feedbackSurveyState: {"lastShownTime": ...}, after its survey; seen in
// users' published dotfiles beside model and enabledPlugins).
var claudeKeys = []string{
	"$schema", "advisorModel", "agent", "agentPushNotifEnabled", "allowAllClaudeAiMcps",
	"allowManagedHooksOnly", "allowManagedMcpServersOnly", "allowManagedPermissionRulesOnly",
	"allowedChannelPlugins", "allowedHttpHookUrls", "allowedMcpServers", "alwaysThinkingEnabled",
	"apiKeyHelper", "askUserQuestionTimeout", "attribution", "autoCompactEnabled",
	"autoCompactWindow", "autoConnectIde", "autoInstallIdeExtension", "autoMemoryDirectory",
	"autoMemoryEnabled", "autoMode", "autoScrollEnabled", "autoUpdates", "autoUpdatesChannel",
	"availableModels", "awaySummaryEnabled", "awsAuthRefresh", "awsCredentialExport",
	"axScreenReader", "blockedMarketplaces", "browserExternalPageTools", "channelsEnabled",
	"claudeMd", "claudeMdExcludes", "cleanupPeriodDays", "companyAnnouncements",
	"crossSessionInbound", "defaultShell", "deniedMcpServers", "dialogExpiry", "diffTool",
	"disableAgentView", "disableAllHooks", "disableArtifact", "disableAutoMode",
	"disableBrowserExternalNavigation", "disableBundledSkills", "disableClaudeAiConnectors",
	"disableCommandPluginSources", "disableDeepLinkRegistration", "disableMobileSimulatorTools",
	"disableRemoteControl", "disableSideloadFlags", "disableSkillShellExecution",
	"disableWorkflows", "disabledMcpjsonServers", "editorMode", "effortLevel",
	"emojiCompletionEnabled", "enableAllProjectMcpServers", "enableArtifact", "enableWorkflows",
	"enabledMcpjsonServers", "enabledPlugins", "enforceAvailableModels", "env",
	"externalEditorContext", "extraKnownMarketplaces", "fallbackModel", "fastMode",
	"fastModePerSessionOptIn", "feedbackSurveyRate", "feedbackSurveyState", "fileCheckpointingEnabled", "fileSuggestion",
	"footerLinksRegexes", "forceLoginGatewayUrl", "forceLoginMethod", "forceLoginOrgUUID",
	"forceRemoteSettingsRefresh", "gcpAuthRefresh", "hooks", "httpHookAllowedEnvVars",
	"includeCoAuthoredBy", "includeGitInstructions", "inputNeededNotifEnabled",
	"isolatePeerMachines", "keybindingFlavor", "language", "maxSkillDescriptionChars",
	"minimumVersion", "model", "modelOverrides", "otelHeadersHelper", "outputStyle",
	"parentSettingsBehavior", "permissionExplainerEnabled", "permissions", "plansDirectory",
	"pluginConfigs", "pluginSuggestionMarketplaces", "pluginTrustMessage", "policyHelper",
	"prUrlTemplate", "preferredNotifChannel", "prefersReducedMotion", "processWrapper",
	"promptSuggestionEnabled", "remote", "remoteControlAtStartup", "requiredMaximumVersion",
	"requiredMinimumVersion", "respectGitignore", "respondToBashCommands", "sandbox",
	"showClearContextOnPlanAccept", "showThinkingSummaries", "showTurnDuration",
	"skillListingBudgetFraction", "skillListingMaxDescChars", "skillOverrides",
	"skipAutoPermissionPrompt", "skipDangerousModePermissionPrompt", "skipWebFetchPreflight",
	"spellcheck", "spinnerTipsEnabled", "spinnerTipsOverride", "spinnerVerbs", "sshConfigs",
	"sshHostAllowlist", "statusLine", "strictKnownMarketplaces", "strictPluginOnlyCustomization",
	"subagentStatusLine", "switchModelsOnFlag", "syncClaudeAiSkills", "syntaxHighlightingDisabled",
	"teammateDefaultModel", "teammateMode", "terminalProgressBarEnabled",
	"terminalTitleFromRename", "theme", "tui", "ultracode", "useAutoModeDuringPlan", "verbose",
	"viewMode", "vimInsertModeRemaps", "voice", "voiceEnabled", "wheelScrollAccelerationEnabled",
	"workflowKeywordTriggerEnabled", "workflowSizeGuideline", "worktree",
	"wslInheritsWindowsSettings",
}

// claudePermissionKeys are the keys of Claude Code's "permissions" object
// (allow, ask, deny and defaultMode are trail's too).
var claudePermissionKeys = []string{
	"additionalDirectories", "allow", "ask", "defaultMode", "deny",
	"disableAutoMode", "disableBypassPermissionsMode",
}

// claudeHookEvents are the hook events Claude Code's settings name (its
// hooks reference, 2026), trail's among them. The list grows with every
// Claude Code release, so an event not on it is reported only when it is
// a near miss of one that is (nearEvent): "PreToolUSe" is a typo that
// would never run, "SomeNewEvent" may be Claude Code's newest.
var claudeHookEvents = []string{
	"ConfigChange", "Elicitation", "ElicitationResult", "InstructionsLoaded", "Notification",
	"PermissionDenied", "PermissionRequest", "PostCompact", "PostToolBatch", "PostToolUse",
	"PostToolUseFailure", "PreCompact", "PreToolUse", "SessionEnd", "SessionStart", "Setup",
	"Stop", "StopFailure", "SubagentStart", "SubagentStop", "TaskCompleted", "TaskCreated",
	"TeammateIdle", "UserPromptExpansion", "UserPromptSubmit", "WorktreeCreate", "WorktreeRemove",
}

// HookEventKeys are the known hook events as "hooks.<event>", for
// suggestions.
func HookEventKeys() []string {
	out := make([]string, len(claudeHookEvents))
	for i, e := range claudeHookEvents {
		out[i] = "hooks." + e
	}
	return out
}

// nearEvent reports whether event is not a known hook event but is one
// written differently: another case, or one letter added, dropped,
// changed or swapped with its neighbour.
func nearEvent(event string) bool {
	if slices.Contains(claudeHookEvents, event) {
		return false
	}
	for _, e := range claudeHookEvents {
		if strings.EqualFold(e, event) || oneEditApart(e, event) {
			return true
		}
	}
	return false
}

// oneEditApart reports whether a single insertion, deletion, change or
// swap of two neighbouring bytes turns a into b (a != b).
func oneEditApart(a, b string) bool {
	if len(a) < len(b) {
		a, b = b, a
	}
	if len(a)-len(b) > 1 {
		return false
	}
	i := 0
	for i < len(b) && a[i] == b[i] {
		i++
	}
	switch {
	case len(a) != len(b):
		return a[i+1:] == b[i:]
	case i == len(a):
		return false
	case a[i+1:] == b[i+1:]:
		return true
	}
	return i+1 < len(a) && a[i] == b[i+1] && a[i+1] == b[i] && a[i+2:] == b[i+2:]
}

// UnknownKey is a key no settings file may hold, in the file that has it.
type UnknownKey struct {
	File string
	Key  string // "modle", or "permissions.allw" inside permissions
}

type keyTables struct {
	top, permissions map[string]bool
	trail            []string // trail's own keys, sorted: what suggestions offer
	trailPermissions []string // the keys of permissions trail reads
}

// tables are built once: trail's keys are the JSON names of settingsFile,
// so a key added there is known here without another list to keep.
var tables = lazy.Value[keyTables]{New: func() keyTables {
	t := keyTables{top: map[string]bool{}, permissions: map[string]bool{}}
	for _, k := range claudeKeys {
		t.top[k] = true
	}
	for _, k := range claudePermissionKeys {
		t.permissions[k] = true
	}
	t.trail = jsonNames(reflect.TypeFor[settingsFile]())
	for _, k := range t.trail {
		t.top[k] = true
	}
	if f, ok := reflect.TypeFor[settingsFile]().FieldByName("Permissions"); ok {
		t.trailPermissions = jsonNames(f.Type.Elem())
		for _, k := range t.trailPermissions {
			t.permissions[k] = true
		}
	}
	return t
}}

// jsonNames are the JSON names of a struct's fields, sorted.
func jsonNames(st reflect.Type) []string {
	var out []string
	for i := 0; i < st.NumField(); i++ {
		name, _, _ := strings.Cut(st.Field(i).Tag.Get("json"), ",")
		if name != "" && name != "-" {
			out = append(out, name)
		}
	}
	sort.Strings(out)
	return out
}

// TrailKeys are the keys trail itself reads: the top-level ones, and
// those of permissions as "permissions.<key>".
func TrailKeys() []string {
	t := tables.Get()
	out := append([]string(nil), t.trail...)
	for _, k := range t.trailPermissions {
		out = append(out, "permissions."+k)
	}
	return out
}

// KnownKeys are every key a settings file may hold: trail's, Claude
// Code's, and those of "permissions" written "permissions.<key>".
func KnownKeys() []string {
	t := tables.Get()
	out := make([]string, 0, len(t.top)+len(t.permissions))
	for k := range t.top {
		out = append(out, k)
	}
	for k := range t.permissions {
		out = append(out, "permissions."+k)
	}
	sort.Strings(out)
	return out
}

// unknownKeys lists the keys of a settings file's JSON object that no
// table knows, in the order the file has them. data was decoded already,
// so a failure here only means it is not an object: nothing to list.
func unknownKeys(path string, data []byte) []UnknownKey {
	t := tables.Get()
	var out []UnknownKey
	seen := map[string]bool{} // a key written twice is one mistake
	add := func(k string) {
		if !seen[k] {
			seen[k] = true
			out = append(out, UnknownKey{File: path, Key: k})
		}
	}
	keys, perms := objectKeys(data, "permissions")
	for _, k := range keys {
		if !t.top[k] {
			add(k)
		}
	}
	if perms != nil {
		pk, _ := objectKeys(perms, "")
		for _, k := range pk {
			if !t.permissions[k] {
				add("permissions." + k)
			}
		}
	}
	if _, hooks := objectKeys(data, "hooks"); hooks != nil {
		events, _ := objectKeys(hooks, "")
		for _, k := range events {
			if nearEvent(k) {
				add("hooks." + k)
			}
		}
	}
	return out
}

// objectKeys returns the keys of the JSON object data in file order, and
// the raw value of the key sub when it is an object.
func objectKeys(data []byte, sub string) (keys []string, subValue []byte) {
	dec := json.NewDecoder(bytes.NewReader(data))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return nil, nil
	}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return keys, subValue
		}
		k, _ := tok.(string)
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return keys, subValue
		}
		keys = append(keys, k)
		if sub != "" && k == sub && len(v) > 0 && v[0] == '{' {
			subValue = v
		}
	}
	return keys, subValue
}
