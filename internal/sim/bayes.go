package sim

import (
	"errors"
	"fmt"
	"math"

	"gonum.org/v1/gonum/mat"
)

// ErrNoBayes is wrapped by BayesPredict and BayesRisk for a scenario whose
// Bayes predictor misslab does not compute (see HasBayes).
var ErrNoBayes = errors.New("sim: no Bayes predictor for this scenario")

// HasBayes reports whether misslab computes the Bayes predictor
// E[Y | observed entries, mask] of s, a regression task (a binary task's
// oracle is BayesProba): for every valid scenario except
// censoring MNAR on the Friedman, Model 4 and toy models, or with ρ < 0
// (there the conditional law of the censored entries is a truncated
// multivariate Gaussian whose moments need a 3-D integral (sin(πX1X2)),
// a non-Gaussian covariate law, or a negative common factor; not
// implemented). Under MNAR the quadratic and linear models are covered.
func HasBayes(s Scenario) bool {
	return s.Validate() == nil && s.Model != Table && !IsClassification(s.Task) && (s.Mechanism != MNAR || hasCensoredBayes(s))
}

// BayesPredict returns the Bayes predictor E[Y | X_obs = x_obs, M = m] of
// scenario s for every row of X (n × D, NaN marks the missing entries;
// the mask is read from NaN), computed from the true law, not estimated:
//
//   - Gaussian covariates (quadratic, linear, friedman) under none, MCAR,
//     predictive and MAR: the exact conditional Gaussian law of the missing
//     entries given the observed ones (Schur complement, in closed form for
//     the equicorrelated Σ, see equiCond). Under MAR the mask depends only
//     on always-observed columns, so conditioning on M changes nothing.
//     linear: βᵀE[X | x_o]; quadratic: Σ_j E[X_j² | x_o] with
//     E[X_j² | x_o] = μ_{j|o}² + Σ_{jj|o}; friedman: the exact closed form
//     of E[sin(πX1X2) | x_o] (productCF) plus the Gaussian moments of the
//     other terms. No quadrature or Monte Carlo: exact to rounding.
//   - Censoring MNAR (quadratic and linear, ρ ≥ 0): a missing entry is
//     known to exceed the population threshold CensorThreshold(p), so the
//     missing block is a truncated conditional Gaussian; its first two
//     moments are a 1-D quadrature (see bayesCensored). This is the Bayes
//     predictor of the population mechanism; a finite data set censors at
//     its empirical quantile, within O(n^{−1/2}) of the threshold.
//   - Model 4 (nonlinear, nonlinear-high): 1-D quadrature over the
//     posterior of the hidden variable (see bayesHidden).
//   - The toy settings: Example 1: 1/3 when X1 is missing (mean imputation
//     would give 1/4); Example 2: X1 + X1² when X2 is missing (X1 = X2);
//     Example 3: 3/2 when missing; Prop 1: 1/2 when missing; Prop 2: X2
//     when X1 is missing and X2 ≠ 0 (W = 1), else 1/2; stump: 0.25·X1, 0
//     when X1 is missing.
//
// The predictive mechanism adds 2·Σ_j M_j over the scenario's columns.
// Rows are assumed to come from s (NaN only in s.Columns). Errors wrap
// ErrInvalid (bad s or X) or ErrNoBayes (see HasBayes).
func BayesPredict(s Scenario, X *mat.Dense) ([]float64, error) {
	if err := s.Validate(); err != nil {
		return nil, err
	}
	if !HasBayes(s) {
		return nil, fmt.Errorf("%w: mechanism %q", ErrNoBayes, s.Mechanism)
	}
	n, d := X.Dims()
	if d != s.D {
		return nil, fmt.Errorf("%w: X has %d columns, scenario has d = %d", ErrInvalid, d, s.D)
	}
	l := newLaw(s)
	out := make([]float64, n)
	row := make([]float64, d)
	for i := range out {
		mat.Row(row, i, X)
		out[i] = l.bayesRow(row)
	}
	return out, nil
}

// bayesRow returns E[Y | x_obs, m] for one row (NaN = missing).
func (l *law) bayesRow(x []float64) float64 {
	var v float64
	switch l.s.Model {
	case Quadratic, Linear, Friedman:
		if l.s.Mechanism == MNAR {
			v = l.bayesCensored(x)
		} else {
			v = l.bayesGaussian(x)
		}
	case Nonlinear, NonlinearHigh:
		v = l.bayesHidden(x)
	default:
		v = bayesToy(l.s.Model, x)
	}
	if l.s.Mechanism == Predictive {
		for _, j := range l.s.Columns {
			if math.IsNaN(x[j]) {
				v += 2
			}
		}
	}
	return v
}

// bayesGaussian returns E[f(X) | x_o] for the Gaussian-covariate models.
func (l *law) bayesGaussian(x []float64) float64 {
	k, sum := 0, 0.0
	for _, v := range x {
		if !math.IsNaN(v) {
			k++
			sum += v - 1
		}
	}
	c := equiConditional(l.s.Rho, k, sum)
	switch l.s.Model {
	case Quadratic:
		y := 0.0
		for j := 0; j < 3; j++ {
			m, v := c.moments(x, j)
			y += m*m + v
		}
		return y
	case Linear:
		y := 0.0
		for j, b := range linearBeta {
			m, _ := c.moments(x, j)
			y += b * m
		}
		return y
	}
	return c.friedman(&l.coef, x)
}

// moments returns the conditional mean and variance of coordinate j given
// the observed entries of x: (x_j, 0) when observed.
func (c equiCond) moments(x []float64, j int) (mean, variance float64) {
	if math.IsNaN(x[j]) {
		return c.mean, c.vr
	}
	return x[j], 0
}

// friedman returns E[c1·sin(πX1X2) + c2·(X3−0.5)² + c3·X4 + c4·X5 | x_o].
func (c equiCond) friedman(co *[4]float64, x []float64) float64 {
	mv := func(j int) (float64, float64) { return c.moments(x, j) }
	m1, v1 := mv(0)
	m2, v2 := mv(1)
	c12 := 0.0
	if math.IsNaN(x[0]) && math.IsNaN(x[1]) {
		c12 = c.cv
	}
	m3, v3 := mv(2)
	m4, _ := mv(3)
	m5, _ := mv(4)
	return co[0]*expSinProduct(m1, m2, v1, c12, v2) +
		co[1]*((m3-0.5)*(m3-0.5)+v3) + co[2]*m4 + co[3]*m5
}

// bayesToy returns E[f | x_o, m] for the toy settings, where every
// covariate is uniform on (0, 1) (Examples, Propositions) or N(0, 1)
// independent (stump); see BayesPredict.
func bayesToy(model string, x []float64) float64 {
	miss0 := math.IsNaN(x[0])
	switch model {
	case Example1:
		if miss0 {
			return 1.0 / 3 // E[X1²]
		}
		return x[0] * x[0]
	case Example2: // X1 = X2 ~ U(0, 1), f = X1 + X2²
		u, known := x[0], !miss0
		if !known && !math.IsNaN(x[1]) {
			u, known = x[1], true
		}
		if !known {
			return 0.5 + 1.0/3
		}
		return u + u*u
	case Example3:
		if miss0 {
			return 1.5 // E[3·X1]
		}
		return x[0]
	case Prop2:
		if miss0 && !math.IsNaN(x[1]) && x[1] != 0 {
			return x[1] // W = 1, so X2 = X1
		}
	case Stump:
		if miss0 {
			return 0
		}
		return 0.25 * x[0]
	}
	if miss0 { // Prop1, Prop2: E[X1] = 1/2
		return 0.5
	}
	return x[0]
}
