package commands

// What config --check finds in one settings entry besides the values a
// step refuses (checkEntry): what is written so that it never takes
// effect. A deny or ask rule, a hook or an "if" that never matches fails
// open, silently, so it is a problem; an allow rule that never matches
// only asks more often than meant, so it is a warning (listed, not failed).

import (
	"encoding/json"
	"fmt"
	"strings"

	"trail/core/hooks"
	"trail/core/permission"
	"trail/core/provider/wire"
	"trail/core/settings"
	"trail/store"
)

// entryProblems are the problems and warnings of one entry; File is left
// for the caller.
func entryProblems(e settings.Entry) []configProblem {
	if strings.HasPrefix(e.Key, "hooks.") {
		return hookProblems(e)
	}
	var out []configProblem
	if msg := checkEntry(e); msg != "" {
		return append(out, configProblem{Key: e.Key, Msg: msg})
	}
	if e.Key == "env.NODE_EXTRA_CA_CERTS" {
		// every step against a provider would refuse it (exit 2)
		var file string
		if json.Unmarshal(e.Value, &file) == nil && file != "" {
			if err := wire.CheckCAFile(file); err != nil {
				out = append(out, configProblem{Key: e.Key, Msg: "NODE_EXTRA_CA_CERTS: " + oneLine(err.Error())})
			}
		}
	}
	if kind, ok := strings.CutPrefix(e.Key, "permissions."); ok && (kind == "allow" || kind == "ask" || kind == "deny") {
		var rule string
		if json.Unmarshal(e.Value, &rule) == nil {
			if why := ruleCaseMiss(rule); why != "" {
				msg := fmt.Sprintf("%s rule %s %s: %s", kind, store.QuoteInput(rule), ruleMissEffect(kind), why)
				out = append(out, configProblem{Key: e.Key, Msg: msg, Warning: kind == "allow"})
			}
		}
	}
	return out
}

// ruleMissEffect is what a rule of kind that matches no call leaves undone.
func ruleMissEffect(kind string) string {
	switch kind {
	case "deny":
		return "denies nothing"
	case "ask":
		return "asks about nothing"
	}
	return "allows nothing"
}

// ruleCaseMiss says why rule matches no call when it names a tool in the
// wrong case, with the rule as meant ("" when it does not, or does not
// parse: checkEntry reports that).
func ruleCaseMiss(rule string) string {
	r, err := permission.ParseRule(rule)
	if err != nil {
		return ""
	}
	right := permission.ToolCaseMiss(r.Tool)
	if right == "" {
		return ""
	}
	meant := right + strings.TrimPrefix(strings.TrimSpace(rule), r.Tool)
	return fmt.Sprintf("tool names are case-sensitive (did you mean %q?)", meant)
}

// hookProblems judges one entry of a hook event's list: its matcher, and
// each of its hooks (type, command, "if").
func hookProblems(e settings.Entry) []configProblem {
	var group struct {
		Matcher string `json:"matcher"`
		Hooks   []struct {
			Type    string  `json:"type"`
			Command *string `json:"command"`
			If      string  `json:"if"`
			Shell   string  `json:"shell"`
		} `json:"hooks"`
	}
	if json.Unmarshal(e.Value, &group) != nil {
		return nil // Load refuses it, and says why
	}
	event := strings.TrimPrefix(e.Key, "hooks.")
	var out []configProblem
	add := func(msg string) { out = append(out, configProblem{Key: e.Key, Msg: e.Key + " " + msg}) }
	if msg := hooks.MatcherProblem(event, group.Matcher); msg != "" {
		add(msg)
	}
	for _, h := range group.Hooks {
		if msg := hooks.EntryProblem(h.Type, h.Command); msg != "" {
			add(msg)
		}
		if msg := hooks.ShellProblem(h.Shell); msg != "" {
			add("hook " + msg)
		}
		if msg := hooks.IfProblem(event, h.If); msg != "" {
			add("hook " + msg)
		} else if why := ruleCaseMiss(h.If); why != "" {
			add("hook if " + store.QuoteInput(h.If) + " matches no call, so the hook never runs: " + why)
		}
	}
	return out
}

// splitWarnings parts what --check fails on from what it only lists.
func splitWarnings(all []configProblem) (problems, warnings []configProblem) {
	for _, p := range all {
		if p.Warning {
			warnings = append(warnings, p)
		} else {
			problems = append(problems, p)
		}
	}
	return problems, warnings
}
