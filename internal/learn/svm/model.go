package svm

import (
	"context"
	"fmt"
	"math"
	"slices"

	"gonum.org/v1/gonum/mat"

	"github.com/misslab/misslab/internal/learn/learnerr"
)

// Model is a fitted Regressor: the support vectors (in scaled
// coordinates), their dual coefficients, the bias and the scaling. It is
// immutable and safe for concurrent use.
type Model struct {
	p         int
	gamma     float64
	xCenter   []float64 // nil when X is not scaled
	xScale    []float64
	yCenter   float64 // 0 and 1 when y is not scaled
	yScale    float64
	sv        []float64 // p × nSV, column-major: sv[c·nSV + s] = x_c of support vector s (scaled)
	svIndex   []int
	coef      []float64
	rho       float64
	iter      int
	converged bool
	scaledX   bool
}

// NumSV returns the number of support vectors (training rows with a
// non-zero dual coefficient), e1071's tot.nSV.
func (m *Model) NumSV() int { return len(m.svIndex) }

// SupportIndices returns the 0-based training rows of the support
// vectors in ascending order (e1071's index − 1).
func (m *Model) SupportIndices() []int { return slices.Clone(m.svIndex) }

// DualCoef returns α_i − α*_i for each support vector, aligned with
// SupportIndices, in units of the scaled target (e1071's coefs).
func (m *Model) DualCoef() []float64 { return slices.Clone(m.coef) }

// Rho returns the bias ρ of the decision function f(x) = Σ coef·K − ρ in
// scaled units (e1071's rho).
func (m *Model) Rho() float64 { return m.rho }

// Gamma returns the kernel width used (1/p by default).
func (m *Model) Gamma() float64 { return m.gamma }

// Scaled reports whether X (and y) were scaled; false with NoScale or
// when a training column was constant (e1071's rule).
func (m *Model) Scaled() bool { return m.scaledX }

// Iterations returns the number of SMO iterations; Converged is false
// when libsvm's iteration cap max(10⁷, 100·2n) stopped the solver first
// (libsvm then warns and keeps the current solution, as here).
func (m *Model) Iterations() int { return m.iter }

// Converged reports whether SMO reached the tolerance.
func (m *Model) Converged() bool { return m.converged }

// Predict returns f(x)·s_y + m_y for every row x of X, where x is scaled
// with the training centres and scales and f(x) = Σ_i coef_i·exp(−γ‖x −
// sv_i‖²) − ρ, summed in support-vector order as libsvm. Errors wrap
// learnerr.ErrInput (X without the training column count, NaN or ±Inf),
// or are the context's error.
func (m *Model) Predict(ctx context.Context, X *mat.Dense) ([]float64, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	q, nq, p, err := flatten(X, "prediction")
	if err != nil {
		return nil, err
	}
	if p != m.p {
		return nil, fmt.Errorf("svm: prediction matrix has %d columns, model was trained on %d: %w", p, m.p, learnerr.ErrInput)
	}
	out := make([]float64, nq)
	scratch := make([]float64, len(m.coef))
	for i := range nq {
		if i%256 == 255 {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
		}
		row := q[i*p : i*p+p]
		scaleRow(row, m.xCenter, m.xScale)
		out[i] = m.decision(row, scratch)*m.yScale + m.yCenter
	}
	return out, nil
}

// decision is libsvm's svm_predict_values for regression; scratch holds
// NumSV values. The squared distances to all support vectors are
// accumulated over the column-major support vectors (vec.go), each
// summed over the columns in order.
func (m *Model) decision(x, scratch []float64) float64 {
	kv := scratch[:len(m.coef)]
	kernelValues(kv, m.sv, x, m.gamma)
	sum := 0.0
	for s, c := range m.coef {
		sum += float64(c * kv[s])
	}
	return sum - m.rho
}

// kernelValues sets kv[s] = exp(−γ·‖x − sv_s‖²) for the len(kv) support
// vectors of sv (column-major, len(kv) rows), as libsvm's k_function
// computes it at prediction: the squared distance summed over the
// columns in order, times −γ, then exp.
func kernelValues(kv, sv, x []float64, gamma float64) {
	sqDists(kv, sv, len(kv), x)
	scale(kv, -gamma)
	expAll(kv)
}

// scaleRow maps a row to the training scale, (x_c − center_c)/sd_c, in
// place; nothing when center is nil (the training set was not scaled).
func scaleRow(row, center, sd []float64) {
	if center == nil {
		return
	}
	for c := range row {
		row[c] = (row[c] - center[c]) / sd[c]
	}
}

// flatten checks that X is non-empty and finite and returns a row-major
// copy with its dimensions.
func flatten(X *mat.Dense, what string) ([]float64, int, int, error) {
	if X == nil || X.IsEmpty() {
		return nil, 0, 0, fmt.Errorf("svm: the %s matrix is nil or empty: %w", what, learnerr.ErrInput)
	}
	n, p := X.Dims()
	out := make([]float64, 0, n*p)
	for i := range n {
		row := X.RawRowView(i)
		for j, v := range row {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return nil, 0, 0, fmt.Errorf("svm: %s entry (%d, %d) is %v: %w", what, i, j, v, learnerr.ErrInput)
			}
		}
		out = append(out, row...)
	}
	return out, n, p, nil
}
