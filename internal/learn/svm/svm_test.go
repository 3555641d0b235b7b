package svm_test

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/misslab/misslab/internal/learn/learnerr"
	"github.com/misslab/misslab/internal/learn/svm"
)

func fit(t *testing.T, prm svm.Params, X *mat.Dense, y []float64) *svm.Model {
	t.Helper()
	r, err := svm.New(prm)
	if err != nil {
		t.Fatal(err)
	}
	m, err := r.Fit(context.Background(), X, y, nil)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func predict(t *testing.T, m *svm.Model, X *mat.Dense) []float64 {
	t.Helper()
	got, err := m.Predict(context.Background(), X)
	if err != nil {
		t.Fatal(err)
	}
	return got
}

// randomData draws n rows of p standard normal columns and
// y = sin(2·x1) + x2 + N(0, noise²).
func randomData(seed uint64, n, p int, noise float64) (*mat.Dense, []float64) {
	r := rand.New(rand.NewPCG(seed, 99))
	X := mat.NewDense(n, p, nil)
	y := make([]float64, n)
	for i := range n {
		for j := range p {
			X.Set(i, j, r.NormFloat64())
		}
		y[i] = math.Sin(2*X.At(i, 0)) + X.At(i, 1) + noise*r.NormFloat64()
	}
	return X, y
}

// TestKKT checks the optimality conditions of the ε-SVR dual at the
// solution, in units of the scaled target: Σ(α−α*) = 0, |α−α*| ≤ C;
// rows outside the support have residual |r| ≤ ε; free support vectors
// (0 < |α−α*| < C) lie on the tube, |r| = ε; bounded ones on or outside
// it — each up to the stopping tolerance.
func TestKKT(t *testing.T) {
	X, y := randomData(1, 150, 3, 0.3)
	for _, prm := range []svm.Params{
		svm.DefaultParams(),
		{Cost: 5, Gamma: 0.7, Epsilon: 0.05, Tolerance: 1e-6, CacheMB: 40},
		{Cost: 0.2, Epsilon: 0.4, Tolerance: 1e-5, CacheMB: 40, NoShrinking: true},
	} {
		m := fit(t, prm, X, y)
		sy := sd(y)
		mean := 0.0
		for _, v := range y {
			mean += v
		}
		mean /= float64(len(y))
		sum, maxAbs := 0.0, 0.0
		coefOf := map[int]float64{}
		for s, i := range m.SupportIndices() {
			c := m.DualCoef()[s]
			coefOf[i] = c
			sum += c
			maxAbs = math.Max(maxAbs, math.Abs(c))
		}
		if math.Abs(sum) > 1e-9 || maxAbs > prm.Cost*(1+1e-12) {
			t.Errorf("%+v: Σcoef = %g, max|coef| = %g (C = %g)", prm, sum, maxAbs, prm.Cost)
		}
		pred := predict(t, m, X)
		l1 := 0.0
		for _, c := range coefOf {
			l1 += math.Abs(c)
		}
		// Solver tolerance plus the float32 kernel rounding (see
		// TestInterpolation).
		tol := prm.Tolerance + 0x1p-24*l1 + 1e-9
		for i := range y {
			r := math.Abs(y[i]-pred[i]) / sy // scaled residual
			c, isSV := coefOf[i]
			switch {
			case !isSV && r > prm.Epsilon+tol:
				t.Errorf("%+v: row %d outside the tube (|r| = %g) without support", prm, i, r)
			case isSV && math.Abs(c) < prm.Cost && math.Abs(r-prm.Epsilon) > tol:
				t.Errorf("%+v: free support vector %d off the tube: |r| = %g", prm, i, r)
			case isSV && math.Abs(c) >= prm.Cost && r < prm.Epsilon-tol:
				t.Errorf("%+v: bounded support vector %d inside the tube: |r| = %g", prm, i, r)
			}
		}
	}
}

// TestInterpolation: with ε = 0 and a large C the radial-kernel SVR
// interpolates distinct training points (its kernel matrix is positive
// definite). libsvm solves with float32 kernel values and predicts with
// float64 ones, so a fitted value may differ from its target by up to
// 2⁻²⁴·Σ|coef| (scaled units) plus the solver tolerance; γ = 4 keeps the
// kernel matrix well conditioned and the coefficients small.
func TestInterpolation(t *testing.T) {
	X, y := randomData(2, 25, 2, 0.5)
	m := fit(t, svm.Params{Cost: 1e6, Gamma: 4, Epsilon: 0, Tolerance: 1e-9, CacheMB: 1}, X, y)
	pred := predict(t, m, X)
	l1 := 0.0
	for _, c := range m.DualCoef() {
		l1 += math.Abs(c)
	}
	tol := sd(y) * (0x1p-24*l1 + 1e-8)
	for i := range y {
		if math.Abs(pred[i]-y[i]) > tol {
			t.Errorf("row %d: fitted %g, target %g (tolerance %g)", i, pred[i], y[i], tol)
		}
	}
	if m.NumSV() != len(y) {
		t.Errorf("%d support vectors, want all %d", m.NumSV(), len(y))
	}
}

// TestAffineInvariance: X and y are standardised first, so an affine
// change of units of each column and of y changes the predictions by the
// same affine map of y.
func TestAffineInvariance(t *testing.T) {
	X, y := randomData(3, 120, 3, 0.2)
	Q, _ := randomData(4, 30, 3, 0)
	base := predict(t, fit(t, svm.DefaultParams(), X, y), Q)
	a, b := []float64{3, 0.01, 250}, []float64{-7, 1e3, 0.5}
	scaleCols := func(M *mat.Dense) *mat.Dense {
		out := mat.DenseCopyOf(M)
		r, c := out.Dims()
		for i := range r {
			for j := range c {
				out.Set(i, j, a[j]*out.At(i, j)+b[j])
			}
		}
		return out
	}
	y2 := make([]float64, len(y))
	for i, v := range y {
		y2[i] = 40*v - 3
	}
	got := predict(t, fit(t, svm.DefaultParams(), scaleCols(X), y2), scaleCols(Q))
	for i := range got {
		if want := 40*base[i] - 3; math.Abs(got[i]-want) > 1e-6*40*sd(y) {
			t.Errorf("row %d: %g, want %g", i, got[i], want)
		}
	}
}

// TestDegenerate covers inputs where e1071 cannot scale.
func TestDegenerate(t *testing.T) {
	t.Run("constant y", func(t *testing.T) {
		// e1071 would divide by sd(y) = 0; here y is only centred and the
		// model, with no support vector, predicts the mean exactly.
		X, _ := randomData(5, 40, 2, 0)
		y := slices.Repeat([]float64{2.5}, 40)
		m := fit(t, svm.DefaultParams(), X, y)
		for i, v := range predict(t, m, X) {
			if v != 2.5 {
				t.Fatalf("row %d: %g, want 2.5", i, v)
			}
		}
		if m.NumSV() != 0 {
			t.Errorf("%d support vectors, want 0", m.NumSV())
		}
	})
	t.Run("all-constant X", func(t *testing.T) {
		// Nothing is scaled (e1071's rule) and every kernel value is 1, so
		// f is a constant c and the dual constraint Σ(α−α*) = 0 leaves no
		// weight: c minimises Σ max(0, |y_i − c| − ε). For y = 0, …, 99
		// and ε = 0.1 the minimisers are [49.1, 49.9] (50 targets on each
		// side); the solver stops within its tolerance of that set.
		X := mat.NewDense(100, 3, nil)
		for i := range 100 {
			X.SetRow(i, []float64{1, -4, 0.5})
		}
		y := make([]float64, 100)
		for i := range y {
			y[i] = float64(i)
		}
		m := fit(t, svm.DefaultParams(), X, y)
		Q := mat.NewDense(2, 3, []float64{1, -4, 0.5, 7, 7, 7})
		got := predict(t, m, Q)
		if m.Scaled() || got[0] != got[1] || got[0] < 49.1-1e-3 || got[0] > 49.9+1e-3 {
			t.Errorf("scaled = %v, predictions %v: want one constant in [49.1, 49.9]", m.Scaled(), got)
		}
	})
	t.Run("one row", func(t *testing.T) {
		m := fit(t, svm.DefaultParams(), mat.NewDense(1, 2, []float64{1, 2}), []float64{-3})
		for _, v := range predict(t, m, mat.NewDense(2, 2, []float64{1, 2, 5, -5})) {
			if math.Abs(v+3) > 1e-12 {
				t.Errorf("prediction %g, want −3", v)
			}
		}
	})
}

func TestErrors(t *testing.T) {
	ctx := context.Background()
	X, y := randomData(6, 10, 2, 0.1)
	withNaN := mat.DenseCopyOf(X)
	withNaN.Set(3, 1, math.NaN())
	withInf := mat.DenseCopyOf(X)
	withInf.Set(0, 0, math.Inf(1))
	badY := slices.Clone(y)
	badY[4] = math.Inf(-1)
	reg, err := svm.New(svm.DefaultParams())
	if err != nil {
		t.Fatal(err)
	}
	fitCases := []struct {
		name string
		X    *mat.Dense
		y    []float64
		want error
	}{
		{"NaN in X", withNaN, y, learnerr.ErrInput},
		{"Inf in X", withInf, y, learnerr.ErrInput},
		{"Inf in y", X, badY, learnerr.ErrInput},
		{"short y", X, y[:9], learnerr.ErrInput},
		{"nil X", nil, y, learnerr.ErrInput},
		{"empty X", &mat.Dense{}, nil, learnerr.ErrInput},
	}
	for _, c := range fitCases {
		if _, err := reg.Fit(ctx, c.X, c.y, nil); !errors.Is(err, c.want) {
			t.Errorf("fit %s: got %v, want %v", c.name, err, c.want)
		}
	}
	m, err := reg.Fit(ctx, X, y, nil)
	if err != nil {
		t.Fatal(err)
	}
	predCases := []struct {
		name string
		X    *mat.Dense
		want error
	}{
		{"three columns", mat.NewDense(1, 3, nil), learnerr.ErrInput},
		{"one column", mat.NewDense(2, 1, nil), learnerr.ErrInput},
		{"NaN", mat.NewDense(1, 2, []float64{math.NaN(), 0}), learnerr.ErrInput},
		{"Inf", mat.NewDense(1, 2, []float64{0, math.Inf(1)}), learnerr.ErrInput},
		{"nil", nil, learnerr.ErrInput},
	}
	for _, c := range predCases {
		if _, err := m.Predict(ctx, c.X); !errors.Is(err, c.want) {
			t.Errorf("predict %s: got %v, want %v", c.name, err, c.want)
		}
	}
	cancelled, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := reg.Fit(cancelled, X, y, nil); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled fit: %v", err)
	}
	if _, err := m.Predict(cancelled, X); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled predict: %v", err)
	}
	if _, err := (&svm.Regressor{}).Fit(ctx, X, y, nil); !errors.Is(err, learnerr.ErrSetting) {
		t.Errorf("zero Regressor: %v", err)
	}
}

