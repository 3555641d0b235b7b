package learn

import (
	"context"
	"math/rand/v2"

	"gonum.org/v1/gonum/mat"
)

// Fitter is a learner whose Fit returns its own model type M; packages
// under learn/ cannot name learn.Model without an import cycle. svm, knn
// and linear have a learner value of this shape; tree, ctree, forest and
// boost have a function Fit(ctx, X, y, params, rng) instead (see
// adaptFit). Every package's *Model has Predict(ctx, X) ([]float64,
// error), and the tree models also implement RootSplitter.
type Fitter[M Model] interface {
	Fit(ctx context.Context, X *mat.Dense, y []float64, rng *rand.Rand) (M, error)
}

// Adapt turns a Fitter into a Learner. The fitted M is returned as the
// Model itself, so a model implementing RootSplitter still does.
func Adapt[M Model](f Fitter[M]) Learner { return adapted[M](f.Fit) }

// adaptFit is Adapt for a package function fit(ctx, X, y, p, rng): the
// Learner fits with the parameters p. It does not check p; fit does.
func adaptFit[P any, M Model](fit func(context.Context, *mat.Dense, []float64, P, *rand.Rand) (M, error), p P) Learner {
	return adapted[M](func(ctx context.Context, X *mat.Dense, y []float64, rng *rand.Rand) (M, error) {
		return fit(ctx, X, y, p, rng)
	})
}

// adapted is the one adapter between the learner packages and this one:
// a fit function returning the package's own model type.
type adapted[M Model] func(ctx context.Context, X *mat.Dense, y []float64, rng *rand.Rand) (M, error)

func (a adapted[M]) Fit(ctx context.Context, X *mat.Dense, y []float64, rng *rand.Rand) (Model, error) {
	m, err := a(ctx, X, y, rng)
	if err != nil {
		return nil, err
	}
	return m, nil
}

// adaptClass turns a package function fitClass(ctx, X, y, k, p, rng)
// into a Classifier with the parameters p, as adaptFit does for a
// learner: tree, ctree, forest and boost have such a function.
func adaptClass[P any, M ClassModel](fit func(context.Context, *mat.Dense, []float64, int, P, *rand.Rand) (M, error), p P) Classifier {
	return adaptedClass[M](func(ctx context.Context, X *mat.Dense, y []float64, k int, rng *rand.Rand) (M, error) {
		return fit(ctx, X, y, k, p, rng)
	})
}

// adaptedClass is the one adapter between the learner packages'
// classifiers and this package: a fit function returning the package's
// own model type, returned as the ClassModel itself (so that a tree's
// still implements RootSplitter).
type adaptedClass[M ClassModel] func(ctx context.Context, X *mat.Dense, y []float64, k int, rng *rand.Rand) (M, error)

func (a adaptedClass[M]) FitClass(ctx context.Context, X *mat.Dense, y []float64, k int, rng *rand.Rand) (ClassModel, error) {
	m, err := a(ctx, X, y, k, rng)
	if err != nil {
		return nil, err
	}
	return m, nil
}
