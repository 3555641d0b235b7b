package linear

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/misslab/misslab/internal/learn/learnerr"
)

// classData draws n rows of p N(0, 1) features and classes from a
// softmax model with weights beta[c][j] (intercept first; class 0 has
// no row in beta and linear predictor 0).
func classData(seed uint64, n, p int, beta [][]float64) (*mat.Dense, []float64) {
	rng := rand.New(rand.NewPCG(seed, 7))
	X := mat.NewDense(n, p, nil)
	y := make([]float64, n)
	eta := make([]float64, len(beta)+1)
	for i := range n {
		for j := range p {
			X.Set(i, j, rng.NormFloat64())
		}
		total := 1.0
		for c, b := range beta {
			eta[c+1] = b[0]
			for j := range p {
				eta[c+1] += b[j+1] * X.At(i, j)
			}
			total += math.Exp(eta[c+1])
		}
		u, acc := rng.Float64()*total, 1.0
		for c := 1; c < len(eta) && u >= acc; c++ {
			acc += math.Exp(eta[c])
			y[i] = float64(c)
		}
	}
	return X, y
}

func fitLogistic(t *testing.T, l Logistic, X *mat.Dense, y []float64, k int) *ClassModel {
	t.Helper()
	m, err := l.FitClass(context.Background(), X, y, k, nil)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func proba(t *testing.T, m *ClassModel, X *mat.Dense) *mat.Dense {
	t.Helper()
	P, err := m.PredictProba(context.Background(), X)
	if err != nil {
		t.Fatal(err)
	}
	return P
}

// checkProba fails unless every probability is in [0, 1], not NaN, and
// every row sums to 1 within a few ulps.
func checkProba(t *testing.T, P *mat.Dense) {
	t.Helper()
	n, _ := P.Dims()
	for i := range n {
		sum := 0.0
		for _, v := range P.RawRowView(i) {
			if !(v >= 0 && v <= 1) {
				t.Fatalf("row %d: probability %v", i, v)
			}
			sum += v
		}
		if math.Abs(sum-1) > 4*dblEps {
			t.Fatalf("row %d sums to 1%+.3g", i, sum-1)
		}
	}
}

// TestScoreEquations checks the first-order conditions of the
// maximum-likelihood fit on data generated from the model: for k = 2
// glm's IRLS converges to Σ_i (y_i − μ_i)·(1, x_i) = 0; for k = 3 the
// BFGS of multinom stops near it (reltol 1e−8), and tightening RelTol
// and raising MultiMaxIt brings the score to 0.
func TestScoreEquations(t *testing.T) {
	cases := []struct {
		name string
		l    Logistic
		beta [][]float64
		tol  float64
	}{
		{"binomial", Logistic{}, [][]float64{{0.3, 1, -2, 0.5}}, 1e-9},
		{"multinom defaults", Logistic{}, [][]float64{{0.3, 1, -2, 0.5}, {-0.5, 0, 1, 1}}, 1e-2},
		{"multinom tight", Logistic{RelTol: 1e-300, AbsTol: 1e-300, MultiMaxIt: 2000}, [][]float64{{0.3, 1, -2, 0.5}, {-0.5, 0, 1, 1}}, 1e-8},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			k := len(c.beta) + 1
			X, y := classData(11, 400, 3, c.beta)
			m := fitLogistic(t, c.l, X, y, k)
			P := proba(t, m, X)
			checkProba(t, P)
			for cl := 1; cl < k; cl++ {
				for j := range 4 {
					s := 0.0
					for i := range 400 {
						x := 1.0
						if j > 0 {
							x = X.At(i, j-1)
						}
						e := -P.At(i, cl)
						if y[i] == float64(cl) {
							e++
						}
						s += e * x
					}
					if math.Abs(s) > c.tol*400 {
						t.Errorf("class %d column %d: score %.3g", cl, j, s)
					}
				}
			}
		})
	}
}

