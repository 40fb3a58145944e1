package settings

import "testing"

// A hook event is reported only as a near miss of a known one: a typo
// never runs, while a name far from every known one may be an event of a
// newer Claude Code and is left alone.
func TestNearEvent(t *testing.T) {
	for event, want := range map[string]bool{
		"PreToolUse":       false, // known
		"SubagentStop":     false, // Claude Code's, known
		"PreToolUSe":       true,  // a case slip
		"pretooluse":       true,
		"PreToolUs":        true, // a letter dropped
		"PreTooolUse":      true, // one added
		"PerToolUse":       true, // two swapped
		"PreToolUze":       true, // one changed
		"SomeNewEvent2027": false,
		"Stp":              true,
		"":                 false,
	} {
		if got := nearEvent(event); got != want {
			t.Errorf("nearEvent(%q) = %v, want %v", event, got, want)
		}
	}
}
