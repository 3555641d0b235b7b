package learn

import (
	"context"
	"fmt"
	"slices"

	"gonum.org/v1/gonum/mat"

	"github.com/misslab/misslab/internal/learn/learnerr"
	"github.com/misslab/misslab/internal/methodid"
)

// Errors of external methods, wrapped by a MethodRunner's errors (see
// package learnerr for their meaning).
var (
	ErrMethodCrash   = learnerr.ErrMethodCrash
	ErrMethodTimeout = learnerr.ErrMethodTimeout
	ErrMethodOutput  = learnerr.ErrMethodOutput
	ErrMethodFailed  = learnerr.ErrMethodFailed
)

// NativeNA is the strategy of an external learner that is given the NA
// themselves (its methods file says accepts_missing = true), as
// "hgb/native".
const NativeNA = "native"

// MethodTiming is the time a method reports it spent, in seconds; zero
// when it does not report it.
type MethodTiming struct {
	FitSeconds     float64 // fitting (learner) or fitting + imputing the training set (imputer)
	PredictSeconds float64 // predicting (learner) or imputing the test set (imputer)
}

// MethodCall is one call of an external method.
type MethodCall struct {
	Method methodid.Method // bound: ID set
	// Settings are the pipeline's setting overrides meant for this method
	// (see MethodSettings).
	Settings Settings
	// Seed is the method's only source of randomness, in [0, 2³¹−1) so
	// that R's set.seed and numpy take it as it is. It is drawn from the
	// pipeline's own stream (see Pipeline.FitWith), so it depends only on
	// (grid seed, scenario, unit, pipeline).
	Seed int64
	// Threads is the number of threads the method may use (≥ 1); it never
	// changes the result of a method written as docs/METHODS.md asks.
	Threads int
}

// MethodRunner runs external methods. Package methods implements it on a
// worker, scoped to one sweep, so that a method process never sees two
// sweeps' data. Errors wrap ErrMethodCrash, ErrMethodTimeout,
// ErrMethodOutput or ErrMethodFailed (with the method's stderr tail in
// the message), ErrBadInput, or the context's error.
type MethodRunner interface {
	// FitPredict fits the learner on X (n × d; NaN for NA only when the
	// pipeline's strategy is NativeNA) and the n targets y, and returns
	// one finite prediction per row of Xtest (m × d).
	FitPredict(ctx context.Context, call MethodCall, X *mat.Dense, y []float64, Xtest *mat.Dense) ([]float64, MethodTiming, error)
	// FitPredictProba fits the learner, which declares classification
	// (call.Method.Classifies), on X (as FitPredict) and the n class
	// codes y (0..k−1, stored as float64), k ≥ 2, and returns the m × k
	// class probabilities of the rows of Xtest: each in [0, 1], each row
	// summing to 1 within ProbaSumTol.
	FitPredictProba(ctx context.Context, call MethodCall, X *mat.Dense, y []float64, k int, Xtest *mat.Dense) (*mat.Dense, MethodTiming, error)
	// Impute fits the imputer on X (n × d, NaN for NA) alone and returns
	// X and Xtest with every NA filled (finite everywhere, observed
	// entries unchanged).
	Impute(ctx context.Context, call MethodCall, X, Xtest *mat.Dense) (Xi, XtestI *mat.Dense, t MethodTiming, err error)
}

// CheckMethodName reports whether name can name an external method: it
// is spelt as methodid.CheckName asks (^[a-z][a-z0-9_]*$, at most 40
// bytes) and is no built-in learner or strategy (nor NativeNA). Errors
// wrap ErrUnknownPipeline.
func CheckMethodName(name string) error {
	if err := methodid.CheckName(name); err != nil {
		return fmt.Errorf("%w: %w", ErrUnknownPipeline, err)
	}
	if _, learner := strategies[name]; learner || name == NativeNA || slices.ContainsFunc(Learners, func(l string) bool {
		return slices.Contains(strategies[l], name)
	}) {
		return fmt.Errorf("%w: method name %q is a built-in learner or strategy of misslab", ErrUnknownPipeline, name)
	}
	return nil
}
