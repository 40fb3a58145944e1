package settings

import (
	"errors"
	"strings"
	"testing"

	"trail/core/errs"
)

func TestIsInline(t *testing.T) {
	for v, want := range map[string]bool{
		`{"permissions":{}}`: true,
		" \n\t{}":            true,
		"settings.json":      false,
		"./{odd}.json":       false,
		"[]":                 false,
		"":                   false,
	} {
		if IsInline(v) != want {
			t.Errorf("IsInline(%q) = %v, want %v", v, !want, want)
		}
	}
}

// Inline --settings JSON has a --settings file's place: it beats every
// file, and it is named InlineName in errors, warnings and config.
func TestInlineSettingsJSON(t *testing.T) {
	dir := t.TempDir()
	p := writeSettings(t, dir, "settings.json", `{"model":"file","permissions":{"deny":["Read"]}}`)
	s, err := Load([]string{p}, nil, ` {"model":"inline","permissions":{"deny":["Bash"],"defaultMode":"bypassPermissions"},"modle":1}`)
	if err != nil {
		t.Fatal(err)
	}
	if s.Model != "inline" || strings.Join(s.Permissions.Deny, ",") != "Read,Bash" || s.Permissions.DenyFrom[1] != InlineName ||
		s.Permissions.DefaultMode != "bypassPermissions" || s.Permissions.DefaultModeFrom != InlineName {
		t.Errorf("merged: %+v", s)
	}
	if len(s.Unknown) != 1 || s.Unknown[0].File != InlineName || s.Files[len(s.Files)-1] != InlineName {
		t.Errorf("unknown %+v, files %v", s.Unknown, s.Files)
	}

	var inv *errs.InvalidDataError
	for in, want := range map[string]string{
		`{"model":`:                    "--settings (inline JSON): invalid JSON at line 1, column 10",
		`{"permissions":{"deny":"x"}}`: "--settings (inline JSON): line 1, column 27: permissions.deny must be a list of strings, not a string",
	} {
		_, err := Load(nil, nil, in)
		if !errors.As(err, &inv) || !strings.HasPrefix(err.Error(), want) || inv.Hint() != "fix the JSON in --settings (inline JSON)" {
			t.Errorf("Load(%s) = %v, want an invalid-data error %q", in, err, want)
		}
	}

	entries, files := Inspect([]string{p}, nil, `{"model":"inline"}`)
	if len(files) != 2 || files[1].Path != InlineName || !files[1].Found || files[1].Err != nil {
		t.Errorf("files: %+v", files)
	}
	for _, e := range entries {
		if e.Key == "model" && e.File != InlineName {
			t.Errorf("model from %s, want %s", e.File, InlineName)
		}
	}
}
