package store

import (
	"strings"
	"testing"
)

func TestQuoteInputCutsLongInput(t *testing.T) {
	long := strings.Repeat("a", 10_000)
	tests := []struct {
		name, in, want string
	}{
		{"short input is quoted whole", "abc", `"abc"`},
		{"exactly 200 characters is whole", long[:200], `"` + long[:200] + `"`},
		{"201 characters is cut to 200", long[:201], `"` + long[:200] + `"… (201 bytes)`},
		{"a 10 KB id keeps 200 characters", long, `"` + long[:200] + `"… (10000 bytes)`},
		{"multi-byte characters count as one", strings.Repeat("é", 150), `"` + strings.Repeat("é", 150) + `"`},
		{"multi-byte input is cut on a character", strings.Repeat("é", 300), `"` + strings.Repeat("é", 200) + `"… (600 bytes)`},
		{"control characters are escaped", "a\nb\x00", `"a\nb\x00"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := QuoteInput(tt.in); got != tt.want {
				t.Errorf("got  %.300s\nwant %.300s", got, tt.want)
			}
		})
	}
}
