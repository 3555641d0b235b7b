package ctree

import (
	"context"
	"math/rand/v2"

	"gonum.org/v1/gonum/mat"
)

// Regressor is a conditional-inference-tree learner with fixed Params:
// the shape every learner package shares (New, Regressor.Fit,
// Model.Predict), so that package learn adapts them all with one generic
// adapter. It is immutable and safe for concurrent use.
type Regressor struct{ p Params }

// New checks p and returns the learner. Errors wrap learnerr.ErrSetting.
func New(p Params) (*Regressor, error) {
	if err := p.validate(); err != nil {
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

// RootSplit reports the column and threshold of the root split; ok is
// false when the root is a leaf.
func (t *Model) RootSplit() (feature int, threshold float64, ok bool) {
	r := t.Root()
	return r.Feature, r.Threshold, !r.Leaf
}
