package commands

// What trail config shows of a model setting written as a Claude Code
// alias ("model": "opus"): the id a step sends, and why, or that the
// provider in effect cannot use it (provider.ResolveModel).

import (
	"encoding/json"
	"fmt"
	"strings"

	"trail/core/provider"
	"trail/core/settings"
)

// resolveModelRow sets the model row's Resolved (and Warning) for the
// provider name in effect; env is the environment, the files' "env"
// entries standing in where it has no value, as in a step.
func resolveModelRow(rows []configRow, name string, env func(string) string, entries []settings.Entry) {
	i := -1
	for j, r := range rows {
		if r.Key == "model" {
			i = j
		}
	}
	var model string
	if i < 0 || rows[i].isDefault() || json.Unmarshal(rows[i].Value, &model) != nil {
		return
	}
	fileEnv := map[string]string{}
	for _, e := range entries {
		if k, ok := strings.CutPrefix(e.Key, "env."); ok {
			var v string
			if json.Unmarshal(e.Value, &v) == nil {
				fileEnv[k] = v
			}
		}
	}
	aliasEnv := provider.AliasEnv(env, &settings.Settings{Env: fileEnv})
	id, warning := provider.ResolveModel(name, model, rows[i].File, aliasEnv)
	if id == model {
		return
	}
	why := ""
	switch {
	case warning != "":
		why = name + "'s default"
	case name == provider.Anthropic && strings.EqualFold(strings.TrimSpace(model), "default"):
		why = "trail's default"
	case name == provider.Anthropic:
		why = provider.AliasVariable(model, aliasEnv)
	}
	rows[i].Resolved, rows[i].ResolvedWhy = id, why
	rows[i].Warning = strings.TrimPrefix(warning, rows[i].File+": ")
}

// modelProblems is what --check says of a model a step would not send:
// a Claude Code alias in a file, for a provider that cannot use it.
func modelProblems(cfg []configRow) []configProblem {
	var out []configProblem
	for _, r := range cfg {
		if r.Key == "model" && r.Warning != "" {
			out = append(out, configProblem{File: r.File, Key: r.Key, Msg: r.Warning})
		}
	}
	return out
}

// modelShown is the model row's value as text: the alias, then the id it
// resolves to.
func modelShown(r configRow, value string) string {
	if r.Resolved == "" {
		return value
	}
	value += " → " + r.Resolved
	if r.ResolvedWhy != "" {
		value += " (" + r.ResolvedWhy + ")"
	}
	return value
}

// fileProviderWarnings: a provider that plays a file (script, cassette)
// chosen by settings or the environment fails every step that names no
// file. Listed by --check as a warning: a step may give --script or
// --cassette.
func fileProviderWarnings(cfg []configRow, env func(string) string) []configProblem {
	var out []configProblem
	for _, r := range cfg {
		if r.Key != "provider" || (r.File == "" && r.Env == "") {
			continue
		}
		var name string
		_ = json.Unmarshal(r.Value, &name)
		need := ""
		switch name {
		case "script":
			need = "TRAIL_SCRIPT"
		case "cassette":
			need = "TRAIL_CASSETTE"
		}
		if need == "" || env(need) != "" {
			continue
		}
		out = append(out, configProblem{File: r.File, Env: r.Env, Key: r.Key, Warning: true,
			Msg: fmt.Sprintf("provider %s plays a file no setting names: every step needs --%s FILE or %s", name, name, need)})
	}
	return out
}

// keyInSettingsWarnings are the API keys Claude Code takes from a settings
// file (its env block, where gateways' guides put ANTHROPIC_AUTH_TOKEN, or
// apiKeyHelper's command) that trail does not, the environment lacking
// them: a warning, since the file is Claude Code's to use as it does.
func keyInSettingsWarnings(cfg []configRow, env func(string) string) []configProblem {
	var out []configProblem
	for _, r := range cfg {
		if r.File == "" {
			continue
		}
		switch r.Key {
		case "env.ANTHROPIC_AUTH_TOKEN", "env.ANTHROPIC_API_KEY", "env.OPENAI_API_KEY":
			if name := strings.TrimPrefix(r.Key, "env."); env(name) == "" {
				out = append(out, configProblem{File: r.File, Key: r.Key, Warning: true,
					Msg: name + " here is not read: trail reads API keys from the environment only; export it in the shell"})
			}
		case "apiKeyHelper":
			if env("ANTHROPIC_API_KEY") == "" && env("ANTHROPIC_AUTH_TOKEN") == "" {
				out = append(out, configProblem{File: r.File, Key: r.Key, Warning: true,
					Msg: "apiKeyHelper is not run: trail reads API keys from the environment only; export ANTHROPIC_API_KEY=\"$(the helper)\""})
			}
		}
	}
	return out
}
