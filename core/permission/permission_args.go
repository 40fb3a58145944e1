package permission

// What a permission rule is matched against: a call's main argument, read
// exactly as the tool will read it (the engine hands calls over in the
// tools' own names; Claude Code's spelling is read too when the tool's is
// missing, so a call cannot step around a rule by spelling file_path).

import (
	"encoding/json"
)

// argumentKey names the argument a tool's rules match.
func argumentKey(tool string) string {
	switch tool {
	case "Bash":
		return "command"
	case "Read", "Write", "Edit":
		return "filePath"
	case "Glob", "Grep":
		return "pattern"
	}
	return ""
}

// argument is the call's main argument. known is false when the tool has
// no argument rules can match; value is "" when the call lacks it.
func (p *Policy) argument(tool string, args json.RawMessage) (string, bool) {
	key := argumentKey(tool)
	if key == "" {
		return "", false
	}
	v, ok := argString(args, key)
	if !ok && key == "filePath" {
		v, _ = argString(args, "file_path")
	}
	return v, true
}

// ReadDenied is nil when no rule denies Read, else a test of whether one
// denies reading the file at abs. Grep and Glob skip such files: as in
// Claude Code, Read rules apply (best effort) to every tool that reads files.
func (p *Policy) ReadDenied() func(abs string) bool {
	var rules []Rule
	for _, r := range p.Deny {
		if r.Tool == "Read" && (r.kind == kindPath || r.kind == kindTool) {
			rules = append(rules, r)
		}
	}
	if len(rules) == 0 {
		return nil
	}
	return func(abs string) bool {
		for _, r := range rules {
			if r.kind == kindTool || p.matchPath(r.path, abs, true) {
				return true
			}
		}
		return false
	}
}

// argString reads a call's string argument the way the tool reads it: the
// exact key, and the last of repeated keys (as JSON.parse and Go's decoder
// do; gjson takes the first, which let {"command":"echo hi","command":"rm
// -rf ."} pass for an echo).
func argString(args json.RawMessage, key string) (string, bool) {
	var fields map[string]json.RawMessage
	if json.Unmarshal(args, &fields) != nil {
		return "", false
	}
	var v string
	if raw, ok := fields[key]; !ok || json.Unmarshal(raw, &v) != nil {
		return "", false
	}
	return v, true
}
