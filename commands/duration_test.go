package commands

import (
	"testing"
	"time"
)

func TestParseAge(t *testing.T) {
	for in, want := range map[string]time.Duration{
		"90m": 90 * time.Minute, "36h": 36 * time.Hour, "7d": 7 * 24 * time.Hour,
		"2w": 14 * 24 * time.Hour, "1.5d": 36 * time.Hour, "0s": 0,
	} {
		if got, err := parseAge(in); err != nil || got != want {
			t.Errorf("parseAge(%q) = %v, %v; want %v", in, got, err, want)
		}
	}
	// Each of these once parsed to a negative or meaningless duration.
	for _, in := range []string{"-1d", "NaNd", "Infd", "+Infw", "1e300d", "soon", "", "-5m"} {
		if got, err := parseAge(in); err == nil {
			t.Errorf("parseAge(%q) = %v, want an error", in, got)
		}
	}
}
