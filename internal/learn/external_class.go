package learn

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"

	"gonum.org/v1/gonum/mat"
)

// ProbaSumTol bounds |Σ_j p_ij − 1| for the class probabilities of every
// classifier, an external method's included (see MethodRunner).
const ProbaSumTol = probaSumTol

// methodClassifies is Classifies for a pipeline whose learner is an
// external method.
func methodClassifies(spec Spec) error {
	m := spec.LearnerMethod
	if m.ID == "" || m.Classifies() {
		return nil // unbound: checked again when the coordinator binds it
	}
	return fmt.Errorf(`%w: %s: external learner %q does not declare classification: list it in the method's tasks in the worker's methods file `+
		`(tasks = ["regression", "classification"], or ["classification"] alone) and have the method answer "fit_predict_proba" requests (docs/METHODS.md)`,
		ErrNotImplemented, spec.Name(), m.Name)
}

// Regresses reports whether a pipeline can run a regression task: every
// pipeline but one whose bound external learner declares classification
// alone (tasks = ["classification"]). The error wraps ErrNotImplemented.
func Regresses(spec Spec) error {
	m := spec.LearnerMethod
	if !m.External() || m.ID == "" || m.Regresses() {
		return nil
	}
	return fmt.Errorf(`%w: %s: external learner %q does classification only (tasks = ["classification"] in its methods file): `+
		`use it in a classification sweep, or add "regression" to its tasks and have it answer "fit_predict" requests`,
		ErrNotImplemented, spec.Name(), m.Name)
}

// extClassifier is an external learner on a classification task, as
// extLearner on a regression one: FitClass keeps copies of the training
// set and draws the seed; the method runs, fit and predict in one call,
// when the model predicts.
type extClassifier struct {
	run  MethodRunner
	call MethodCall
}

func (c extClassifier) FitClass(ctx context.Context, X *mat.Dense, y []float64, k int, rng *rand.Rand) (ClassModel, error) {
	call := c.call
	call.Seed = methodSeed(rng)
	return &extClassModel{run: c.run, call: call, X: mat.DenseCopyOf(X), y: slices.Clone(y), k: k}, nil
}

// extClassModel is a fitted external classifier (see extClassifier).
type extClassModel struct {
	run    MethodRunner
	call   MethodCall
	X      *mat.Dense
	y      []float64
	k      int
	timing MethodTiming
}

// PredictProba runs the method and checks its probabilities: a wrong
// shape, a value outside [0, 1] (NaN included) or a row not summing to 1
// within ProbaSumTol is an error wrapping ErrMethodOutput, recorded as
// the method's failure.
func (m *extClassModel) PredictProba(ctx context.Context, X *mat.Dense) (*mat.Dense, error) {
	p, t, err := m.run.FitPredictProba(ctx, m.call, m.X, m.y, m.k, X)
	m.timing = t
	if err != nil {
		return nil, err
	}
	n, _ := X.Dims()
	if err := checkProba(p, n, m.k); err != nil {
		return nil, fmt.Errorf("%w: external learner %q: %v", ErrMethodOutput, m.call.Method.Name, err)
	}
	return p, nil
}
