package permission

// What a permission rule is matched against: a call's main argument, read
// exactly as the tool will read it, and for file paths every form that
// names the same file (relative, "./", absolute, symlinks resolved), so a
// rule cannot be stepped around by spelling the path another way.

import (
	"encoding/json"
	"path/filepath"
	"strings"
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

// argumentValues are the strings a rule pattern is tried against: the
// argument as given and, for file paths, its absolute and cwd-relative
// forms (with and without "./"), so Read(.env) also catches "./.env" and
// "/abs/project/.env", and Read(./src/**) catches "src/a.go"; and the same
// forms of the file the path really names once symlinks are resolved, so
// a link docs/e -> ../.env is still Read(.env).
// known is false when the tool has no argument rules can match.
func (p *Policy) argumentValues(tool string, args json.RawMessage) ([]string, bool) {
	key := argumentKey(tool)
	if key == "" {
		return nil, false
	}
	raw, ok := argString(args, key)
	if !ok {
		return nil, true
	}
	if key == "filePath" && raw != "" {
		return p.pathValues(raw), true
	}
	return []string{raw}, true
}

// pathValues are the forms of a file path rules are tried against.
func (p *Policy) pathValues(raw string) []string {
	vals := []string{raw}
	abs := raw
	if !filepath.IsAbs(abs) && p.Cwd != "" {
		abs = filepath.Join(p.Cwd, abs)
	}
	abs = filepath.Clean(abs)
	vals = appendPathForms(vals, p.Cwd, abs)
	if real, err := CanonicalPath(abs); err == nil && real != abs {
		cwd, err := CanonicalPath(p.Cwd)
		if err != nil {
			cwd = p.Cwd
		}
		vals = appendPathForms(vals, cwd, real)
	}
	return vals
}

// ReadDenied is nil when no rule denies Read, else a test of whether one
// denies reading the file at abs. Grep and Glob skip such files: as in
// Claude Code, Read rules apply (best effort) to every tool that reads files.
func (p *Policy) ReadDenied() func(abs string) bool {
	var rules []Rule
	for _, r := range p.Deny {
		if r.Tool == "Read" {
			rules = append(rules, r)
		}
	}
	if len(rules) == 0 {
		return nil
	}
	return func(abs string) bool {
		values := p.pathValues(abs)
		for _, r := range rules {
			if matchesAnyPart(r, "Read", values, true) {
				return true
			}
		}
		return false
	}
}

// appendPathForms adds abs and, when it is inside cwd, its relative forms.
func appendPathForms(vals []string, cwd, abs string) []string {
	vals = append(vals, abs)
	if cwd != "" {
		if rel, err := filepath.Rel(cwd, abs); err == nil && rel != ".." && !strings.HasPrefix(rel, "../") {
			vals = append(vals, rel, "./"+rel)
		}
	}
	return vals
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