func TestSettings(t *testing.T) {
	nan := math.NaN()
	cases := []struct {
		s    map[string]float64
		want svm.Params
		err  error
	}{
		{nil, svm.DefaultParams(), nil},
		{map[string]float64{"cost": 4, "gamma": 0.2, "epsilon": 0, "tolerance": 1e-4, "cachesize": 100},
			svm.Params{Cost: 4, Gamma: 0.2, Epsilon: 0, Tolerance: 1e-4, CacheMB: 100}, nil},
		{map[string]float64{"cost": 0}, svm.Params{}, learnerr.ErrSetting},
		{map[string]float64{"gamma": -1}, svm.Params{}, learnerr.ErrSetting},
		{map[string]float64{"epsilon": -0.1}, svm.Params{}, learnerr.ErrSetting},
		{map[string]float64{"tolerance": 0}, svm.Params{}, learnerr.ErrSetting},
		{map[string]float64{"cachesize": 0}, svm.Params{}, learnerr.ErrSetting},
		{map[string]float64{"cost": nan}, svm.Params{}, learnerr.ErrSetting},
		{map[string]float64{"cost": math.Inf(1)}, svm.Params{}, learnerr.ErrSetting},
		{map[string]float64{"kernel": 1}, svm.Params{}, learnerr.ErrSetting},
		{map[string]float64{"k": 5}, svm.Params{}, learnerr.ErrSetting},
	}
	for _, c := range cases {
		r, err := svm.FromSettings(c.s)
		if !errors.Is(err, c.err) {
			t.Errorf("%v: error %v, want %v", c.s, err, c.err)
			continue
		}
		if err == nil && r.Params() != c.want {
			t.Errorf("%v: %+v, want %+v", c.s, r.Params(), c.want)
		}
	}
}

