package svm

import (
	"context"
	"fmt"
	"maps"
	"math"
	"math/rand/v2"
	"slices"

	"gonum.org/v1/gonum/mat"

	"github.com/misslab/misslab/internal/learn/learnerr"
)

// Defaults of e1071's svm() for regression.
const (
	DefaultCost      = 1.0   // C
	DefaultEpsilon   = 0.1   // half-width of the insensitive tube (scaled units)
	DefaultTolerance = 0.001 // SMO stopping tolerance on the maximal violation
	DefaultCacheMB   = 40.0  // kernel-row cache, MiB
)

// Params are the hyper-parameters; DefaultParams gives e1071's. Only the
// radial kernel exp(−γ‖u−v‖²) is implemented.
type Params struct {
	// Cost is the box constraint C > 0 (setting "cost").
	Cost float64
	// Gamma > 0 is the kernel width γ (setting "gamma"); 0 means 1/p, p
	// the number of columns given to Fit, as e1071.
	Gamma float64
	// Epsilon ≥ 0 is the half-width of the ε-insensitive tube, in units
	// of the scaled target (setting "epsilon").
	Epsilon float64
	// Tolerance > 0 stops SMO when the maximal KKT violation is below it
	// (setting "tolerance").
	Tolerance float64
	// CacheMB > 0 bounds the kernel-row cache in MiB (setting
	// "cachesize"); it changes the running time, never the result.
	CacheMB float64
	// NoShrinking disables libsvm's shrinking heuristic (e1071
	// shrinking = FALSE).
	NoShrinking bool
	// NoScale disables the scaling of X and y (e1071 scale = FALSE).
	NoScale bool
}

// DefaultParams returns e1071 svm()'s defaults for eps-regression.
func DefaultParams() Params {
	return Params{Cost: DefaultCost, Epsilon: DefaultEpsilon, Tolerance: DefaultTolerance, CacheMB: DefaultCacheMB}
}

func (p Params) validate() error {
	ok := func(v float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) }
	switch {
	case !ok(p.Cost) || p.Cost <= 0:
		return fmt.Errorf("svm: cost = %v must be positive: %w", p.Cost, learnerr.ErrSetting)
	case !ok(p.Gamma) || p.Gamma < 0:
		return fmt.Errorf("svm: gamma = %v must be positive (0 for 1/p): %w", p.Gamma, learnerr.ErrSetting)
	case !ok(p.Epsilon) || p.Epsilon < 0:
		return fmt.Errorf("svm: epsilon = %v must be non-negative: %w", p.Epsilon, learnerr.ErrSetting)
	case !ok(p.Tolerance) || p.Tolerance <= 0:
		return fmt.Errorf("svm: tolerance = %v must be positive: %w", p.Tolerance, learnerr.ErrSetting)
	case !ok(p.CacheMB) || p.CacheMB <= 0:
		return fmt.Errorf("svm: cachesize = %v MiB must be positive: %w", p.CacheMB, learnerr.ErrSetting)
	}
	return nil
}

// Regressor is epsilon-SVR with a radial kernel, reproducing e1071 1.7-13
// svm(x, y) (libsvm 3.23 inside) with its defaults:
//
//   - X and y are scaled to zero mean and unit variance on the training
//     set (R's scale(): column means, standard deviations with divisor
//     n−1); predictions are mapped back. As in e1071, if any column of X
//     is constant, nothing is scaled — neither X nor y.
//   - The dual is solved by libsvm's SMO (second-order working-set
//     selection, shrinking, float32 kernel-row cache, libsvm's bias rule),
//     following libsvm's floating-point order so that the support vectors
//     and coefficients are libsvm's. On the golden fixtures ρ and every
//     dual coefficient are bit-identical to e1071's and predictions agree
//     to about 1e-14. The one numerical difference is exp, computed here
//     by a table-driven routine (error ≤ 0.51 ulp, like glibc's): the
//     float32 kernel cache absorbs it during training, and it moves
//     predictions by about one ulp.
//
// Deliberate differences: e1071 divides y by a zero standard deviation
// when y is constant (and X is not), producing NaN; here y is only
// centred then, and the model predicts the training mean. e1071 fails on
// one training row and refuses to predict from a model without support
// vectors; here a single row is fitted unscaled and an empty model
// predicts the constant −ρ (mapped back to the target scale). Only the
// radial kernel is implemented.
type Regressor struct {
	params Params
}

// New returns a Regressor with the given parameters (see Params). Errors
// wrap learnerr.ErrSetting.
func New(p Params) (*Regressor, error) {
	if err := p.validate(); err != nil {
		return nil, err
	}
	return &Regressor{params: p}, nil
}

// FromSettings builds a Regressor from grid settings overriding
// DefaultParams: "cost", "gamma", "epsilon", "tolerance" and "cachesize"
// (MiB). Unknown keys and invalid values are errors wrapping
// learnerr.ErrSetting.
func FromSettings(s map[string]float64) (*Regressor, error) {
	p := DefaultParams()
	for _, key := range slices.Sorted(maps.Keys(s)) {
		v := s[key]
		switch key {
		case "cost":
			p.Cost = v
		case "gamma":
			p.Gamma = v
		case "epsilon":
			p.Epsilon = v
		case "tolerance":
			p.Tolerance = v
		case "cachesize":
			p.CacheMB = v
		default:
			return nil, fmt.Errorf("svm: unknown setting %q (known: cachesize, cost, epsilon, gamma, tolerance): %w", key, learnerr.ErrSetting)
		}
	}
	return New(p)
}

// Params returns the regressor's parameters.
func (r *Regressor) Params() Params { return r.params }

// Fit solves the SVR dual on X (n × p, finite) and y. It never consumes
// rng (the method is deterministic) and does not retain X or y. Errors
// wrap learnerr.ErrInput (an empty X, len(y) ≠ n, NaN or ±Inf) or
// learnerr.ErrSetting (invalid parameters), or are the context's error.
func (r *Regressor) Fit(ctx context.Context, X *mat.Dense, y []float64, _ *rand.Rand) (*Model, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if err := r.params.validate(); err != nil {
		return nil, err
	}
	x, n, p, err := flatten(X, "training")
	if err != nil {
		return nil, err
	}
	if len(y) != n {
		return nil, fmt.Errorf("svm: %d targets for %d training rows: %w", len(y), n, learnerr.ErrInput)
	}
	for i, v := range y {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return nil, fmt.Errorf("svm: target y[%d] = %v is not finite: %w", i, v, learnerr.ErrInput)
		}
	}
	m := &Model{p: p, gamma: r.params.Gamma, yScale: 1}
	if m.gamma == 0 {
		m.gamma = 1 / float64(p)
	}
	ys := slices.Clone(y)
	if !r.params.NoScale {
		m.scale(x, ys, n)
	}
	res, err := m.solve(ctx, r.params, x, ys, n)
	if err != nil {
		return nil, err
	}
	m.keepSupport(res, x)
	return m, nil
}
