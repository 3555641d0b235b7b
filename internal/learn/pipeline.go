package learn

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"

	"gonum.org/v1/gonum/mat"

	"github.com/misslab/misslab/internal/learn/impute"
	"github.com/misslab/misslab/internal/learn/learnerr"
)

// ErrBadInput is wrapped by errors for unusable data: a nil or empty X,
// ±Inf in X, a target of the wrong length or with NaN/±Inf, a nil random
// source, or a prediction matrix whose column count differs from the
// training one.
var ErrBadInput = learnerr.ErrInput

// ErrOracle is returned by New for the bayes/oracle pipeline: the Bayes
// predictor needs the simulation's true law, so the experiment runner
// evaluates it, not a Pipeline.
var ErrOracle = learnerr.ErrOracle

// Pipeline is an imputer (or none) + an optional missingness mask + a
// learner, fitted on a training set and applied unchanged to a test set:
// the "proper way" of the paper's Section 3.1. Imputation parameters and
// mask columns are learned from the training covariates only — never
// from the test set, never from the target. A Pipeline is immutable and
// may be fitted concurrently on different data.
//
// The learner sees, in this column order: the d input columns (imputed,
// NaN kept for native strategies, or low-filled for mia-inf), then for
// mia-inf the high-filled copies of the training-incomplete columns, then
// with +mask the 0/1 indicators of the training-incomplete columns.
type Pipeline struct {
	spec     Spec
	settings Settings // resolved
	imputer  impute.Imputer
	learner  Learner      // regression (nil for a classification task)
	classes  int          // classification into classes ≥ 2, else 0
	classify Classifier   // classification (nil for regression)
	methods  MethodRunner // runs an external imputer (nil otherwise)
	impCall  MethodCall   // the external imputer's call, seed unset
}

// New parses a pipeline name (see ParseSpec), resolves its settings (see
// ResolveSettings) and builds the pipeline. Errors wrap
// ErrUnknownPipeline, ErrBadSetting, ErrNotImplemented (a family not
// registered yet) or ErrOracle (bayes/oracle).
func New(name string, s Settings, env Env) (*Pipeline, error) {
	spec, err := ParseSpec(name)
	if err != nil {
		return nil, err
	}
	return NewFromSpec(spec, s, env)
}

// NewFromSpec is New for a name already parsed (a grid.Pipeline carries
// its Spec): it resolves the settings overrides s and builds the
// pipeline. Errors are those of New.
func NewFromSpec(spec Spec, s Settings, env Env) (*Pipeline, error) {
	name := spec.Name()
	if spec.Learner == Bayes {
		return nil, fmt.Errorf("%w: %q is evaluated by the experiment runner from the true law", ErrOracle, name)
	}
	rs, err := ResolveSettings(spec, s)
	if err != nil {
		return nil, err
	}
	if env.Classes > 0 {
		err = Classifies(spec, rs)
	} else {
		err = Regresses(spec)
	}
	if err != nil {
		return nil, err
	}
	p := &Pipeline{spec: spec, settings: rs, imputer: newImputer(spec.Strategy, rs, env)}
	if m := spec.ImputerMethod; m.External() {
		if p.methods, p.impCall, err = methodCall(spec, m, s, env); err != nil {
			return nil, err
		}
	}
	if m := spec.LearnerMethod; m.External() {
		run, call, err := methodCall(spec, m, s, env)
		if err != nil {
			return nil, err
		}
		if env.Classes > 0 {
			p.classes, p.classify = env.Classes, extClassifier{run: run, call: call}
			return p, nil
		}
		p.learner = extLearner{run: run, call: call}
		return p, nil
	}
	if env.Classes > 0 {
		p.classes = env.Classes
		if p.classify, err = newClassifier(spec, rs, env); err != nil {
			return nil, err
		}
		return p, nil
	}
	if p.learner, err = newLearner(spec, rs, env); err != nil {
		return nil, err
	}
	return p, nil
}

// newImputer returns the preprocessing of a strategy, nil for native
// ones; env.Threads only sets how many goroutines KNN searches with.
func newImputer(strategy string, s Settings, env Env) impute.Imputer {
	switch strategy {
	case Mean:
		return impute.Mean{}
	case Median:
		return impute.Median{}
	case Constant:
		return impute.Constant{Value: s["value"]}
	case OOR:
		k, scaled := s["oor_k"]
		return impute.OOR{Scaled: scaled, K: k}
	case Gaussian:
		return impute.Gaussian{Shrink: s["shrink"],
			EM: impute.EMOptions{Tol: s["em_tol"], MaxIter: s.Int("em_maxiter")}}
	case Iterative:
		return impute.Iterative{MaxIter: s.Int("iterative_maxiter"), Tol: s["iterative_tol"]}
	case KNNImpute:
		return impute.KNN{K: s.Int("knn_k"), Threads: env.Threads}
	case MIAInf:
		return impute.MIAInf{}
	}
	return nil
}

