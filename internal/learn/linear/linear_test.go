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

var ctx = context.Background()

// design draws n rows of p independent N(0, 1) features and
// y = b0 + Xβ + noise·N(0, 1).
func design(seed uint64, n int, b0 float64, beta []float64, noise float64) (*mat.Dense, []float64) {
	rng := rand.New(rand.NewPCG(seed, 1))
	X := mat.NewDense(n, len(beta), nil)
	y := make([]float64, n)
	for i := range n {
		y[i] = b0 + noise*rng.NormFloat64()
		for j, b := range beta {
			x := rng.NormFloat64()
			X.Set(i, j, x)
			y[i] += b * x
		}
	}
	return X, y
}

func fit(t *testing.T, lambda float64, X *mat.Dense, y []float64) *Model {
	t.Helper()
	m, err := Ridge{Lambda: lambda}.Fit(ctx, X, y, rand.New(rand.NewPCG(0, 0)))
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func TestNoiselessRecovery(t *testing.T) {
	beta := []float64{1, 2, -1, 3, -0.5}
	X, y := design(1, 40, 0.7, beta, 0)
	for _, c := range []struct {
		lambda, tol float64
	}{{0, 1e-12}, {DefaultLambda, 1e-6}} {
		m := fit(t, c.lambda, X, y)
		if math.Abs(m.Intercept-0.7) > c.tol {
			t.Errorf("lambda %g: intercept %v, want 0.7", c.lambda, m.Intercept)
		}
		for j, b := range beta {
			if math.Abs(m.Coef[j]-b) > c.tol {
				t.Errorf("lambda %g: coef[%d] = %v, want %v", c.lambda, j, m.Coef[j], b)
			}
		}
	}
}

// TestNormalEquations compares the unpenalised fit with θ = (ZᵀZ)⁻¹Zᵀy,
// Z = [1 | X], computed here by an explicit inverse.
func TestNormalEquations(t *testing.T) {
	X, y := design(2, 60, -1, []float64{0.3, -2, 1.5}, 0.5)
	n, p := X.Dims()
	Z := mat.NewDense(n, p+1, nil)
	for i := range n {
		Z.Set(i, 0, 1)
		for j := range p {
			Z.Set(i, j+1, X.At(i, j))
		}
	}
	var ztz, inv mat.Dense
	ztz.Mul(Z.T(), Z)
	if err := inv.Inverse(&ztz); err != nil {
		t.Fatal(err)
	}
	var zty, theta mat.VecDense
	zty.MulVec(Z.T(), mat.NewVecDense(n, y))
	theta.MulVec(&inv, &zty)
	m := fit(t, 0, X, y)
	got := append([]float64{m.Intercept}, m.Coef...)
	for k, g := range got {
		if math.Abs(g-theta.AtVec(k)) > 1e-10 {
			t.Errorf("θ[%d] = %.12g, normal equations %.12g", k, g, theta.AtVec(k))
		}
	}
}

// TestRidgeStationarity checks the first-order conditions of the
// documented objective at a visible λ: the residuals r have mean 0 and
// Xcᵀr = n·λ·s_j²·β_j for every column.
func TestRidgeStationarity(t *testing.T) {
	X, y := design(3, 80, 2, []float64{1, -1, 0.5, 4}, 1)
	// Give the columns very different scales.
	for i := range 80 {
		X.Set(i, 1, 1000*X.At(i, 1)+5)
		X.Set(i, 3, 1e-3*X.At(i, 3))
	}
	const lambda = 0.3
	m := fit(t, lambda, X, y)
	n, p := X.Dims()
	pred, err := m.Predict(ctx, X)
	if err != nil {
		t.Fatal(err)
	}
	rbar := 0.0
	for i := range n {
		rbar += (y[i] - pred[i]) / float64(n)
	}
	if math.Abs(rbar) > 1e-12 {
		t.Errorf("mean residual %g", rbar)
	}
	for j := range p {
		mean, v, g := 0.0, 0.0, 0.0
		for i := range n {
			mean += X.At(i, j) / float64(n)
		}
		for i := range n {
			c := X.At(i, j) - mean
			v += c * c / float64(n)
			g += c * (y[i] - pred[i])
		}
		want := float64(n) * lambda * v * m.Coef[j]
		if math.Abs(g-want) > 1e-8*math.Max(1, math.Abs(want)) {
			t.Errorf("column %d: Xcᵀr = %.10g, n·λ·s²·β = %.10g", j, g, want)
		}
	}
}

// TestScaleInvariance: multiplying a column by c divides its coefficient
// by c and leaves the predictions unchanged, at any λ.
func TestScaleInvariance(t *testing.T) {
	X, y := design(4, 50, 0, []float64{1, 2, 3}, 0.3)
	m := fit(t, 0.1, X, y)
	Y := mat.DenseCopyOf(X)
	for i := range 50 {
		Y.Set(i, 2, 1e6*X.At(i, 2))
	}
	s := fit(t, 0.1, Y, y)
	if math.Abs(s.Coef[2]*1e6-m.Coef[2]) > 1e-9 || math.Abs(s.Coef[0]-m.Coef[0]) > 1e-9 {
		t.Errorf("coefs %v vs %v", s.Coef, m.Coef)
	}
}

func TestDegenerateColumns(t *testing.T) {
	X, y := design(5, 30, 1, []float64{2, 0}, 0.1)
	for i := range 30 {
		X.Set(i, 1, X.At(i, 0)) // exact duplicate of column 0
	}
	Z := mat.NewDense(30, 3, nil)
	for i := range 30 {
		Z.Set(i, 0, X.At(i, 0))
		Z.Set(i, 1, X.At(i, 1))
		Z.Set(i, 2, 0.1) // constant column
	}
	m := fit(t, DefaultLambda, Z, y)
	// The penalty splits the effect of the duplicates equally.
	if math.Abs(m.Coef[0]-m.Coef[1]) > 1e-6 || math.Abs(m.Coef[0]+m.Coef[1]-2) > 0.05 {
		t.Errorf("duplicate columns coefs %v", m.Coef)
	}
	if m.Coef[2] != 0 {
		t.Errorf("constant column coef %v, want 0", m.Coef[2])
	}
	if _, err := (Ridge{}).Fit(ctx, Z, y, rand.New(rand.NewPCG(0, 0))); !errors.Is(err, learnerr.ErrNumerical) {
		t.Errorf("OLS on duplicate columns: %v, want learnerr.ErrNumerical", err)
	}
}

func TestErrors(t *testing.T) {
	X, y := design(6, 5, 0, []float64{1, 1}, 0)
	bad := mat.DenseCopyOf(X)
	bad.Set(2, 1, math.NaN())
	inf := mat.DenseCopyOf(X)
	inf.Set(0, 0, math.Inf(-1))
	yNaN := append([]float64(nil), y...)
	yNaN[3] = math.NaN()
	cases := []struct {
		name string
		r    Ridge
		X    *mat.Dense
		y    []float64
		want error
	}{
		{"NaN in X", Ridge{}, bad, y, learnerr.ErrInput},
		{"Inf in X", Ridge{}, inf, y, learnerr.ErrInput},
		{"NaN in y", Ridge{}, X, yNaN, learnerr.ErrInput},
		{"short y", Ridge{}, X, y[:4], learnerr.ErrInput},
		{"nil X", Ridge{}, nil, nil, learnerr.ErrInput},
	}
	for _, c := range cases {
		if _, err := c.r.Fit(ctx, c.X, c.y, rand.New(rand.NewPCG(0, 0))); !errors.Is(err, c.want) {
			t.Errorf("%s: %v, want %v", c.name, err, c.want)
		}
	}
	if _, err := (Ridge{Lambda: -1}).Fit(ctx, X, y, rand.New(rand.NewPCG(0, 0))); !errors.Is(err, learnerr.ErrSetting) {
		t.Errorf("negative lambda: %v, want learnerr.ErrSetting", err)
	}
	for _, lambda := range []float64{-1, math.NaN(), math.Inf(1)} {
		if _, err := New(lambda); !errors.Is(err, learnerr.ErrSetting) {
			t.Errorf("New(%v): %v, want learnerr.ErrSetting", lambda, err)
		}
	}
	if r, err := New(0.5); err != nil || r.Lambda != 0.5 {
		t.Errorf("New(0.5) = %v, %v", r, err)
	}
	m := fit(t, 0, X, y)
	if _, err := m.Predict(ctx, bad); !errors.Is(err, learnerr.ErrInput) {
		t.Errorf("Predict NaN: %v", err)
	}
	if _, err := m.Predict(ctx, mat.NewDense(1, 3, nil)); !errors.Is(err, learnerr.ErrInput) {
		t.Errorf("Predict 3 columns: %v", err)
	}
}

func BenchmarkFit(b *testing.B) {
	X, y := design(7, 1000, 1, []float64{1, 2, -1, 3, -0.5, -1, 0.3, 1.7, 0.4, -0.3, 0, 0}, 0.1)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := (Ridge{Lambda: DefaultLambda}).Fit(ctx, X, y, rand.New(rand.NewPCG(0, 0))); err != nil {
			b.Fatal(err)
		}
	}
}
