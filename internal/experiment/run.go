package experiment

import (
	"context"
	"errors"
	"fmt"
	"math"
	"runtime/debug"
	"time"

	"github.com/misslab/misslab/internal/grid"
	"github.com/misslab/misslab/internal/learn"
	"github.com/misslab/misslab/internal/sim"
)

// Job is one (scenario, repetition) of a sweep with the pipelines to score.
type Job struct {
	Seed      uint64          // the sweep's grid seed
	Scenario  sim.Scenario    // validated by sim.Generate
	Rep       int             // repetition number, ≥ 0
	Pipelines []grid.Pipeline // pipelines to run on the same data
}

// Error kinds reported in Result.ErrKind. They are stable strings that
// the store and the report group failures by.
const (
	KindData     = "data"     // the scenario could not be drawn
	KindPipeline = "pipeline" // the learner refused settings its grid.Pipeline had resolved (a bug)
	KindFit      = "fit"      // the pipeline failed to fit
	KindPredict  = "predict"  // the fitted pipeline failed to predict
	KindPanic    = "panic"    // a learner panicked (a bug; the worker survives)
	KindCanceled = "canceled" // the job's context ended first
	// KindUnavailable marks a pipeline that has no meaning for the
	// scenario: the Bayes oracle where misslab has no Bayes predictor
	// (censoring MNAR on the Friedman, Model 4 and toy models; see
	// sim.HasBayes). Reports show it as "not available",
	// not as a failure.
	KindUnavailable = "unavailable"
)

// Result is the score of one pipeline on one job. On failure ErrKind and
// ErrMsg are set and the numeric fields are zero.
type Result struct {
	Pipeline       string  // grid.Pipeline.Canonical()
	R2             float64 // 1 − MSE / Var(Y), Var(Y) the true population variance
	MSE            float64 // mean squared error on the test set
	FitSeconds     float64 // imputation + training wall time
	PredictSeconds float64 // test imputation + prediction wall time
	ErrKind        string  // empty on success, else one of the Kind constants
	ErrMsg         string
	// Root names the first split of a tree pipeline ("X1", "M2"; see
	// learn.Fitted.RootSplit) and RootThreshold its threshold; Root is
	// empty for other learners and for trees that did not split.
	Root          string
	RootThreshold float64
}

// Failed reports whether the pipeline produced no score.
func (r Result) Failed() bool { return r.ErrKind != "" }

// Run draws the job's repetition once and scores every pipeline on it, in
// order. Scores depend only on (seed, scenario, rep, pipeline): each
// pipeline's random stream is sim.Stream(seed, scenario, rep,
// "fit/"+pipeline), so results are identical whatever process runs the job
// and whatever other pipelines it runs. Run never panics because of a
// learner; such a panic is reported as KindPanic.
func Run(ctx context.Context, job Job, env learn.Env) []Result {
	out := make([]Result, len(job.Pipelines))
	for i, p := range job.Pipelines {
		out[i].Pipeline = p.Canonical()
	}
	data, err := sim.Generate(job.Scenario, job.Seed, job.Rep)
	if err == nil {
		var v float64
		if v, _, err = sim.Variance(job.Scenario); err == nil {
			for i, p := range job.Pipelines {
				out[i] = runOne(ctx, job, data, v, p, env)
			}
			return out
		}
	}
	for i := range out {
		out[i].ErrKind, out[i].ErrMsg = KindData, err.Error()
	}
	return out
}

// runOne fits and scores one pipeline, converting a panic into a result.
func runOne(ctx context.Context, job Job, data sim.Rep, variance float64, p grid.Pipeline, env learn.Env) (res Result) {
	res.Pipeline = p.Canonical()
	defer func() {
		if r := recover(); r != nil {
			res = Result{Pipeline: p.Canonical(), ErrKind: KindPanic,
				ErrMsg: fmt.Sprintf("%v\n%s", r, debug.Stack())}
		}
	}()
	if err := ctx.Err(); err != nil {
		res.ErrKind, res.ErrMsg = KindCanceled, err.Error()
		return res
	}
	pred, root, fitSec, predSec, kind, err := predict(ctx, job, data, p, env)
	if err != nil {
		if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
			kind = KindCanceled
		}
		res.ErrKind, res.ErrMsg = kind, err.Error()
		return res
	}
	mse := MSE(pred, data.Test.Y)
	if math.IsNaN(mse) || math.IsInf(mse, 0) {
		res.ErrKind, res.ErrMsg = KindPredict, fmt.Sprintf("%d predictions for %d test rows, or a non-finite prediction", len(pred), len(data.Test.Y))
		return res
	}
	res.FitSeconds, res.PredictSeconds = fitSec, predSec
	res.MSE, res.R2 = mse, 1-mse/variance
	res.Root, res.RootThreshold = root.name, root.threshold
	return res
}

// rootSplit is a fitted tree's first split.
type rootSplit struct {
	name      string
	threshold float64
}

// predict returns the test predictions of pipeline p, its root split and
// its timings.
func predict(ctx context.Context, job Job, data sim.Rep, p grid.Pipeline, env learn.Env) (pred []float64, root rootSplit, fitSec, predSec float64, kind string, err error) {
	if p.IsBayes() {
		if !sim.HasBayes(job.Scenario) {
			return nil, root, 0, 0, KindUnavailable, fmt.Errorf("no Bayes predictor for model %q under mechanism %q", job.Scenario.Model, job.Scenario.Mechanism)
		}
		start := time.Now()
		pred, err = sim.BayesPredict(job.Scenario, data.Test.X)
		return pred, root, 0, time.Since(start).Seconds(), KindPredict, err
	}
	pl, err := learn.NewFromSpec(p.Spec(), p.Overrides(), env)
	if err != nil {
		return nil, root, 0, 0, KindPipeline, err
	}
	rng := sim.Stream(job.Seed, job.Scenario.Canonical(), job.Rep, "fit/"+p.Canonical())
	start := time.Now()
	fitted, err := pl.Fit(ctx, data.Train.X, data.Train.Y, rng)
	fitSec = time.Since(start).Seconds()
	if err != nil {
		return nil, root, fitSec, 0, KindFit, err
	}
	if name, thr, ok := fitted.RootSplit(); ok {
		root = rootSplit{name, thr}
	}
	start = time.Now()
	pred, err = fitted.Predict(ctx, data.Test.X)
	predSec = time.Since(start).Seconds()
	if err != nil {
		return nil, root, fitSec, predSec, KindPredict, err
	}
	return pred, root, fitSec, predSec, "", nil
}

// MSE returns the mean squared error between predictions and targets,
// NaN when the lengths differ or are zero; ±Inf or NaN when a prediction is.
func MSE(pred, y []float64) float64 {
	if len(pred) != len(y) || len(y) == 0 {
		return math.NaN()
	}
	var s float64
	for i, v := range pred {
		d := v - y[i]
		s += d * d
	}
	return s / float64(len(y))
}