// Spec returns the parsed pipeline name.
func (p *Pipeline) Spec() Spec { return p.spec }

// Name returns the canonical pipeline name.
func (p *Pipeline) Name() string { return p.spec.Name() }

// Settings returns a copy of the effective settings (defaults, preset
// and overrides applied).
func (p *Pipeline) Settings() Settings { return p.settings.Clone() }

// Fitted is a pipeline fitted on a training set.
type Fitted struct {
	spec     Spec
	d        int
	imp      impute.Transformer // nil for native strategies
	mask     *impute.MaskFit    // nil without +mask
	model    Model              // a regression's
	cmodel   ClassModel         // a classification's
	classes  int                // k of a classification, else 0
	features int
	// impTiming is what an external imputer reported.
	impTiming MethodTiming
}

// Fit fits the imputer on the covariates of X only, appends the mask
// columns chosen on X, and fits the learner on the result and y. X is n
// × d with NaN for NA and no ±Inf; y has n finite values; rng is the
// learner's only random source. Neither X nor y is modified or retained.
//
// Timing is the caller's: the wall time of Fit is the paper's training
// time (imputation fit + training-set transform + learner fit) and that
// of Predict the test time (test-set transform + prediction). The
// paper's code counted the test-set imputation in the training time.
//
// A pipeline with an external imputer needs the test set when it fits:
// use FitWith.
func (p *Pipeline) Fit(ctx context.Context, X *mat.Dense, y []float64, rng *rand.Rand) (*Fitted, error) {
	return p.FitWith(ctx, X, y, nil, rng)
}

// FitWith is Fit for a pipeline that will predict Xtest (the test
// covariates, NaN for NA; nil when unknown). Only an external imputer
// looks at Xtest, and only at its covariates: such a method fills the
// training and test sets in one call, having fitted on the training set
// alone, and the fitted pipeline can then predict Xtest and no other
// matrix. Built-in pipelines ignore Xtest.
//
// External methods draw their seeds from rng (see MethodCall.Seed): the
// imputer first, then the learner. Built-in components draw nothing
// more than before, so built-in pipelines give the same results as Fit.
func (p *Pipeline) FitWith(ctx context.Context, X *mat.Dense, y []float64, Xtest *mat.Dense, rng *rand.Rand) (*Fitted, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if err := checkTrain(X, y, rng); err != nil {
		return nil, fmt.Errorf("%s: %w", p.Name(), err)
	}
	if p.classes > 0 {
		if err := checkClasses(y, p.classes); err != nil {
			return nil, fmt.Errorf("%s: %w", p.Name(), err)
		}
	}
	_, d := X.Dims()
	f := &Fitted{spec: p.spec, d: d, classes: p.classes}
	var err error
	switch {
	case p.imputer != nil:
		if f.imp, err = p.imputer.Fit(ctx, X); err != nil {
			return nil, fmt.Errorf("%s: imputer: %w", p.Name(), err)
		}
	case p.methods != nil:
		if Xtest != nil {
			if err := checkX(Xtest); err != nil {
				return nil, fmt.Errorf("%s: test set: %w", p.Name(), err)
			}
		}
		if f.imp, f.impTiming, err = p.fitExternalImputer(ctx, X, Xtest, rng); err != nil {
			return nil, fmt.Errorf("%s: imputer: %w", p.Name(), err)
		}
	}
	if p.spec.Mask {
		if f.mask, err = impute.FitMask(ctx, X); err != nil {
			return nil, fmt.Errorf("%s: mask: %w", p.Name(), err)
		}
	}
	Xt, err := f.transform(X)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", p.Name(), err)
	}
	_, f.features = Xt.Dims()
	if p.classify != nil {
		f.cmodel, err = p.classify.FitClass(ctx, Xt, y, p.classes, rng)
	} else {
		f.model, err = p.learner.Fit(ctx, Xt, y, rng)
	}
	if err != nil {
		return nil, fmt.Errorf("%s: learner: %w", p.Name(), err)
	}
	return f, nil
}

