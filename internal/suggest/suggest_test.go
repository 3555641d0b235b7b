package suggest

import "testing"

func TestDistance(t *testing.T) {
	cases := []struct {
		a, b string
		want int
	}{
		{"", "", 0},
		{"", "abc", 3},
		{"abc", "", 3},
		{"kitten", "sitting", 3},
		{"flaw", "lawn", 2},
		{"forest", "forest", 0},
		{"forset", "forest", 2}, // a transposition is two edits
		{"ρho", "rho", 1},       // runes, not bytes
		{"mcar", "mnar", 1},
	}
	for _, c := range cases {
		if got := Distance(c.a, c.b); got != c.want {
			t.Errorf("Distance(%q, %q) = %d, want %d", c.a, c.b, got, c.want)
		}
		if got := Distance(c.b, c.a); got != c.want {
			t.Errorf("Distance(%q, %q) = %d, want %d (symmetric)", c.b, c.a, got, c.want)
		}
	}
}

func TestHint(t *testing.T) {
	known := []string{"repetitions", "seed", "data", "missingness", "pipelines"}
	cases := []struct {
		name string
		want string
	}{
		{"repetition", ` (did you mean "repetitions"?)`},
		{"Seeds", ` (did you mean "seed"?)`}, // case-insensitive
		{"missingnes", ` (did you mean "missingness"?)`},
		{"pipeline", ` (did you mean "pipelines"?)`},
		{"sed", ` (did you mean "seed"?)`},
		{"xyz", ""},    // 3 edits from "seed" but a short name allows 2
		{"banana", ""}, // 3 edits allowed at 6 characters, none that close
		{"dta", ` (did you mean "data"?)`},
	}
	for _, c := range cases {
		if got := Hint(c.name, known); got != c.want {
			t.Errorf("Hint(%q) = %q, want %q", c.name, got, c.want)
		}
	}
	if got := Hint("x", nil); got != "" {
		t.Errorf("Hint with no candidates = %q, want empty", got)
	}
	// Equally close candidates: the first listed wins.
	if got := Hint("cat", []string{"bat", "cap"}); got != ` (did you mean "bat"?)` {
		t.Errorf("tie: %q", got)
	}
}
