package settings

import (
	"bytes"
	"encoding/json"
	"errors"
	"slices"
	"sort"
	"strings"

	"github.com/tidwall/gjson"

	"trail/core/errs"
)

// Inspect is what `trail config` shows: each value in effect with the
// file it came from, and what each settings file holds that it should
// not. Unlike Load it reads every file, whatever an earlier one holds, so
// one run reports every problem.
//
// Values are shown as the files wrote them (raw JSON), merged as Load
// merges them: the rules of permissions.allow, ask and deny and each hook
// event's entries add up, one Entry each; env merges name by name; any
// other key, trail's keys to come included, is the last file's.

// Entry is one value in effect.
type Entry struct {
	Key   string          // "provider", "permissions.allow", "hooks.PreToolUse", "env.NAME"
	Value json.RawMessage // as the file wrote it
	File  string
	// Ignored says why a step does not use the value ("" when it does): a
	// project's file setting what only the user may (project_scope.go), or
	// a rule or hook the managed settings set aside (managed.go: then
	// ByPolicy, since the file itself is not wrong).
	Ignored  string
	ByPolicy bool
}

// FileReport is what one settings file holds, or why it could not be read.
type FileReport struct {
	Path  string
	Found bool
	Err   error // it cannot be read, is not JSON, or holds a value Load refuses
	// More are the other values Load would refuse, one error each: Err
	// names only the first, and a file is fixed in one go when every
	// problem is shown.
	More    []error
	Entries []Entry // every value it sets of a key trail reads, list items one by one
	Unknown []UnknownKey
}

// Inspect reads paths (and extra, when not "", then managed) in merge
// order; project are those a project brings, as for Load. A managed file
// that does not exist is not reported: there is no policy to show.
func Inspect(paths, project []string, extra string, managed ...string) ([]Entry, []FileReport) {
	all := append([]string(nil), paths...)
	if extra != "" {
		all = append(all, extra)
	}
	all = append(all, managed...)
	var reports []FileReport
	for i, path := range all {
		isExtra := extra != "" && i == len(all)-len(managed)-1
		isManaged := i >= len(all)-len(managed)
		read := readFile
		if isExtra && IsInline(extra) {
			path, read = InlineName, func(string) ([]byte, error) { return []byte(extra), nil }
		}
		r := FileReport{Path: path}
		tmp := &Settings{Permissions: Permissions{Sources: map[string]string{}}, project: pathSet(project)}
		if isExtra {
			r.Err = tmp.mergeExtra(extra)
		} else {
			r.Err = tmp.mergeFile(path, false)
		}
		var missing *errs.UsageError // --settings names a file that does not exist
		r.Found = len(tmp.Files) > 0 || r.Err != nil && !errors.As(r.Err, &missing)
		if r.Found {
			if data, err := read(path); err == nil && len(bytes.TrimSpace(data)) > 0 {
				r.Unknown = unknownKeys(path, data)
				r.Entries = flatten(path, data)
				tmp.markIgnored(r.Entries)
				if r.Err != nil {
					r.More = otherValueErrors(path, data, r.Err)
				}
			}
		}
		if isManaged && !r.Found {
			continue
		}
		reports = append(reports, r)
	}
	markManagedOnly(reports, pathSet(managed))
	return effective(reports), reports
}

// markManagedOnly marks the rules and hooks of other files ignored when a
// managed file allows only its own (managed.go).
func markManagedOnly(reports []FileReport, managed map[string]bool) {
	only := map[string]string{} // "permissions." or "hooks." -> why
	for _, r := range reports {
		if !managed[r.Path] || r.Err != nil {
			continue
		}
		data, err := readFile(r.Path)
		if err != nil {
			continue
		}
		for key, prefix := range map[string]string{"allowManagedPermissionRulesOnly": "permissions.", "allowManagedHooksOnly": "hooks."} {
			if v := gjson.GetBytes(data, key); v.Exists() {
				delete(only, prefix)
				if v.Bool() {
					only[prefix] = "is ignored: the managed settings (" + r.Path + ") allow only their own (" + key + ")"
				}
			}
		}
	}
	for i, r := range reports {
		if managed[r.Path] {
			continue
		}
		for j, e := range r.Entries {
			if e.Key == "allowManagedPermissionRulesOnly" || e.Key == "allowManagedHooksOnly" {
				reports[i].Entries[j].Ignored, reports[i].Entries[j].ByPolicy = e.Key+" does nothing here: only the managed settings may set it", true
				continue
			}
			for prefix, why := range only {
				if strings.HasPrefix(e.Key, prefix) && (prefix == "hooks." || isRuleKey(e.Key)) {
					reports[i].Entries[j].Ignored, reports[i].Entries[j].ByPolicy = e.Key+" "+compactValue(e.Value)+" "+why, true
				}
			}
		}
	}
}

