package learn

import (
	"math"
	"slices"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/misslab/misslab/internal/learn/impute"
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
		// Each test row's only donors: one at a defined distance and one at
		// none (no shared column); k = 5 takes both, as scikit-learn.
		{"svm/knn", []float64{2, 100, 50, 6}, true},
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

// TestScikitImputers: every learner that takes imputers takes iterative
// and knn, with or without +mask and with their settings; the learner
// sees exactly what the impute package computes, and Impute reports it.
func TestScikitImputers(t *testing.T) {
	r := newRNG()
	X, Xte := mat.NewDense(60, 3, nil), mat.NewDense(20, 3, nil)
	y := make([]float64, 60)
	for _, M := range []*mat.Dense{X, Xte} {
		n, _ := M.Dims()
		for i := range n {
			a := r.NormFloat64()
			M.SetRow(i, []float64{a, a + 0.5*r.NormFloat64(), r.NormFloat64()})
			if i < len(y) {
				y[i] = a
			}
			M.Set(i, i%3, nan)
		}
	}
	imps := map[string]impute.Imputer{
		Iterative: impute.Iterative{MaxIter: 3, Tol: 1e-4},
		KNNImpute: impute.KNN{K: 2},
	}
	sets := map[string]Settings{
		Iterative: {"iterative_maxiter": 3, "iterative_tol": 1e-4},
		KNNImpute: {"knn_k": 2},
	}
	for _, l := range Implemented() {
		for _, s := range []string{Iterative, KNNImpute} {
			if !slices.Contains(Strategies(l), s) {
				t.Errorf("%s does not take %s", l, s)
				continue
			}
			name := l + "/" + s + MaskSuffix
			f, _ := fitPredict(t, name, sets[s], X, y, Xte)
			tr, err := imps[s].Fit(ctx, X)
			if err != nil {
				t.Fatal(err)
			}
			want, _ := tr.Transform(Xte)
			got, ok, err := f.Impute(Xte)
			if err != nil || !ok || !mat.Equal(got, want) {
				t.Errorf("%s: Impute = %v, %v; want the impute package's values", name, ok, err)
			}
			if math.IsNaN(mat.Sum(got)) {
				t.Errorf("%s: NaN left", name)
			}
		}
	}
}
