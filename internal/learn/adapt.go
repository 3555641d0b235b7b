package learn

import (
	"context"
	"math/rand/v2"

	"gonum.org/v1/gonum/mat"
)

// Fitter is a learner whose Fit returns its own model type M; packages
// under learn/ cannot name learn.Model without an import cycle.
type Fitter[M Model] interface {
	Fit(ctx context.Context, X *mat.Dense, y []float64, rng *rand.Rand) (M, error)
}

// Adapt turns a Fitter into a Learner.
func Adapt[M Model](f Fitter[M]) Learner { return adapted[M]{f} }

type adapted[M Model] struct{ f Fitter[M] }

func (a adapted[M]) Fit(ctx context.Context, X *mat.Dense, y []float64, rng *rand.Rand) (Model, error) {
	m, err := a.f.Fit(ctx, X, y, rng)
	if err != nil {
		return nil, err
	}
	return m, nil
}

// LearnerFunc adapts a function to Learner.
type LearnerFunc func(ctx context.Context, X *mat.Dense, y []float64, rng *rand.Rand) (Model, error)

// Fit calls f.
func (f LearnerFunc) Fit(ctx context.Context, X *mat.Dense, y []float64, rng *rand.Rand) (Model, error) {
	return f(ctx, X, y, rng)
}

// ModelFunc adapts a function to Model.
type ModelFunc func(ctx context.Context, X *mat.Dense) ([]float64, error)

// Predict calls f.
func (f ModelFunc) Predict(ctx context.Context, X *mat.Dense) ([]float64, error) { return f(ctx, X) }
