package commands

import "strings"

// Suggestions ("did you mean") for misspelt commands and options.
// urfave/cli's own SuggestFlag always names the nearest flag, however far:
// trail also uses a suggestion to tell a mistyped command ("trail rnu")
// from a one-word prompt ("trail hello"), so it needs a distance it can
// trust. A word is close to a name when one edit (insert, delete, change
// or swap two neighbours) makes one from the other, two for names of
// more than six characters, or when it is the start (4 characters or
// more) of a name.

// suggest returns the name in names closest to word, or "".
func suggest(word string, names []string) string {
	best, bestD := "", 1<<30
	for _, n := range names {
		if len(n) < 2 {
			continue // -h, -q: everything is one edit away from them
		}
		d := editDistance(word, n)
		if len(word) >= 4 && len(word) < len(n) && strings.HasPrefix(n, word) {
			d = 1
		}
		if d < bestD || d == bestD && n < best {
			best, bestD = n, d
		}
	}
	limit := 1
	if len(best) > 6 {
		limit = 2
	}
	if best == "" || bestD > limit || bestD >= len(word) {
		return ""
	}
	return best
}

// editDistance is the optimal string alignment distance: insertions,
// deletions, substitutions and transpositions of neighbours, each 1.
func editDistance(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	prev2 := make([]int, len(rb)+1)
	prev := make([]int, len(rb)+1)
	cur := make([]int, len(rb)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(ra); i++ {
		cur[0] = i
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			if i > 1 && j > 1 && ra[i-1] == rb[j-2] && ra[i-2] == rb[j-1] {
				cur[j] = min(cur[j], prev2[j-2]+1)
			}
		}
		prev2, prev, cur = prev, cur, prev2
	}
	return prev[len(rb)]
}
