package learn

import (
	"context"
	"math/rand/v2"

	"gonum.org/v1/gonum/mat"
)

// Fitter is a learner whose Fit returns its own model type M; packages
// under learn/ cannot name learn.Model without an import cycle. Every
// learner package (tree, ctree, forest, boost, svm, knn, linear) has the
// same shape: a learner value with Fit(ctx, X, y, rng) (*Model, error),
// and a *Model with Predict(ctx, X) ([]float64, error); the tree models
// also implement RootSplitter.
type Fitter[M Model] interface {
	Fit(ctx context.Context, X *mat.Dense, y []float64, rng *rand.Rand) (M, error)
}

// Adapt turns a Fitter into a Learner: the only adapter between the
// learner packages and this one. The fitted M is returned as the Model
// itself, so a model implementing RootSplitter still does.
func Adapt[M Model](f Fitter[M]) Learner { return adapted[M]{f} }

type adapted[M Model] struct{ f Fitter[M] }

func (a adapted[M]) Fit(ctx context.Context, X *mat.Dense, y []float64, rng *rand.Rand) (Model, error) {
	m, err := a.f.Fit(ctx, X, y, rng)
	if err != nil {
		return nil, err
	}
	return m, nil
}
