package permission

import (
	"strings"
	"testing"
)

// BenchmarkRuleGlobPathological: the rule glob that made the tools'
// backtracking matcher take seconds ("**/a/" eight times, then b, against
// a 40-deep path). Rules compile to RE2 regular expressions, whose matching
// is linear in the input, so this stays in microseconds.
func BenchmarkRuleGlobPathological(b *testing.B) {
	r, err := ParseRule("Read(" + strings.Repeat("**/a/", 8) + "b)")
	if err != nil {
		b.Fatal(err)
	}
	v := strings.Repeat("a/", 40) + "c"
	for b.Loop() {
		if r.matchValue(v) {
			b.Fatal("matched")
		}
	}
}
