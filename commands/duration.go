package commands

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"trail/store"
)

// parseAge reads a duration for --since and --older-than: Go durations
// ("90m", "36h") plus days and weeks ("7d", "2w").
func parseAge(s string) (time.Duration, error) {
	s = strings.TrimSpace(s)
	for suffix, unit := range map[string]time.Duration{"d": 24 * time.Hour, "w": 7 * 24 * time.Hour} {
		if num, ok := strings.CutSuffix(s, suffix); ok {
			n, err := strconv.ParseFloat(num, 64)
			// !(n >= 0) also refuses NaN; ParseFloat takes "NaN" and "Inf",
			// and a float beyond int64 converts to a negative Duration.
			if err != nil || !(n >= 0) || n*float64(unit) >= math.MaxInt64 {
				return 0, fmt.Errorf("invalid duration %s (use e.g. 90m, 36h, 7d, 2w)", store.QuoteInput(s))
			}
			return time.Duration(n * float64(unit)), nil
		}
	}
	d, err := time.ParseDuration(s)
	if err != nil || d < 0 {
		return 0, fmt.Errorf("invalid duration %s (use e.g. 90m, 36h, 7d, 2w)", store.QuoteInput(s))
	}
	return d, nil
}

// relativeTime renders how long ago t was, for TTY tables.
func relativeTime(now, t time.Time) string {
	d := now.Sub(t)
	switch {
	case d < 0:
		return "just now"
	case d < time.Minute:
		return "just now"
	case d < time.Hour:
		return fmt.Sprintf("%dm ago", int(d.Minutes()))
	case d < 24*time.Hour:
		return fmt.Sprintf("%dh ago", int(d.Hours()))
	case d < 30*24*time.Hour:
		return fmt.Sprintf("%dd ago", int(d.Hours()/24))
	}
	return t.Local().Format("2006-01-02")
}

// formatWait writes a --wait as it is usually typed: 30s, 2m, 1m30s, 0.5s.
func formatWait(d time.Duration) string {
	if d < time.Minute && d%time.Second != 0 {
		return strconv.FormatFloat(d.Round(time.Millisecond).Seconds(), 'f', -1, 64) + "s"
	}
	d = d.Round(time.Second)
	switch {
	case d >= time.Minute && d%time.Minute == 0:
		return fmt.Sprintf("%dm", d/time.Minute)
	case d < time.Minute:
		return fmt.Sprintf("%ds", d/time.Second)
	}
	return d.String()
}