// TestSeparation: perfectly separated classes. As glm(y ~ x, binomial)
// in R 4.2.2 on these rows, the fit stops at iteration 25 (its deviance
// change just meets the rule) with slope 23.6316041921744 and flags
// fitted probabilities numerically 0 or 1; far from the boundary the
// probabilities are R's clamped values ε/(1+ε) and 1/(1+ε), never 0, 1
// or NaN. The intercept is 0 by symmetry: R's 1.43e-7 is rounding noise
// that each iteration multiplies by about e (the IRLS weights shrink
// like e^−|η|), and R's own value moves by 1e-9 when it runs on the
// reference BLAS instead of OpenBLAS, so only its size is checked.
// multinom on separated classes returns finite probabilities summing
// to 1.
func TestSeparation(t *testing.T) {
	X := mat.NewDense(8, 1, []float64{-4, -3, -2, -1, 1, 2, 3, 4})
	y := []float64{0, 0, 0, 0, 1, 1, 1, 1}
	m := fitLogistic(t, Logistic{}, X, y, 2)
	if !m.Converged() || !m.Extreme() || m.Iterations() != 25 {
		t.Errorf("converged %v, extreme %v, %d iterations; glm: true, true, 25", m.Converged(), m.Extreme(), m.Iterations())
	}
	if b := m.coef[1]; math.Abs(b-23.6316041921744) > 1e-8*23.6316041921744 || math.Abs(m.coef[0]) > 1e-6 {
		t.Errorf("coefficients %.16g, glm 1.43e-7 (noise), 23.6316041921744", m.coef)
	}
	P := proba(t, m, mat.NewDense(3, 1, []float64{-100, 0, 100}))
	checkProba(t, P)
	lo, hi := dblEps/(1+dblEps), 1/(1+dblEps)
	if P.At(0, 0) != hi || P.At(0, 1) != lo || P.At(2, 0) != lo || P.At(2, 1) != hi {
		t.Errorf("far rows %v, %v; want clamped [%v %v]", P.RawRowView(0), P.RawRowView(2), hi, lo)
	}
	y3 := []float64{0, 0, 1, 1, 1, 1, 2, 2}
	m3 := fitLogistic(t, Logistic{}, X, y3, 3)
	checkProba(t, proba(t, m3, mat.NewDense(4, 1, []float64{-1e6, -1.5, 0, 1e6})))
}

// TestPresentClasses: classes absent from the training rows get
// probability 0; with one class present it gets probability 1, with two
// the fit is glm's on those two.
func TestPresentClasses(t *testing.T) {
	X, yb := classData(5, 200, 2, [][]float64{{0, 1, -1}})
	Q := mat.NewDense(3, 2, []float64{0, 0, 1, -1, -2, 0.5})
	bin := proba(t, fitLogistic(t, Logistic{}, X, yb, 2), Q)
	y := make([]float64, len(yb))
	for i, v := range yb {
		y[i] = 1 + 2*v // classes 1 and 3 of 4
	}
	P := proba(t, fitLogistic(t, Logistic{}, X, y, 4), Q)
	checkProba(t, P)
	for i := range 3 {
		if P.At(i, 0) != 0 || P.At(i, 2) != 0 || P.At(i, 1) != bin.At(i, 0) || P.At(i, 3) != bin.At(i, 1) {
			t.Errorf("row %d: %v, want [0 %v 0 %v]", i, P.RawRowView(i), bin.At(i, 0), bin.At(i, 1))
		}
	}
	one := proba(t, fitLogistic(t, Logistic{}, X, make([]float64, 200), 3), Q)
	for i := range 3 {
		if one.At(i, 0) != 1 || one.At(i, 1) != 0 || one.At(i, 2) != 0 {
			t.Errorf("single class row %d: %v", i, one.RawRowView(i))
		}
	}
}

// TestInfiniteOutputs: softmax outputs that overflow to ±∞ give their
// classes the whole probability instead of NaN; NaN outputs are errors.
func TestInfiniteOutputs(t *testing.T) {
	m := &ClassModel{k: 3, p: 1, kind: kindSoftmax, present: []int{0, 1, 2},
		weights: []float64{0, 0, 0, 0, 0, 1e300, 0, 0, -1e300}}
	P := proba(t, m, mat.NewDense(2, 1, []float64{1e10, -1e10}))
	checkProba(t, P)
	if P.At(0, 1) != 1 || P.At(1, 2) != 1 {
		t.Errorf("probabilities %v %v, want class 1 then class 2", P.RawRowView(0), P.RawRowView(1))
	}
	nan := &ClassModel{k: 3, p: 2, kind: kindSoftmax, present: []int{0, 1, 2},
		weights: []float64{0, 0, 0, 0, 0, 0, 1e300, -1e300, 0, 0, 0, 0}} // ∞ − ∞ in class 1's output
	if _, err := nan.PredictProba(context.Background(), mat.NewDense(1, 2, []float64{1e10, 1e10})); !errors.Is(err, learnerr.ErrNumerical) {
		t.Errorf("NaN output: %v, want learnerr.ErrNumerical", err)
	}
}

