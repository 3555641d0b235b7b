package plan

import (
	"maps"
	"math"
	"testing"

	"github.com/misslab/misslab/internal/grid"
	"github.com/misslab/misslab/internal/learn"
)

// TestPowerLawAt checks the piecewise law against values worked by hand:
// the first exponent up to the first bend, then each bend's exponent
// from the seconds the curve reached there.
func TestPowerLawAt(t *testing.T) {
	bent := PowerLaw{Seconds: 2, Exponent: 1, Bends: []Bend{{Rows: 10000, Exponent: 2}, {Rows: 100000, Exponent: 0.5}}}
	cases := []struct {
		name string
		law  PowerLaw
		n    int
		want float64
	}{
		{"flat", PowerLaw{Seconds: 3, Exponent: 0}, 50000, 3},
		{"linear below 1000", PowerLaw{Seconds: 2, Exponent: 1}, 300, 0.6},
		{"quadratic", PowerLaw{Seconds: 2, Exponent: 2}, 10000, 200},
		{"bent below 1000", bent, 500, 1},
		{"bent at 1000", bent, 1000, 2},
		{"bent at its first bend", bent, 10000, 20},
		{"bent past its first bend", bent, 30000, 20 * 9},
		{"bent at its second bend", bent, 100000, 2000},
		{"bent past its second bend", bent, 400000, 4000},
	}
	for _, c := range cases {
		if got := c.law.At(c.n); math.Abs(got-c.want) > 1e-9*c.want {
			t.Errorf("%s: At(%d) = %g, want %g", c.name, c.n, got, c.want)
		}
	}
}

// TestDefaultCostModelBends checks that every default law, learners' and
// strategies', is continuous and rising, with its bends above 1000 rows
// in ascending order.
func TestDefaultCostModelBends(t *testing.T) {
	c := DefaultCostModel()
	laws := maps.Clone(c.Learners)
	for s, law := range c.Strategies {
		laws["strategy "+s] = law
	}
	for name, law := range laws {
		prev, e := 1000, law.Exponent
		for _, b := range law.Bends {
			if b.Rows <= prev {
				t.Errorf("%s: bend at %d rows after %d", name, b.Rows, prev)
			}
			// One row either side, the growth of each side's exponent.
			r := float64(b.Rows)
			below, above := law.At(b.Rows-1), law.At(b.Rows+1)
			want := math.Pow(r/(r-1), e) * math.Pow((r+1)/r, b.Exponent)
			if math.Abs(above/below/want-1) > 1e-9 {
				t.Errorf("%s: jumps at its bend of %d rows: %g → %g", name, b.Rows, below, above)
			}
			prev, e = b.Rows, b.Exponent
		}
		if law.Exponent > 0 && !(law.At(100000) > law.At(1000)) {
			t.Errorf("%s: not rising: %g at 10⁵ rows, %g at 10³", name, law.At(100000), law.At(1000))
		}
	}
}

// TestImputerLaws: the strategies' laws give back what impute's
// BenchmarkImputeCost measured (within 5%).
func TestImputerLaws(t *testing.T) {
	c := DefaultCostModel()
	for _, m := range []struct {
		strategy string
		n        int
		seconds  float64
	}{
		{learn.Iterative, 1000, 0.00384}, {learn.Iterative, 3000, 0.0101}, {learn.Iterative, 10000, 0.0317},
		{learn.KNNImpute, 1000, 0.0183}, {learn.KNNImpute, 3000, 0.106}, {learn.KNNImpute, 10000, 0.995},
	} {
		if got := c.Strategies[m.strategy].At(m.n); math.Abs(got/m.seconds-1) > 0.05 {
			t.Errorf("%s at n = %d: %g s, measured %g s", m.strategy, m.n, got, m.seconds)
		}
	}
}

// TestClassificationCost: a classifier's fit costs its regression fit
// times the family's factor for its number of classes, worked by hand.
func TestClassificationCost(t *testing.T) {
	c := CostModel{Learners: map[string]PowerLaw{"tree": {Seconds: 2, Exponent: 1}, "boost": {Seconds: 1, Exponent: 1}},
		Classify: map[string]ClassCost{"boost": {Binary: 0.5, Multi: 3, Growth: 1}}}
	tree, boost := grid.MustPipeline("tree/mia", nil), grid.MustPipeline("boost/mia", nil)
	for _, tc := range []struct {
		p       grid.Pipeline
		classes int
		want    float64
	}{
		{boost, 0, 1},
		{boost, 2, 0.5},
		{boost, 3, 3},
		{boost, 6, 6}, // 3·(6/3)¹
		{tree, 2, 2},  // no factor: as regression
		{tree, 10, 2},
	} {
		got := c.FitSeconds(tc.p, Shape{N: 1000, Classes: tc.classes})
		if math.Abs(got-tc.want) > 1e-12 {
			t.Errorf("%s with %d classes: %g s, want %g", tc.p.Name(), tc.classes, got, tc.want)
		}
	}
	for fam, cc := range DefaultClassCosts() {
		if !(cc.Binary > 0 && cc.Multi > 0 && cc.Growth >= 0) {
			t.Errorf("%s: %+v", fam, cc)
		}
	}
}
