package provider

import (
	"fmt"
	"strings"
)

// Claude Code's model aliases (its "Model configuration" page): a settings
// file's "model" may be "opus", "sonnet", "haiku", "best", "opusplan",
// "default", or any of them (or a full id) with "[1m]" after it. The API
// knows none of them, so trail resolves them before anything is sent:
//
//   - For anthropic an alias becomes a model id: the variable Claude Code
//     reads for its family (ANTHROPIC_DEFAULT_OPUS_MODEL, _SONNET_, _HAIKU_)
//     when set, else the newest id of that family in the model table.
//     "best" is opus; "opusplan" is sonnet, the model Claude Code executes
//     with (trail does not switch models within a step); "default" is
//     trail's own default. "[1m]" is dropped: trail does not send the
//     1M-context beta header, so the model gets its usual window.
//   - For openai an alias from a settings file is not sent: that file was
//     written for Claude Code. The provider's default is used, with a
//     warning naming the file. An alias on the command line or in
//     TRAIL_MODEL is sent as given: a local server may serve a model of
//     that name, and the user named it for this provider.
//   - echo, script and cassette send nothing: their model is a label.

// aliasFamily is what one alias resolves to: the variable that picks the
// id, else the built-in id.
type aliasFamily struct{ env, id string }

var (
	opusFamily   = aliasFamily{"ANTHROPIC_DEFAULT_OPUS_MODEL", "claude-opus-5"}
	sonnetFamily = aliasFamily{"ANTHROPIC_DEFAULT_SONNET_MODEL", "claude-sonnet-5"}
	haikuFamily  = aliasFamily{"ANTHROPIC_DEFAULT_HAIKU_MODEL", "claude-haiku-4-5"}
)

// aliasFamilyOf is the family alias names; ok is false for any other
// word. A switch, not a map: a package-level map is built at start-up.
func aliasFamilyOf(alias string) (f aliasFamily, ok bool) {
	switch alias {
	case "opus", "best":
		return opusFamily, true
	case "sonnet", "opusplan":
		return sonnetFamily, true
	case "haiku":
		return haikuFamily, true
	}
	return aliasFamily{}, false
}

const oneMillionSuffix = "[1m]"

// IsAlias reports whether model is written in Claude Code's shorthand: an
// alias, or an id with "[1m]" after it.
func IsAlias(model string) bool {
	m := strings.ToLower(strings.TrimSpace(model))
	base, cut := strings.CutSuffix(m, oneMillionSuffix)
	_, family := aliasFamilyOf(base)
	return cut || family || base == "default"
}

// ResolveAlias is the Anthropic model id model names when it is Claude
// Code's shorthand (IsAlias); ok is false, and id is model, otherwise.
func ResolveAlias(model string, env func(string) string) (id string, ok bool) {
	if !IsAlias(model) {
		return model, false
	}
	base, _ := strings.CutSuffix(strings.ToLower(strings.TrimSpace(model)), oneMillionSuffix)
	if base == "default" {
		return defaultModel(Anthropic), true
	}
	f, family := aliasFamilyOf(base)
	if !family { // a full id with [1m] after it
		return strings.TrimSpace(model)[:len(strings.TrimSpace(model))-len(oneMillionSuffix)], true
	}
	if v := strings.TrimSpace(env(f.env)); v != "" {
		v, _ = strings.CutSuffix(v, oneMillionSuffix)
		return v, true
	}
	return f.id, true
}

// AliasVariable is the variable that chose what alias resolved to, ""
// when the built-in id did (or model is no alias).
func AliasVariable(model string, env func(string) string) string {
	base, _ := strings.CutSuffix(strings.ToLower(strings.TrimSpace(model)), oneMillionSuffix)
	if f, ok := aliasFamilyOf(base); ok && strings.TrimSpace(env(f.env)) != "" {
		return f.env
	}
	return ""
}

// ResolveModel is the model id a step sends to provider name for model,
// which file set ("" when a flag, the environment, the session or the
// default did), and a warning to show when it is not what the user wrote.
func ResolveModel(name, model, file string, env func(string) string) (id, warning string) {
	switch {
	case name == Anthropic:
		id, _ = ResolveAlias(model, env)
		return id, ""
	case name == OpenAI && file != "" && IsAlias(model):
		id = defaultModel(name)
		if strings.EqualFold(strings.TrimSpace(model), "default") {
			return id, "" // trail's default is what it asks for
		}
		return id, fmt.Sprintf("%s: model %q is a Claude Code alias for an Anthropic model, which the %s provider cannot use: using %s (pass --model to choose another)",
			file, model, name, id)
	}
	return model, ""
}
