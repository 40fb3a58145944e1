package tools

// Claude Code names the built-in tools' parameters differently from Robota:
// file_path, old_string, new_string, replace_all, Grep's output_mode,
// head_limit and -C. The model-facing schemas, the log and the record keep
// Robota's names (SPEC 5.2); what speaks to Claude Code's scripts (hook
// input, permission_denials, the Claude-shaped stream-json lines and the
// transcript) uses Claude's. Models trained on Claude Code send file_path,
// so every tool accepts either spelling: Normalize turns Claude's names
// into Robota's before the permission check and the tool see the call.
//
// Rules of the mapping:
//   - Only an object's top-level keys are renamed; values are kept byte for
//     byte and keys stay in their order.
//   - When both spellings are present, Robota's wins and Claude's is
//     dropped, so the rules and the tool judge the same value.
//   - In Claude's form, file_path is always absolute (Claude Code expands
//     relative paths before hooks run).

import (
	"encoding/json"
	"path/filepath"

	"github.com/tidwall/gjson"

	"trail/lazy"
	"trail/logfmt"
)

// alias is one parameter's two names.
type alias struct{ claude, robota string }

// aliases lists, per tool, the parameters whose names differ. Grep's -i,
// -A, -B, multiline and type have no Robota name: Grep reads them as
// Claude spells them.
var aliases = lazy.Value[map[string][]alias]{New: func() map[string][]alias {
	return map[string][]alias{
		"Read":  {{"file_path", "filePath"}},
		"Write": {{"file_path", "filePath"}},
		"Edit": {
			{"file_path", "filePath"}, {"old_string", "oldString"},
			{"new_string", "newString"}, {"replace_all", "replaceAll"},
		},
		"Grep": {{"output_mode", "outputMode"}, {"head_limit", "headLimit"}, {"-C", "contextLines"}, {"context", "contextLines"}},
	}
}}

// member is one key of a JSON object with its raw value.
type member struct {
	key string
	raw json.RawMessage
}

// members reads a JSON object's keys in order; a repeated key keeps its
// first position and its last value, as JSON.parse does. ok is false for
// anything that is not an object.
func members(args json.RawMessage) ([]member, bool) {
	if !gjson.ValidBytes(args) {
		return nil, false
	}
	v := gjson.ParseBytes(args)
	if !v.IsObject() {
		return nil, false
	}
	var out []member
	at := map[string]int{}
	v.ForEach(func(k, val gjson.Result) bool {
		raw := json.RawMessage(val.Raw)
		if i, seen := at[k.String()]; seen {
			out[i].raw = raw
			return true
		}
		at[k.String()] = len(out)
		out = append(out, member{key: k.String(), raw: raw})
		return true
	})
	return out, true
}

func encodeMembers(ms []member) json.RawMessage {
	o := make(logfmt.Object, len(ms))
	for i, m := range ms {
		o[i] = logfmt.F(m.key, m.raw)
	}
	b, err := logfmt.Marshal(o)
	if err != nil {
		return nil
	}
	return b
}

// rename renames from-keys to to-keys of ms, unless the to-key is there
// already (then the from-key is dropped).
func rename(ms []member, pairs []alias, toClaude bool) ([]member, bool) {
	has := make(map[string]bool, len(ms))
	for _, m := range ms {
		has[m.key] = true
	}
	changed := false
	out := ms[:0:0]
	for _, m := range ms {
		target := ""
		for _, a := range pairs {
			from, to := a.claude, a.robota
			if toClaude {
				from, to = a.robota, a.claude
			}
			if m.key == from {
				target = to
				break
			}
		}
		switch {
		case target == "":
			out = append(out, m)
		case has[target]:
			changed = true // the other spelling is there: it wins
		default:
			has[target] = true
			out = append(out, member{key: target, raw: m.raw})
			changed = true
		}
	}
	return out, changed
}

// Normalize gives a call's arguments in Robota's names (what the tools, the
// rules and the log use), whichever spelling the model or a hook used.
// Anything that is not a JSON object is returned as it is.
func Normalize(tool string, args json.RawMessage) json.RawMessage {
	pairs := aliases.Get()[tool]
	if len(pairs) == 0 {
		return args
	}
	ms, ok := members(args)
	if !ok {
		return args
	}
	out, changed := rename(ms, pairs, false)
	if !changed {
		return args
	}
	if b := encodeMembers(out); b != nil {
		return b
	}
	return args
}

// ClaudeInput gives a call's arguments in Claude Code's names, as hooks,
// permission_denials and the Claude-shaped output show them; file_path is
// made absolute against cwd. Anything that is not a JSON object is returned
// as it is.
func ClaudeInput(tool string, args json.RawMessage, cwd string) json.RawMessage {
	pairs := aliases.Get()[tool]
	if len(pairs) == 0 {
		return args
	}
	ms, ok := members(args)
	if !ok {
		return args
	}
	// Two Robota names can map to one Claude name (contextLines): the
	// first alias listed is the one shown.
	out, _ := rename(ms, firstPerRobota(pairs), true)
	for i, m := range out {
		if m.key != "file_path" {
			continue
		}
		var p string
		if json.Unmarshal(m.raw, &p) == nil && p != "" && !filepath.IsAbs(p) && cwd != "" {
			if b, err := logfmt.Marshal(filepath.Join(cwd, p)); err == nil {
				out[i].raw = b
			}
		}
	}
	if b := encodeMembers(out); b != nil {
		return b
	}
	return args
}

func firstPerRobota(pairs []alias) []alias {
	seen := map[string]bool{}
	var out []alias
	for _, a := range pairs {
		if !seen[a.robota] {
			seen[a.robota] = true
			out = append(out, a)
		}
	}
	return out
}
