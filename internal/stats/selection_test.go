package stats

import (
	"errors"
	"math"
	"testing"
)

func TestSelectionFrequencyHandComputed(t *testing.T) {
	var choices []Choice
	add := func(group string, n int, rate float64, chosen ...string) {
		for _, c := range chosen {
			choices = append(choices, Choice{Group: group, N: n, Rate: rate, Chosen: c})
		}
	}
	add("cart", 50, 0.75, "X1", "X2", "X1", "", "X1") // 3 of 4 splits, one stump without split
	add("cart", 50, 0.25, "X2", "X2")                 // 0 of 2
	add("cart", 200, 0.25, "X1")                      // 1 of 1
	add("ctree", 50, 0.75, "", "")                    // no split at all
	got, err := SelectionFrequency(choices, "X1", 0.95)
	if err != nil {
		t.Fatal(err)
	}
	nan := math.NaN()
	want := []Selection{ // sorted by group, rate, n
		{Group: "cart", N: 50, Rate: 0.25, Total: 2, Splits: 2, Hits: 0, Freq: 0, SE: 0},
		{Group: "cart", N: 200, Rate: 0.25, Total: 1, Splits: 1, Hits: 1, Freq: 1, SE: 0},
		{Group: "cart", N: 50, Rate: 0.75, Total: 5, NoSplit: 1, Splits: 4, Hits: 3, Freq: 0.75,
			SE: math.Sqrt(0.75 * 0.25 / 4)},
		{Group: "ctree", N: 50, Rate: 0.75, Total: 2, NoSplit: 2, Freq: nan, SE: nan},
	}
	if len(got) != len(want) {
		t.Fatalf("got %d cells: %+v", len(got), got)
	}
	for i, w := range want {
		g := got[i]
		if g.Group != w.Group || g.N != w.N || g.Rate != w.Rate || g.Target != "X1" || g.Total != w.Total ||
			g.NoSplit != w.NoSplit || g.Splits != w.Splits || g.Hits != w.Hits ||
			!near(g.Freq, w.Freq, 1e-15, 0) || !near(g.SE, w.SE, 1e-15, 0) {
			t.Errorf("cell %d = %+v, want %+v", i, g, w)
		}
		wlo, whi := Wilson(w.Hits, w.Splits, 0.95)
		if !near(g.Lo, wlo, 0, 0) || !near(g.Hi, whi, 0, 0) || g.Conf != 0.95 {
			t.Errorf("cell %d interval [%v, %v] at %v, want Wilson [%v, %v]", i, g.Lo, g.Hi, g.Conf, wlo, whi)
		}
	}
	// Wilson at 0 of 2 and 1 of 1: the bound at the observed edge is exact.
	if got[0].Lo != 0 || got[1].Hi != 1 || !(got[0].Hi > 0 && got[0].Hi < 1) {
		t.Errorf("edge intervals [%v, %v] and [%v, %v]", got[0].Lo, got[0].Hi, got[1].Lo, got[1].Hi)
	}
}

// Wilson's interval is the set of p whose score test accepts: at each
// bound, |p̂ − p| = z·√(p(1−p)/n). Checked at a non-edge case.
func TestWilsonScoreEquation(t *testing.T) {
	const hits, n, z = 13, 40, 1.959963984540054
	lo, hi := Wilson(hits, n, 0.95)
	ph := float64(hits) / n
	for _, p := range []float64{lo, hi} {
		if lhs, rhs := math.Abs(ph-p), z*math.Sqrt(p*(1-p)/n); !near(lhs, rhs, 1e-12, 0) {
			t.Errorf("bound %v: |p̂ − p| = %v, z·se = %v", p, lhs, rhs)
		}
	}
	for _, bad := range [][3]float64{{1, 0, 0.95}, {-1, 5, 0.95}, {6, 5, 0.95}, {1, 5, 1}} {
		if lo, hi := Wilson(int(bad[0]), int(bad[1]), bad[2]); !math.IsNaN(lo) || !math.IsNaN(hi) {
			t.Errorf("Wilson%v = [%v, %v], want NaN", bad, lo, hi)
		}
	}
}

func TestSelectionFrequencyErrors(t *testing.T) {
	if _, err := SelectionFrequency(nil, "X1", 1.5); !errors.Is(err, ErrConfLevel) {
		t.Errorf("conf 1.5: err = %v", err)
	}
	if _, err := SelectionFrequency([]Choice{{Rate: math.NaN()}}, "X1", 0.95); !errors.Is(err, ErrNonFinite) {
		t.Errorf("NaN rate: err = %v", err)
	}
	if got, err := SelectionFrequency(nil, "X1", 0.95); err != nil || len(got) != 0 {
		t.Errorf("no choices: %v, %v", got, err)
	}
}
