package settings

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"

	"trail/core/errs"
)

// An organization's managed settings (Claude Code's "managed" scope, its
// settings page): managed-settings.json in a system folder, then the
// *.json files of managed-settings.d beside it in name order, merged
// after every other file and --settings, so that their values win and
// their rules add to the rest. Two of their keys only they may set:
// allowManagedPermissionRulesOnly (the permission rules of every other
// file, and --allow-tool, are ignored) and allowManagedHooksOnly (only
// their hooks run). A user's trail run on a managed machine keeps to the
// policy as Claude Code does.

// managedDir is set at link time by tests (-X), which cannot write the
// system folder; "" for the system's.
var managedDir string

// ManagedDir is the folder of the managed settings files.
func ManagedDir() string {
	if managedDir != "" {
		return managedDir
	}
	switch runtime.GOOS {
	case "darwin":
		return "/Library/Application Support/ClaudeCode"
	case "windows":
		return `C:\Program Files\ClaudeCode`
	}
	return "/etc/claude-code"
}

// ManagedPaths are the managed settings files, in merge order: the base
// file (whether or not it exists; Load skips a missing one), then the
// drop-in folder's *.json files by name, hidden ones left out. A drop-in
// folder this user cannot list is an error: a policy must not be passed
// over (no step runs without it).
func ManagedPaths() ([]string, error) {
	dir := ManagedDir()
	out := []string{filepath.Join(dir, "managed-settings.json")}
	dropIns := filepath.Join(dir, "managed-settings.d")
	entries, err := os.ReadDir(dropIns) // sorted by name
	if err != nil && !errors.Is(err, fs.ErrNotExist) && !errors.Is(err, syscall.ENOTDIR) {
		return nil, managedError(&errs.InvalidDataError{Path: dropIns, Err: fmt.Errorf("list the managed settings: %w", unwrapPathError(err))})
	}
	for _, e := range entries {
		if n := e.Name(); !strings.HasPrefix(n, ".") && strings.HasSuffix(n, ".json") {
			out = append(out, filepath.Join(dir, "managed-settings.d", n))
		}
	}
	return out, nil
}

// managedError is a managed file's failure with the hint for whoever
// meets it: the policy is not the user's to fix, and no step runs
// without it.
func managedError(err error) error {
	const fix = "these are the organization's managed settings: ask whoever manages this machine to fix them (no step runs without its policy)"
	var bad *errs.InvalidDataError
	var failed *errs.FailureError // a folder of theirs this user cannot enter
	switch {
	case errors.As(err, &bad):
		bad.Fix = fix
	case errors.As(err, &failed):
		failed.Fix = fix
	}
	return err
}

// managedOnly applies allowManagedPermissionRulesOnly and
// allowManagedHooksOnly once every file is merged, noting what they set
// aside.
func (s *Settings) managedOnly() {
	if s.ManagedRulesOnly {
		p := &s.Permissions
		dropped := 0
		keep := func(rules, from []string) ([]string, []string) {
			var r, f []string
			for i, rule := range rules {
				if s.managed[from[i]] {
					r, f = append(r, rule), append(f, from[i])
				} else {
					dropped++
				}
			}
			return r, f
		}
		p.Allow, p.AllowFrom = keep(p.Allow, p.AllowFrom)
		p.Ask, p.AskFrom = keep(p.Ask, p.AskFrom)
		p.Deny, p.DenyFrom = keep(p.Deny, p.DenyFrom)
		if dropped > 0 {
			s.ManagedNotes = append(s.ManagedNotes, fmt.Sprintf("%d permission %s of other settings files %s ignored: the managed settings (%s) allow only their own (allowManagedPermissionRulesOnly)",
				dropped, count(dropped, "rule", "rules"), count(dropped, "is", "are"), s.ManagedRulesFrom))
		}
	}
	if s.DisableAllHooks && !s.managed[s.disableAllHooksFrom] && len(s.managedHooks) > 0 {
		// Claude Code's rule: only the managed settings may turn their
		// own hooks off; a repository's file or --settings turns off the
		// others'. An organization's audit hook keeps running.
		s.ManagedNotes = append(s.ManagedNotes, fmt.Sprintf("disableAllHooks in %s turns off the hooks of other settings files; the managed settings' own still run", s.disableAllHooksFrom))
		s.DisableAllHooks, s.Hooks = false, s.managedHooks
	}
	if s.ManagedHooksOnly {
		others := 0
		for event, list := range s.Hooks {
			others += len(list) - len(s.managedHooks[event])
		}
		if others > 0 {
			s.ManagedNotes = append(s.ManagedNotes, fmt.Sprintf("%d %s of other settings files %s not run: the managed settings (%s) allow only their own (allowManagedHooksOnly)",
				others, count(others, "hook", "hooks"), count(others, "is", "are"), s.ManagedHooksFrom))
		}
		s.Hooks = s.managedHooks
	}
}

// count is one for 1, many otherwise.
func count(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