// TestDefaultGamma: γ defaults to 1/p for the p columns given.
func TestDefaultGamma(t *testing.T) {
	X, y := randomData(7, 30, 4, 0.1)
	if g := fit(t, svm.DefaultParams(), X, y).Gamma(); g != 0.25 {
		t.Errorf("gamma = %g, want 1/4", g)
	}
}

// TestFitCopies checks that the model does not alias the caller's data
// and that Predict does not modify its input.
func TestFitCopies(t *testing.T) {
	X, y := randomData(8, 40, 2, 0.1)
	Q, _ := randomData(9, 5, 2, 0)
	m := fit(t, svm.DefaultParams(), X, y)
	before := predict(t, m, Q)
	Qcopy := mat.DenseCopyOf(Q)
	X.Scale(3, X)
	for i := range y {
		y[i] = 0
	}
	after := predict(t, m, Q)
	if !slices.Equal(before, after) {
		t.Errorf("predictions changed after the training data did: %v vs %v", before, after)
	}
	if !mat.Equal(Q, Qcopy) {
		t.Error("Predict modified its input")
	}
}

// TestStridedInput: a matrix view (row stride larger than its width)
// gives the same fit and predictions as a compact copy.
func TestStridedInput(t *testing.T) {
	X, y := randomData(10, 60, 4, 0.1)
	view := X.Slice(0, 60, 1, 3).(*mat.Dense)
	compact := mat.DenseCopyOf(view)
	a := predict(t, fit(t, svm.DefaultParams(), view, y), view)
	b := predict(t, fit(t, svm.DefaultParams(), compact, y), compact)
	if !slices.Equal(a, b) {
		t.Error("a strided view and its copy give different predictions")
	}
}
