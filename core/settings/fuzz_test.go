package settings

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"trail/core/errs"
)

// FuzzLoad: whatever a settings file holds (they come from cloned
// repositories), Load never panics; it returns the merged settings or an
// *errs.InvalidDataError naming the file, and a file it accepts names a
// source for every rule it read and reads the same a second time.
func FuzzLoad(f *testing.F) {
	for _, s := range []string{
		``, `{}`, `null`, `[]`, `{"provider":"echo","model":"m","maxTurns":3,"timeout":"90s"}`,
		`{"permissions":{"allow":["Bash(git diff *)"],"ask":["Write"],"deny":["Read(.env)"],"defaultMode":"plan"}}`,
		`{"hooks":{"PreToolUse":[{"matcher":"Bash","hooks":[{"type":"command","command":"exit 0","timeout":5}]}]}}`,
		`{"autoCompactThreshold":false}`, `{"autoCompactThreshold":0.5,"timeout":12.5}`, `{"env":{"A":"1"}}`,
		`{"maxTurns":"3"}`, `{"timeout":"soon"}`, `{"autoCompactThreshold":2}`, `{"permissions":`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		path := filepath.Join(t.TempDir(), "settings.json")
		if err := os.WriteFile(path, data, 0o600); err != nil {
			t.Fatal(err)
		}
		s, err := Load([]string{path}, nil, "")
		if err != nil {
			var bad *errs.InvalidDataError
			if !errors.As(err, &bad) || bad.Path != path {
				t.Fatalf("Load: %v (%T), want an InvalidDataError naming the file", err, err)
			}
			return
		}
		if len(s.Files) != 1 || s.Files[0] != path {
			t.Fatalf("Files = %q", s.Files)
		}
		for _, list := range [][]string{s.Permissions.Allow, s.Permissions.Ask, s.Permissions.Deny} {
			for _, r := range list {
				if s.Permissions.Sources[r] != path {
					t.Fatalf("rule %q has no source", r)
				}
			}
		}
		if s.AutoCompactThreshold != nil && (*s.AutoCompactThreshold <= 0 || *s.AutoCompactThreshold > 1) {
			t.Fatalf("threshold %v accepted", *s.AutoCompactThreshold)
		}
		if s.Timeout < 0 {
			t.Fatalf("timeout %v accepted", s.Timeout)
		}
		again, err := Load([]string{path}, nil, "")
		if err != nil || len(again.Permissions.Allow) != len(s.Permissions.Allow) || again.Model != s.Model || again.Timeout != s.Timeout {
			t.Fatalf("a second load differs: %v", err)
		}
	})
}
