package commands

// The rows trail config shows: what a step would use for each key, and
// where it comes from. SPEC 2's order is flags, then the environment,
// then the settings files, then defaults; config has no step flags, so a
// variable the environment sets replaces every file's value for its key,
// as it would in a step.

import (
	"cmp"
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"trail/core"
	"trail/core/provider"
	"trail/core/settings"
)

// configRow is one key in effect.
type configRow struct {
	Key   string
	Value json.RawMessage // nil for a default without a value (no provider)
	File  string          // the settings file that set it
	Env   string          // or the environment variable
	// Default says where a default comes from when it is not fixed
	// ("ANTHROPIC_API_KEY is set", "anthropic's default"); "" for a fixed
	// one. Only rows with neither File nor Env are defaults.
	Default string
	Missing string // what a default without a value means
	// Note says more of a file's value: a network variable of the env
	// block that the environment's own replaces for trail's requests.
	Note string
	// Resolved is the model id a step sends for a Claude Code alias, and
	// ResolvedWhy what chose it; Warning says the provider cannot use
	// the alias (config_model.go).
	Resolved, ResolvedWhy, Warning string
}

func (r configRow) isDefault() bool { return r.File == "" && r.Env == "" }

// configRows merges the files' entries with the environment and the
// defaults, in SPEC 2's precedence.
func configRows(env func(string) string, entries []settings.Entry) []configRow {
	var rows []configRow
	byKey := map[string]int{}
	for _, e := range entries {
		byKey[e.Key] = len(rows)
		row := configRow{Key: e.Key, Value: e.Value, File: e.File}
		if name, ok := strings.CutPrefix(e.Key, "env."); ok {
			if v := provider.EnvironmentOverrides(env, name); v != "" {
				row.Note = "trail's own requests use the environment's " + v
			}
		}
		rows = append(rows, row)
	}
	set := func(r configRow) {
		if i, ok := byKey[r.Key]; ok {
			rows[i] = r
			return
		}
		byKey[r.Key] = len(rows)
		rows = append(rows, r)
	}
	name := ""
	if i, ok := byKey["provider"]; ok {
		_ = json.Unmarshal(rows[i].Value, &name)
	}
	name = cmp.Or(env("TRAIL_PROVIDER"), name)
	chosen, why := name, ""
	if name == "" {
		chosen, why = providerFromKeys(env)
	}
	for _, v := range configEnvVars(env, chosen) {
		set(configRow{Key: v.key, Value: jsonString(env(v.name)), Env: v.name})
	}
	// A gateway kept in the env block (Claude Code's way) is the base
	// URL, and its ANTHROPIC_MODEL the model, when neither the
	// environment nor trail's own key names one.
	fromEnvBlock := func(key, variable string) {
		if _, ok := byKey[key]; !ok {
			if i, ok := byKey["env."+variable]; ok {
				set(configRow{Key: key, Value: rows[i].Value, File: rows[i].File})
			}
		}
	}
	if v := baseURLVar(chosen); v != "" {
		fromEnvBlock("baseUrl", v)
	}
	if chosen == provider.Anthropic {
		fromEnvBlock("model", "ANTHROPIC_MODEL")
	}
	// Claude Code's variables for trail's keys (settings.ApplyClaudeCodeVars):
	// the environment's, else the env block's, where no file sets the key
	for _, cv := range settings.ClaudeCodeVars {
		name, key := cv[0], cv[1]
		if _, ok := byKey[key]; ok && key != "promptCaching" {
			continue
		}
		v, from := strings.TrimSpace(env(name)), configRow{Env: name}
		if v == "" {
			i, ok := byKey["env."+name]
			if !ok || json.Unmarshal(rows[i].Value, &v) != nil || strings.TrimSpace(v) == "" {
				continue
			}
			from = configRow{File: rows[i].File}
		}
		if value := claudeVarValue(key, strings.TrimSpace(v)); value != nil {
			from.Key, from.Value = key, value
			set(from)
		}
	}
	for _, d := range configDefaults(chosen, why) {
		if _, ok := byKey[d.Key]; !ok {
			set(d)
		}
	}
	resolveModelRow(rows, chosen, env, entries)
	return rows
}

