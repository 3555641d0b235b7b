package learn

import (
	"testing"
)

// Impute returns what the imputer put in the NA cells, computed from the
// training columns only: the mean of column 0's observed training values
// (1, 3 → 2) and of column 1's (4, 8 → 6), whatever the test rows hold.
func TestImputeValues(t *testing.T) {
	Xtr := dense([]float64{1, 4}, []float64{3, nan}, []float64{nan, 8})
	y := []float64{1, 2, 3}
	Xte := dense([]float64{nan, 100}, []float64{50, nan})
	cases := []struct {
		name   string
		want   []float64 // imputed test matrix, row-major; nil: no estimate
		estim8 bool
	}{
		{"linear/mean", []float64{2, 100, 50, 6}, true},
		{"linear/mean+mask", []float64{2, 100, 50, 6}, true},
		{"tree/median", []float64{2, 100, 50, 6}, true},
		{"linear/constant", []float64{0, 100, 50, 0}, true},
		{"tree/oor", nil, false},
		{"tree/mia", nil, false},
		{"tree/mia-inf", nil, false},
	}
	for _, c := range cases {
		p, err := New(c.name, nil, Env{})
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if p.Spec().EstimatesValues() != c.estim8 {
			t.Errorf("%s: EstimatesValues = %v", c.name, !c.estim8)
		}
		f, err := p.Fit(ctx, Xtr, y, newRNG())
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		got, ok, err := f.Impute(Xte)
		if err != nil || ok != (c.want != nil) {
			t.Fatalf("%s: ok %v err %v", c.name, ok, err)
		}
		if c.want != nil && !sameNaN(got, dense(c.want[:2], c.want[2:])) {
			t.Errorf("%s: imputed %v, want %v", c.name, got.RawMatrix().Data, c.want)
		}
	}
	p, _ := New("linear/mean", nil, Env{})
	f, _ := p.Fit(ctx, Xtr, y, newRNG())
	if _, _, err := f.Impute(dense([]float64{1, 2, 3})); err == nil {
		t.Error("a matrix of the wrong width was imputed")
	}
}
