package linear

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"

	"gonum.org/v1/gonum/mat"
)

// DefaultLambda is the default ridge strength: small enough that the fit
// is least squares to about eight digits on well-conditioned data, large
// enough that collinear features (an all-NA mask column, two identical
// imputed columns) still give a unique solution.
const DefaultLambda = 1e-8

// Sentinel errors wrapped by every error of this package.
var (
	// ErrMissing reports a NaN or ±Inf in X or y: this learner has no
	// missing-value strategy of its own and needs imputed data.
	ErrMissing = errors.New("linear: missing or non-finite value")
	// ErrShape reports an empty X, a target of the wrong length or a
	// prediction matrix with the wrong number of columns.
	ErrShape = errors.New("linear: shape mismatch")
	// ErrSingular reports an unpenalised (Lambda = 0) fit on collinear
	// features: the standardised design has condition number above 1e12.
	ErrSingular = errors.New("linear: singular design")
)

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

// Model is a fitted linear regression.
type Model struct {
	Intercept float64
	Coef      []float64 // one per training column
}

// Fit estimates the model from complete X (n × p) and y. It never
// consumes rng (the fit is deterministic); it fails with ErrMissing on
// NaN or ±Inf and ErrShape on empty or mismatched inputs.
func (r Ridge) Fit(ctx context.Context, X *mat.Dense, y []float64, _ *rand.Rand) (*Model, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if !(r.Lambda >= 0) || math.IsInf(r.Lambda, 0) {
		return nil, fmt.Errorf("linear: lambda %v must be finite and ≥ 0", r.Lambda)
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
		return nil, fmt.Errorf("%w: condition number %.3g of the standardised design exceeds %g (use lambda > 0)", ErrSingular, c, maxCond)
	}
	var g mat.Dense
	if err := qr.SolveTo(&g, false, b); err != nil {
		return nil, fmt.Errorf("%w: %v (use lambda > 0)", ErrSingular, err)
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
// training column count.
func (m *Model) Predict(ctx context.Context, X *mat.Dense) ([]float64, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if X == nil || X.IsEmpty() {
		return nil, fmt.Errorf("%w: empty prediction matrix", ErrShape)
	}
	n, p := X.Dims()
	if p != len(m.Coef) {
		return nil, fmt.Errorf("%w: X has %d columns, the model was fitted on %d", ErrShape, p, len(m.Coef))
	}
	out := make([]float64, n)
	for i := range n {
		v := m.Intercept
		for j, x := range X.RawRowView(i) {
			if math.IsNaN(x) || math.IsInf(x, 0) {
				return nil, fmt.Errorf("%w: X[%d][%d] = %v", ErrMissing, i, j, x)
			}
			v += m.Coef[j] * x
		}
		out[i] = v
	}
	return out, nil
}

func checkFit(X *mat.Dense, y []float64) error {
	if X == nil || X.IsEmpty() {
		return fmt.Errorf("%w: empty training matrix", ErrShape)
	}
	n, _ := X.Dims()
	if len(y) != n {
		return fmt.Errorf("%w: X has %d rows but y has %d values", ErrShape, n, len(y))
	}
	for i := range n {
		for j, v := range X.RawRowView(i) {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return fmt.Errorf("%w: X[%d][%d] = %v (impute first)", ErrMissing, i, j, v)
			}
		}
		if math.IsNaN(y[i]) || math.IsInf(y[i], 0) {
			return fmt.Errorf("%w: y[%d] = %v", ErrMissing, i, y[i])
		}
	}
	return nil
}
