package suggest

import (
	"fmt"
	"strings"
)

// Hint returns ` (did you mean "x"?)` naming the candidate closest to name
// when it is close enough: within edit distance 2, or 3 for names of 6
// characters or more, comparing case-insensitively; the first of equally
// close candidates wins. It returns "" otherwise, so that it can be
// appended to any message.
func Hint(name string, candidates []string) string {
	best, bestDist := "", 1<<30
	for _, c := range candidates {
		if d := Distance(strings.ToLower(name), strings.ToLower(c)); d < bestDist {
			best, bestDist = c, d
		}
	}
	limit := 2
	if len(name) >= 6 {
		limit = 3
	}
	if best == "" || bestDist > limit {
		return ""
	}
	return fmt.Sprintf(" (did you mean %q?)", best)
}

// Distance is the Levenshtein edit distance between a and b, counted in
// runes: the fewest insertions, deletions and substitutions that turn a
// into b.
func Distance(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	row := make([]int, len(rb)+1)
	for j := range row {
		row[j] = j
	}
	for i := 1; i <= len(ra); i++ {
		diag := row[0]
		row[0] = i
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			diag, row[j] = row[j], min(diag+cost, row[j]+1, row[j-1]+1)
		}
	}
	return row[len(rb)]
}
