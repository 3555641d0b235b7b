package learn

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"gonum.org/v1/gonum/mat"

	"github.com/misslab/misslab/internal/learn/learnerr"
)

// Errors of external methods, wrapped by a MethodRunner's errors (see
// package learnerr for their meaning).
var (
	ErrMethodCrash   = learnerr.ErrMethodCrash
	ErrMethodTimeout = learnerr.ErrMethodTimeout
	ErrMethodOutput  = learnerr.ErrMethodOutput
	ErrMethodFailed  = learnerr.ErrMethodFailed
)

// MethodKind says what an external method does in a pipeline.
type MethodKind string

// Kinds of external methods.
const (
	// MethodLearner fits on training covariates and targets and predicts
	// test targets: it takes a pipeline's learner place ("hgb/native").
	MethodLearner MethodKind = "learner"
	// MethodImputer fits on training covariates and fills the NA of the
	// training and test covariates: it takes a strategy's place
	// ("tree/iterative").
	MethodImputer MethodKind = "imputer"
)

// NativeNA is the strategy of an external learner that is given the NA
// themselves (its methods file says accepts_missing = true), as
// "hgb/native".
const NativeNA = "native"

// Method is the public identity of an external method: everything a
// grid, the coordinator and the store know of it. Its command line never
// leaves the worker that runs it (package methods reads it from the
// worker operator's methods file).
type Method struct {
	Name string     // as in the methods file and the grid, e.g. "hgb"
	Kind MethodKind // learner or imputer
	// AcceptsMissing says a learner may be run on covariates with NA
	// (strategy NativeNA); false: only behind an imputer.
	AcceptsMissing bool
	// ID is the lowercase hex SHA-256 identity of the method (name, kind,
	// version, accepts_missing and the bytes of its files; package
	// methods computes it). Empty until the coordinator binds the grid's
	// name to a method some worker or its own methods file offers.
	ID string
}

// External reports whether m names an external method (a zero Method
// marks a built-in learner or strategy).
func (m Method) External() bool { return m.Name != "" }

// MethodTiming is the time a method reports it spent, in seconds; zero
// when it does not report it.
type MethodTiming struct {
	FitSeconds     float64 // fitting (learner) or fitting + imputing the training set (imputer)
	PredictSeconds float64 // predicting (learner) or imputing the test set (imputer)
}

// MethodCall is one call of an external method.
type MethodCall struct {
	Method Method // bound: ID set
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
	// Impute fits the imputer on X (n × d, NaN for NA) alone and returns
	// X and Xtest with every NA filled (finite everywhere, observed
	// entries unchanged).
	Impute(ctx context.Context, call MethodCall, X, Xtest *mat.Dense) (Xi, XtestI *mat.Dense, t MethodTiming, err error)
}

// CheckMethodName reports whether name can name an external method: it
// matches ^[a-z][a-z0-9_]*$, has at most 40 bytes and is no built-in
// learner or strategy (nor NativeNA). Errors wrap ErrUnknownPipeline.
func CheckMethodName(name string) error {
	if name == "" || len(name) > 40 || name[0] < 'a' || name[0] > 'z' ||
		strings.IndexFunc(name, func(r rune) bool { return !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '_') }) >= 0 {
		return fmt.Errorf("%w: method name %q: want a lower-case letter, then letters, digits or _ (at most 40 bytes)", ErrUnknownPipeline, name)
	}
	if _, learner := strategies[name]; learner || name == NativeNA || slices.ContainsFunc(Learners, func(l string) bool {
		return slices.Contains(strategies[l], name)
	}) {
		return fmt.Errorf("%w: method name %q is a built-in learner or strategy of misslab", ErrUnknownPipeline, name)
	}
	return nil
}