// TestPivotQR: an exactly collinear column and a zero column are pivoted
// out with coefficient 0, and the rest solve the least-squares problem.
func TestPivotQR(t *testing.T) {
	const n = 30
	rng := rand.New(rand.NewPCG(2, 2))
	cols := make([][]float64, 5) // 1, x1, x1 + x2, x2, 0
	for j := range cols {
		cols[j] = make([]float64, n)
	}
	y := make([]float64, n)
	for i := range n {
		x1, x2 := rng.NormFloat64(), rng.NormFloat64()
		cols[0][i], cols[1][i], cols[2][i], cols[3][i] = 1, x1, x1+x2, x2
		y[i] = 1 + 2*x1 - x2 + 0.1*rng.NormFloat64()
	}
	q := newPivotQR(n, 5)
	for j, c := range cols {
		copy(q.a[j*n:], c)
	}
	q.factor(1e-7)
	b, ok := q.solve(append([]float64(nil), y...))
	if !ok || q.rank != 3 || b[3] != 0 || b[4] != 0 {
		t.Fatalf("rank %d, coefs %v (ok %v); want rank 3 with x2 and the zero column left out", q.rank, b, ok)
	}
	// Normal equations on the kept columns 1, x1, x1 + x2.
	Z := mat.NewDense(n, 3, nil)
	for i := range n {
		Z.Set(i, 0, 1)
		Z.Set(i, 1, cols[1][i])
		Z.Set(i, 2, cols[2][i])
	}
	var want mat.VecDense
	if err := want.SolveVec(Z, mat.NewVecDense(n, y)); err != nil {
		t.Fatal(err)
	}
	for j := range 3 {
		if math.Abs(b[j]-want.AtVec(j)) > 1e-12 {
			t.Errorf("coef %d = %v, least squares %v", j, b[j], want.AtVec(j))
		}
	}
}

func TestLogisticErrors(t *testing.T) {
	X, y := classData(3, 20, 2, [][]float64{{0, 1, 1}})
	nan := mat.DenseCopyOf(X)
	nan.Set(1, 1, math.NaN())
	cases := []struct {
		name string
		l    Logistic
		X    *mat.Dense
		y    []float64
		k    int
		want error
	}{
		{"negative epsilon", Logistic{Epsilon: -1}, X, y, 2, learnerr.ErrSetting},
		{"NaN reltol", Logistic{RelTol: math.NaN()}, X, y, 2, learnerr.ErrSetting},
		{"negative decay", Logistic{Decay: -0.1}, X, y, 3, learnerr.ErrSetting},
		{"negative maxit", Logistic{MaxIter: -1}, X, y, 2, learnerr.ErrSetting},
		{"one class", Logistic{}, X, y, 1, learnerr.ErrInput},
		{"code ≥ k", Logistic{}, X, append(y[:19:19], 2), 2, learnerr.ErrInput},
		{"fractional code", Logistic{}, X, append(y[:19:19], 0.5), 2, learnerr.ErrInput},
		{"NaN in X", Logistic{}, nan, y, 2, learnerr.ErrInput},
		{"short y", Logistic{}, X, y[:19], 2, learnerr.ErrInput},
		{"nil X", Logistic{}, nil, y, 2, learnerr.ErrInput},
	}
	for _, c := range cases {
		if _, err := c.l.FitClass(context.Background(), c.X, c.y, c.k, nil); !errors.Is(err, c.want) {
			t.Errorf("%s: %v, want %v", c.name, err, c.want)
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	for _, k := range []int{2, 3} {
		if _, err := (Logistic{}).FitClass(ctx, X, y, k, nil); !errors.Is(err, context.Canceled) {
			t.Errorf("cancelled fit (k = %d): %v", k, err)
		}
	}
	m := fitLogistic(t, Logistic{}, X, y, 2)
	for _, Q := range []*mat.Dense{nan, mat.NewDense(2, 3, nil), nil} {
		if _, err := m.PredictProba(context.Background(), Q); !errors.Is(err, learnerr.ErrInput) {
			t.Errorf("PredictProba on bad X: %v", err)
		}
	}
	if m.Classes() != 2 || !m.Converged() || m.Extreme() || !(m.Value() > 0) {
		t.Errorf("Classes %d Converged %v Extreme %v Value %v", m.Classes(), m.Converged(), m.Extreme(), m.Value())
	}
}