type configEnvVar struct{ key, name string }

// configEnvVars are the variables set that a step reads before the
// files, for provider name.
func configEnvVars(env func(string) string, name string) []configEnvVar {
	var out []configEnvVar
	if env("TRAIL_PROVIDER") != "" {
		out = append(out, configEnvVar{"provider", "TRAIL_PROVIDER"})
	}
	if env("TRAIL_MODEL") != "" {
		out = append(out, configEnvVar{"model", "TRAIL_MODEL"})
	} else if name == provider.Anthropic && env("ANTHROPIC_MODEL") != "" {
		out = append(out, configEnvVar{"model", "ANTHROPIC_MODEL"})
	}
	if v := baseURLVar(name); v != "" && env(v) != "" {
		out = append(out, configEnvVar{"baseUrl", v})
	}
	return out
}

// providerFromKeys is the provider a step chooses when nothing names one
// (provider.Resolve), and why; "" when there is none.
func providerFromKeys(env func(string) string) (name, why string) {
	for _, k := range []struct{ name, v string }{
		{provider.Anthropic, "ANTHROPIC_API_KEY"},
		{provider.Anthropic, "ANTHROPIC_AUTH_TOKEN"},
		{provider.OpenAI, "OPENAI_API_KEY"},
		{provider.OpenAI, "OPENAI_BASE_URL"},
	} {
		if env(k.v) != "" {
			return k.name, k.v + " is set"
		}
	}
	return "", ""
}

// baseURLVar is the variable that holds the base URL of provider name.
func baseURLVar(name string) string {
	switch name {
	case provider.Anthropic:
		return "ANTHROPIC_BASE_URL"
	case provider.OpenAI:
		return "OPENAI_BASE_URL"
	}
	return ""
}

// configDefaults are the values of the keys nothing sets; name is the
// provider in effect and why says it was chosen from the API keys.
func configDefaults(name, why string) []configRow {
	prov := configRow{Key: "provider", Missing: "none: set TRAIL_PROVIDER, \"provider\", or an API key", Default: why}
	if why != "" {
		prov.Value = jsonString(name)
	}
	model := configRow{Key: "model", Missing: "the provider's default"}
	if m, ok := provider.DefaultModel(name); ok && m != "" {
		model.Value, model.Default = jsonString(m), name+"'s default"
	}
	return []configRow{
		prov,
		model,
		{Key: "permissions.defaultMode", Value: jsonString("default")},
		{Key: "autoCompactThreshold", Value: json.RawMessage(fmt.Sprint(core.DefaultAutoCompact))},
		{Key: "maxTurns", Value: json.RawMessage("0"), Default: "no cap"},
		{Key: "timeout", Value: jsonString(provider.DefaultTimeout.String())},
		{Key: "stream", Value: json.RawMessage("false")},
	}
}

func jsonString(s string) json.RawMessage {
	b, _ := json.Marshal(s)
	return b
}

// claudeVarValue is the value of trail's key a Claude Code variable stands
// for, as a settings file would write it; nil when it says nothing
// (DISABLE_PROMPT_CACHING=0).
func claudeVarValue(key, v string) json.RawMessage {
	switch key {
	case "promptCaching":
		switch strings.ToLower(v) {
		case "1", "true", "yes", "on":
			return json.RawMessage("false")
		}
		return nil
	case "thinking":
		if v == "0" {
			return json.RawMessage("false")
		}
	case "timeout":
		// milliseconds, where a file's number is seconds: shown as a
		// duration, as the default is
		if n, err := strconv.ParseInt(v, 10, 64); err == nil && n > 0 && n <= math.MaxInt32 {
			return jsonString((time.Duration(n) * time.Millisecond).String())
		}
	}
	if _, err := strconv.Atoi(v); err == nil {
		return json.RawMessage(v)
	}
	return jsonString(v) // shown as it is; a step refuses it
}
