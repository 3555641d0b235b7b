package ctree

import (
	"math"
	"testing"
)

// TestBreakTies: criteria tied at the maximum (p-values that underflow)
// are separated by rank(log statistic)/(1000·Σ(j + 2)), partykit's
// model-frame indices (response first), so the larger statistic wins;
// the same bump appears in the "strong" golden fixture (0.0004, 0.0002).
func TestBreakTies(t *testing.T) {
	tests := []VarTest{
		{Feature: 0, Tested: true, Statistic: 900, Criterion: 0},
		{Feature: 1, Tested: true, Statistic: 800, Criterion: 0},
		{Feature: 2, Tested: true, Statistic: 5, Criterion: -0.3},
		{Feature: 3, Criterion: math.Inf(-1)},
	}
	breakTies(tests)
	want := []float64{2.0 / 5000, 1.0 / 5000, -0.3, math.Inf(-1)}
	for i, w := range want {
		if tests[i].Criterion != w {
			t.Errorf("x%d: criterion %v, want %v", i+1, tests[i].Criterion, w)
		}
	}
	if got := candidates(tests, math.Inf(-1), 2); len(got) != 2 || got[0] != 0 || got[1] != 1 {
		t.Errorf("candidates %v, want [0 1]", got)
	}
}

// TestCandidates: equal criteria rank the higher column first (R's
// rev(order(crit))); only criteria above log(mincriterion) qualify; at
// most SplitTry and at most the number of finite criteria are returned.
func TestCandidates(t *testing.T) {
	inf := math.Inf(-1)
	mk := func(c ...float64) []VarTest {
		out := make([]VarTest, len(c))
		for i := range c {
			out[i] = VarTest{Feature: i, Tested: !math.IsInf(c[i], -1), Criterion: c[i]}
		}
		return out
	}
	cases := []struct {
		name   string
		tests  []VarTest
		logMin float64
		try    int
		want   []int
	}{
		{"order", mk(-1, -0.5, -2), inf, 2, []int{1, 0}},
		{"equal: higher column first", mk(-1, -0.5, -0.5), inf, 3, []int{2, 1, 0}},
		{"mincriterion 0.95", mk(-1, -0.01, -0.06), math.Log(0.95), 2, []int{1}},
		{"nothing significant", mk(-1, -0.2), math.Log(0.95), 2, []int{}},
		{"untested never", mk(inf, -3, inf), inf, 2, []int{1}},
	}
	for _, tc := range cases {
		got := candidates(tc.tests, tc.logMin, tc.try)
		if len(got) != len(tc.want) {
			t.Errorf("%s: %v, want %v", tc.name, got, tc.want)
			continue
		}
		for i := range got {
			if got[i] != tc.want[i] {
				t.Errorf("%s: %v, want %v", tc.name, got, tc.want)
			}
		}
	}
}

// TestSurrogateTieOrder: partykit bumps tied surrogate criteria by
// order(statistic) (not rank): with statistics (3, 1, 2) on x1..x3 the
// bumps are (2, 3, 1)/(1000·9), so x2, the weakest, is picked first. This
// is partykit's behaviour, reproduced on purpose.
func TestSurrogateTieOrder(t *testing.T) {
	tests := []VarTest{
		{Feature: 0, Tested: true, Statistic: 3, Criterion: -1e-20},
		{Feature: 1, Tested: true, Statistic: 1, Criterion: -2e-20},
		{Feature: 2, Tested: true, Statistic: 2, Criterion: -3e-20},
		{Feature: 3},
	}
	crit := surrogateCriteria(tests, 3)
	want := []float64{-1e-20 + 2.0/9000, -2e-20 + 3.0/9000, -3e-20 + 1.0/9000, math.Inf(-1)}
	for i := range want {
		if !relClose(crit[i], want[i], 1e-12) {
			t.Errorf("x%d: %v, want %v", i+1, crit[i], want[i])
		}
	}
	if j := lastMax(crit); j != 1 {
		t.Errorf("first surrogate x%d, want x2", j+1)
	}
}

// TestAdjust: Bonferroni multiplies log(1 − p) by the number of tested
// variables, i.e. p_adj = 1 − (1 − p)^k; Univariate leaves p alone.
func TestAdjust(t *testing.T) {
	mk := func() []VarTest {
		return []VarTest{
			{Tested: true, PValue: 0.01, Criterion: math.Log1p(-0.01)},
			{Tested: true, PValue: 0.5, Criterion: math.Log1p(-0.5)},
			{Criterion: math.Inf(-1)},
		}
	}
	b := mk()
	if k := adjust(b, Bonferroni); k != 2 {
		t.Fatalf("k = %d, want 2", k)
	}
	if want := 1 - 0.99*0.99; !relClose(b[0].AdjPValue, want, 1e-14) {
		t.Errorf("Bonferroni p %v, want %v", b[0].AdjPValue, want)
	}
	if !relClose(b[1].AdjPValue, 0.75, 1e-14) || !math.IsInf(b[2].Criterion, -1) {
		t.Errorf("Bonferroni %v, %v", b[1].AdjPValue, b[2].Criterion)
	}
	u := mk()
	adjust(u, Univariate)
	if !relClose(u[0].AdjPValue, 0.01, 1e-14) || !relClose(u[1].AdjPValue, 0.5, 1e-14) {
		t.Errorf("Univariate %v, %v", u[0].AdjPValue, u[1].AdjPValue)
	}
}