func isRuleKey(key string) bool {
	switch key {
	case "permissions.allow", "permissions.ask", "permissions.deny":
		return true
	}
	return false
}

// effective merges the files' entries as Load merges their values; a
// file Load would refuse counts for nothing.
func effective(reports []FileReport) []Entry {
	last := map[string]Entry{}
	var lists []Entry
	for _, r := range reports {
		if r.Err != nil {
			continue
		}
		for _, e := range r.Entries {
			if e.Ignored != "" {
				continue
			}
			if isListKey(e.Key) {
				lists = append(lists, e)
			} else {
				last[e.Key] = e
			}
		}
	}
	entries := make([]Entry, 0, len(last)+len(lists))
	for _, e := range last {
		entries = append(entries, e)
	}
	entries = append(entries, lists...)
	// By rank, then key; a list's items keep their merge order.
	sort.SliceStable(entries, func(i, j int) bool {
		ri, rj := KeyRank(entries[i].Key), KeyRank(entries[j].Key)
		return ri < rj || ri == rj && entries[i].Key < entries[j].Key
	})
	return entries
}

func isListKey(key string) bool {
	switch key {
	case "permissions.allow", "permissions.ask", "permissions.deny", "permissions.additionalDirectories":
		return true
	}
	return strings.HasPrefix(key, "hooks.")
}

// flatten lists what a file sets of the keys trail reads: one Entry per
// scalar, per rule, per hook entry and per env variable.
func flatten(path string, data []byte) []Entry {
	var obj map[string]json.RawMessage
	if json.Unmarshal(data, &obj) != nil {
		return nil
	}
	var out []Entry
	for _, k := range sortedKeys(obj) {
		v := obj[k]
		if string(v) == "null" || !isTrailKey(k) {
			continue
		}
		var sub map[string]json.RawMessage
		switch k {
		case "permissions", "hooks", "env":
			if json.Unmarshal(v, &sub) != nil {
				continue
			}
		default:
			out = append(out, Entry{Key: k, Value: v, File: path})
			continue
		}
		for _, sk := range sortedKeys(sub) {
			key := k + "." + sk
			if k == "permissions" && !slices.Contains(tables.Get().trailPermissions, sk) {
				continue // Claude Code's, or unknown: trail reads neither
			}
			if !isListKey(key) {
				out = append(out, Entry{Key: key, Value: sub[sk], File: path})
				continue
			}
			var items []json.RawMessage
			if json.Unmarshal(sub[sk], &items) != nil {
				continue
			}
			for _, it := range items {
				out = append(out, Entry{Key: key, Value: it, File: path})
			}
		}
	}
	return out
}

func sortedKeys(m map[string]json.RawMessage) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

func isTrailKey(k string) bool { return slices.Contains(tables.Get().trail, k) }

// KeyRank puts the keys in the order README lists them: what picks the
// model first, then permissions, hooks, the step's limits, env last.
func KeyRank(key string) int {
	order := []string{"provider", "model", "baseUrl", "systemPrompt", "permissions.", "hooks.", "autoCompactThreshold", "maxTurns", "timeout"}
	for i, k := range order {
		if key == k || strings.HasSuffix(k, ".") && strings.HasPrefix(key, k) {
			return i
		}
	}
	if strings.HasPrefix(key, "env.") {
		return len(order) + 1
	}
	return len(order) // keys trail reads that this list does not name yet
}

// otherValueErrors merges each top-level member of a refused file on its
// own, and returns the errors besides first (the file's own error). A file
// that is not a JSON object has no members to try.
func otherValueErrors(path string, data []byte, first error) []error {
	keys, _ := objectKeys(data, "")
	if len(keys) < 2 || !json.Valid(data) {
		return nil // one member, or JSON that does not parse: the first error is all
	}
	var out []error
	seen := map[string]bool{first.Error(): true}
	gjson.ParseBytes(data).ForEach(func(k, v gjson.Result) bool {
		one := []byte(`{` + k.Raw + `:` + v.Raw + `}`)
		tmp := &Settings{Permissions: Permissions{Sources: map[string]string{}}}
		if err := tmp.mergeData(path, one); err != nil {
			msg := err.Error()
			var bad *errs.InvalidDataError
			if errors.As(err, &bad) {
				msg = bad.Err.Error()
			}
			// Positions are the one-member file's: drop them.
			if _, rest, ok := strings.Cut(msg, ": "); ok && strings.HasPrefix(msg, "line ") {
				msg = rest
			}
			if !seen[msg] && !strings.Contains(first.Error(), msg) {
				seen[msg] = true
				out = append(out, errors.New(msg))
			}
		}
		return true
	})
	return out
}

// compactValue is a value on one line, cut to 60 bytes.
func compactValue(v json.RawMessage) string {
	var b bytes.Buffer
	if json.Compact(&b, v) != nil {
		return string(v)
	}
	if b.Len() > 60 {
		return string(b.Bytes()[:57]) + "..."
	}
	return b.String()
}
