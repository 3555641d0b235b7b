package forest

import (
	"context"
	"math"
	"math/rand/v2"

	"gonum.org/v1/gonum/mat"
)

// Regressor is a random-forest learner with fixed Params: the shape every
// learner package shares (New, Regressor.Fit, Model.Predict), so that
// package learn adapts them all with one generic adapter. It is immutable
// and safe for concurrent use.
type Regressor struct{ p Params }

// New checks p and returns the learner. Mtry is checked against the
// training set's column count at Fit. Errors wrap learnerr.ErrSetting.
func New(p Params) (*Regressor, error) {
	if err := p.validate(math.MaxInt); err != nil {
		return nil, err
	}
	return &Regressor{p: p}, nil
}

// Params returns the learner's parameters.
func (r *Regressor) Params() Params { return r.p }

// Fit is Fit(ctx, X, y, r.Params(), rng).
func (r *Regressor) Fit(ctx context.Context, X *mat.Dense, y []float64, rng *rand.Rand) (*Model, error) {
	return Fit(ctx, X, y, r.p, rng)
}
