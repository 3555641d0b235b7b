package learn

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"

	"gonum.org/v1/gonum/mat"

	"github.com/misslab/misslab/internal/learn/impute"
	"github.com/misslab/misslab/internal/methodid"
)

// methodSeed draws an external method's seed from the pipeline's stream,
// in [0, 2³¹−1) so that R's set.seed takes it unchanged.
func methodSeed(rng *rand.Rand) int64 { return int64(rng.Uint64() % (1<<31 - 1)) }

// methodCall prepares the calls of external method m of a pipeline.
func methodCall(spec Spec, m methodid.Method, s Settings, env Env) (MethodRunner, MethodCall, error) {
	if env.Methods == nil {
		return nil, MethodCall{}, fmt.Errorf("%w: %s: external method %q cannot run here (no methods file: worker --methods)",
			ErrNotImplemented, spec.Name(), m.Name)
	}
	if m.ID == "" {
		return nil, MethodCall{}, fmt.Errorf("%w: %s: external method %q is not bound to an identity (the coordinator binds it at submit)",
			ErrUnknownPipeline, spec.Name(), m.Name)
	}
	threads := max(env.Threads, 1)
	return env.Methods, MethodCall{Method: m, Settings: MethodSettings(spec, s, m), Threads: threads}, nil
}

// extLearner is an external learner: Fit keeps copies of the training
// set and draws the seed; the method runs, fit and predict in one call,
// when the model predicts.
type extLearner struct {
	run  MethodRunner
	call MethodCall
}

func (l extLearner) Fit(ctx context.Context, X *mat.Dense, y []float64, rng *rand.Rand) (Model, error) {
	call := l.call
	call.Seed = methodSeed(rng)
	return &extModel{run: l.run, call: call, X: mat.DenseCopyOf(X), y: slices.Clone(y)}, nil
}

// extModel is a fitted external learner (see extLearner).
type extModel struct {
	run    MethodRunner
	call   MethodCall
	X      *mat.Dense
	y      []float64
	timing MethodTiming
}

func (m *extModel) Predict(ctx context.Context, X *mat.Dense) ([]float64, error) {
	pred, t, err := m.run.FitPredict(ctx, m.call, m.X, m.y, X)
	m.timing = t
	return pred, err
}

// extFill is an external imputer's output: the two matrices the method
// filled, served to the pipeline by identity of the matrix it was given.
type extFill struct {
	name                    string
	train, test             *mat.Dense // the inputs
	trainFilled, testFilled *mat.Dense
}

// Transform returns the filled copy of the training or test matrix the
// imputer was called with; any other matrix is an error wrapping
// ErrBadInput, since the method never saw it.
func (f *extFill) Transform(X *mat.Dense) (*mat.Dense, error) {
	switch {
	case X == f.train:
		return f.trainFilled, nil
	case X == f.test && f.test != nil:
		return f.testFilled, nil
	}
	return nil, fmt.Errorf("%w: external imputer %q can only fill the training and test sets it was called with", ErrBadInput, f.name)
}

// fitExternalImputer runs the pipeline's external imputer on X and Xtest
// with a seed drawn from rng.
func (p *Pipeline) fitExternalImputer(ctx context.Context, X, Xtest *mat.Dense, rng *rand.Rand) (impute.Transformer, MethodTiming, error) {
	if Xtest == nil {
		return nil, MethodTiming{}, fmt.Errorf("%w: external imputer %q needs the test set at fit (Pipeline.FitWith)", ErrBadInput, p.spec.ImputerMethod.Name)
	}
	call := p.impCall
	call.Seed = methodSeed(rng)
	Xi, XtI, t, err := p.methods.Impute(ctx, call, X, Xtest)
	if err != nil {
		return nil, t, err
	}
	if err := sameShape(X, Xi); err != nil {
		return nil, t, err
	}
	if err := sameShape(Xtest, XtI); err != nil {
		return nil, t, err
	}
	return &extFill{name: call.Method.Name, train: X, test: Xtest, trainFilled: Xi, testFilled: XtI}, t, nil
}

// sameShape checks that an external imputer returned a matrix of its
// input's shape.
func sameShape(in, out *mat.Dense) error {
	r, c := in.Dims()
	if out == nil {
		return fmt.Errorf("%w: the external imputer returned no matrix", ErrMethodOutput)
	}
	if r2, c2 := out.Dims(); r2 != r || c2 != c {
		return fmt.Errorf("%w: the external imputer returned %d × %d for %d × %d", ErrMethodOutput, r2, c2, r, c)
	}
	return nil
}

// DeferredFitSeconds returns the fitting time an external learner or
// classifier reported (0 for other learners). Such a learner runs when
// the model predicts, so this time elapsed during Predict (or
// PredictProba); the experiment runner moves it into the fit time.
func (f *Fitted) DeferredFitSeconds() float64 {
	if m, ok := f.model.(*extModel); ok {
		return m.timing.FitSeconds
	}
	if m, ok := f.cmodel.(*extClassModel); ok {
		return m.timing.FitSeconds
	}
	return 0
}