// Predict applies the training transforms to X (n × d, the training
// column count, NaN for NA, no ±Inf) and returns one prediction per row.
func (f *Fitted) Predict(ctx context.Context, X *mat.Dense) ([]float64, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if err := checkX(X); err != nil {
		return nil, fmt.Errorf("%s: %w", f.spec.Name(), err)
	}
	n, d := X.Dims()
	if d != f.d {
		return nil, fmt.Errorf("%s: %w: X has %d columns, the pipeline was fitted on %d", f.spec.Name(), ErrBadInput, d, f.d)
	}
	if f.model == nil {
		return nil, fmt.Errorf("%s: %w: a classifier predicts class probabilities (PredictProba)", f.spec.Name(), ErrBadInput)
	}
	Xt, err := f.transform(X)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", f.spec.Name(), err)
	}
	pred, err := f.model.Predict(ctx, Xt)
	if err != nil {
		return nil, fmt.Errorf("%s: learner: %w", f.spec.Name(), err)
	}
	if len(pred) != n {
		return nil, fmt.Errorf("%s: learner returned %d predictions for %d rows", f.spec.Name(), len(pred), n)
	}
	return pred, nil
}

// PredictProba applies the training transforms to X (as Predict) and
// returns the n × k class probabilities of a classification pipeline;
// each row sums to 1. A regression pipeline has none (ErrBadInput).
func (f *Fitted) PredictProba(ctx context.Context, X *mat.Dense) (*mat.Dense, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if f.cmodel == nil {
		return nil, fmt.Errorf("%s: %w: a regression pipeline predicts values (Predict)", f.spec.Name(), ErrBadInput)
	}
	if err := checkX(X); err != nil {
		return nil, fmt.Errorf("%s: %w", f.spec.Name(), err)
	}
	n, d := X.Dims()
	if d != f.d {
		return nil, fmt.Errorf("%s: %w: X has %d columns, the pipeline was fitted on %d", f.spec.Name(), ErrBadInput, d, f.d)
	}
	Xt, err := f.transform(X)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", f.spec.Name(), err)
	}
	p, err := f.cmodel.PredictProba(ctx, Xt)
	if err != nil {
		return nil, fmt.Errorf("%s: learner: %w", f.spec.Name(), err)
	}
	if err := checkProba(p, n, f.classes); err != nil {
		return nil, fmt.Errorf("%s: learner: %v", f.spec.Name(), err)
	}
	return p, nil
}

// Classes returns k of a classification pipeline, 0 for regression.
func (f *Fitted) Classes() int { return f.classes }

// Spec returns the fitted pipeline's parsed name.
func (f *Fitted) Spec() Spec { return f.spec }

// Features returns the number of columns the learner was trained on.
func (f *Fitted) Features() int { return f.features }

// Imputer returns the fitted preprocessing (*impute.Fill,
// *impute.GaussianFit, *impute.IterativeFit, *impute.KNNFit or
// *impute.MIAFit), nil for native strategies;
// callers may inspect it, e.g. for EM convergence or empty columns.
func (f *Fitted) Imputer() impute.Transformer { return f.imp }

// MaskColumns returns the input columns whose indicators the learner
// sees (nil without +mask or when the training set had no NA).
func (f *Fitted) MaskColumns() []int {
	if f.mask == nil {
		return nil
	}
	return append([]int(nil), f.mask.Cols...)
}

// transform applies the fitted imputer and mask to X.
func (f *Fitted) transform(X *mat.Dense) (*mat.Dense, error) {
	Xt := X
	var err error
	if f.imp != nil {
		if Xt, err = f.imp.Transform(X); err != nil {
			return nil, err
		}
	}
	if f.mask == nil {
		return Xt, nil
	}
	ind, err := f.mask.Indicators(X)
	if err != nil || ind == nil {
		return Xt, err
	}
	return impute.HStack(Xt, ind), nil
}

// checkTrain validates a training set.
func checkTrain(X *mat.Dense, y []float64, rng *rand.Rand) error {
	if err := checkX(X); err != nil {
		return err
	}
	if rng == nil {
		return fmt.Errorf("%w: nil random source", ErrBadInput)
	}
	n, _ := X.Dims()
	if len(y) != n {
		return fmt.Errorf("%w: X has %d rows but y has %d values", ErrBadInput, n, len(y))
	}
	for i, v := range y {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return fmt.Errorf("%w: y[%d] = %v (targets must be finite)", ErrBadInput, i, v)
		}
	}
	return nil
}

// checkX rejects a nil or empty X and ±Inf entries (NaN marks NA).
func checkX(X *mat.Dense) error {
	if X == nil || X.IsEmpty() {
		return fmt.Errorf("%w: X has no rows or no columns", ErrBadInput)
	}
	n, _ := X.Dims()
	for i := range n {
		for j, v := range X.RawRowView(i) {
			if math.IsInf(v, 0) {
				return fmt.Errorf("%w: X[%d][%d] = %v (use NaN for NA)", ErrBadInput, i, j, v)
			}
		}
	}
	return nil
}
