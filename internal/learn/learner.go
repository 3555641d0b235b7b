package learn

import (
	"context"
	"math/rand/v2"

	"gonum.org/v1/gonum/mat"
)

// Learner is a regression procedure with fixed hyper-parameters.
type Learner interface {
	// Fit trains on X (n × p, row-major; NaN marks NA where the strategy
	// handles missing values natively) and the n targets y. rng is the
	// only source of randomness; it is never nil. Fit must not retain X
	// or y after it returns.
	Fit(ctx context.Context, X *mat.Dense, y []float64, rng *rand.Rand) (Model, error)
}

// Model is a fitted Learner.
type Model interface {
	// Predict returns one prediction per row of X, which must have the
	// number of columns the model was trained on.
	Predict(ctx context.Context, X *mat.Dense) ([]float64, error)
}
