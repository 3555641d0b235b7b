package linear

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"

	"gonum.org/v1/gonum/mat"

	"github.com/misslab/misslab/internal/learn/learnerr"
)

// DefaultLambda is the default ridge strength: small enough that the fit
// is least squares to about eight digits on well-conditioned data, large
// enough that collinear features (an all-NA mask column, two identical
// imputed columns) still give a unique solution.
const DefaultLambda = 1e-8

// Ridge fits y ≈ b0 + Xβ by minimising
//
//	(1/n)·‖y − b0 − Xβ‖² + Lambda·Σ_j s_j² β_j²
//
// where s_j is the standard deviation (divisor n) of column j: ridge on
// standardised columns, so the penalty does not depend on the units of a
// feature (an OOR column holding 999999 is penalised like any other).
// The intercept b0 is not penalised (the fit is on centred data).
// Constant training columns get β_j = 0. The system is solved by QR of
// the standardised design augmented with √(n·Lambda)·I, which avoids
// squaring the condition number as the normal equations would.
type Ridge struct {
	// Lambda ≥ 0 is the penalty; 0 is ordinary least squares.
	Lambda float64
}

// New returns a Ridge with penalty lambda, which must be finite and ≥ 0
// (learnerr.ErrSetting otherwise).
func New(lambda float64) (Ridge, error) {
	r := Ridge{Lambda: lambda}
	return r, r.check()
}

// check validates the penalty.
func (r Ridge) check() error {
	if !(r.Lambda >= 0) || math.IsInf(r.Lambda, 0) {
		return fmt.Errorf("linear: lambda %v must be finite and ≥ 0: %w", r.Lambda, learnerr.ErrSetting)
	}
	return nil
}

// Model is a fitted linear regression.
type Model struct {
	Intercept float64
	Coef      []float64 // one per training column
}

// Fit estimates the model from complete X (n × p) and y. It never
// consumes rng (the fit is deterministic). Errors wrap learnerr.ErrInput
// (NaN or ±Inf, empty or mismatched inputs), learnerr.ErrSetting (a bad
// Lambda) or learnerr.ErrNumerical (Lambda = 0 on collinear features:
// the standardised design has condition number above 1e12), or are the
// context's error.
func (r Ridge) Fit(ctx context.Context, X *mat.Dense, y []float64, _ *rand.Rand) (*Model, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if err := r.check(); err != nil {
		return nil, err
	}
	if err := checkFit(X, y); err != nil {
		return nil, err
	}
	n, p := X.Dims()
	xbar, sd := moments(X)
	ybar := 0.0
	for _, v := range y {
		ybar += v / float64(n)
	}
	active := make([]int, 0, p)
	for j := range p {
		if sd[j] > 1e-12*math.Max(math.Abs(xbar[j]), 1e-300) {
			active = append(active, j)
		}
	}
	m := &Model{Intercept: ybar, Coef: make([]float64, p)}
	if len(active) == 0 {
		return m, nil
	}
	gamma, err := solve(X, y, xbar, sd, ybar, active, r.Lambda)
	if err != nil {
		return nil, err
	}
	for k, j := range active {
		m.Coef[j] = gamma[k] / sd[j]
		m.Intercept -= m.Coef[j] * xbar[j]
	}
	return m, nil
}

// maxCond is the largest condition number of the standardised (and
// augmented) design accepted; only reachable with Lambda near 0.
const maxCond = 1e12

// solve returns the ridge coefficients of the standardised active columns.
func solve(X *mat.Dense, y, xbar, sd []float64, ybar float64, active []int, lambda float64) ([]float64, error) {
	n, _ := X.Dims()
	q := len(active)
	A := mat.NewDense(n+q, q, nil)
	b := mat.NewDense(n+q, 1, nil)
	for i := range n {
		row := X.RawRowView(i)
		dst := A.RawRowView(i)
		for k, j := range active {
			dst[k] = (row[j] - xbar[j]) / sd[j]
		}
		b.Set(i, 0, y[i]-ybar)
	}
	for k := range q {
		A.Set(n+k, k, math.Sqrt(float64(n)*lambda))
	}
	var qr mat.QR
	qr.Factorize(A)
	if c := qr.Cond(); c > maxCond {
		return nil, fmt.Errorf("linear: condition number %.3g of the standardised design exceeds %g (use lambda > 0): %w",
			c, maxCond, learnerr.ErrNumerical)
	}
	var g mat.Dense
	if err := qr.SolveTo(&g, false, b); err != nil {
		return nil, fmt.Errorf("linear: %v (use lambda > 0): %w", err, learnerr.ErrNumerical)
	}
	return g.RawMatrix().Data[:q:q], nil
}

// moments returns the column means and standard deviations (divisor n).
func moments(X *mat.Dense) (mean, sd []float64) {
	n, p := X.Dims()
	mean, sd = make([]float64, p), make([]float64, p)
	for i := range n {
		for j, v := range X.RawRowView(i) {
			mean[j] += v / float64(n)
		}
	}
	for i := range n {
		for j, v := range X.RawRowView(i) {
			sd[j] += (v - mean[j]) * (v - mean[j]) / float64(n)
		}
	}
	for j := range sd {
		sd[j] = math.Sqrt(sd[j])
	}
	return mean, sd
}

// Predict returns b0 + Xβ for every row; X must be complete and have the
// training column count (learnerr.ErrInput otherwise).
func (m *Model) Predict(ctx context.Context, X *mat.Dense) ([]float64, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if X == nil || X.IsEmpty() {
		return nil, fmt.Errorf("linear: empty prediction matrix: %w", learnerr.ErrInput)
	}
	n, p := X.Dims()
	if p != len(m.Coef) {
		return nil, fmt.Errorf("linear: X has %d columns, the model was fitted on %d: %w", p, len(m.Coef), learnerr.ErrInput)
	}
	out := make([]float64, n)
	for i := range n {
		v := m.Intercept
		for j, x := range X.RawRowView(i) {
			if math.IsNaN(x) || math.IsInf(x, 0) {
				return nil, fmt.Errorf("linear: X[%d][%d] = %v is not finite (impute first): %w", i, j, x, learnerr.ErrInput)
			}
			v += m.Coef[j] * x
		}
		out[i] = v
	}
	return out, nil
}

func checkFit(X *mat.Dense, y []float64) error {
	if X == nil || X.IsEmpty() {
		return fmt.Errorf("linear: empty training matrix: %w", learnerr.ErrInput)
	}
	n, _ := X.Dims()
	if len(y) != n {
		return fmt.Errorf("linear: X has %d rows but y has %d values: %w", n, len(y), learnerr.ErrInput)
	}
	for i := range n {
		for j, v := range X.RawRowView(i) {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return fmt.Errorf("linear: X[%d][%d] = %v is not finite (impute first): %w", i, j, v, learnerr.ErrInput)
			}
		}
		if math.IsNaN(y[i]) || math.IsInf(y[i], 0) {
			return fmt.Errorf("linear: target y[%d] = %v is not finite: %w", i, y[i], learnerr.ErrInput)
		}
	}
	return nil
}
