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
	"github.com/misslab/misslab/internal/stats"
	"github.com/misslab/misslab/internal/table"
	"gonum.org/v1/gonum/mat"
)

// Job is one (scenario, repetition[, fold]) of a sweep with the
// pipelines to score.
type Job struct {
	Seed      uint64          // the sweep's grid seed
	Scenario  sim.Scenario    // validated by sim.Generate
	Rep       int             // repetition number, ≥ 0
	Pipelines []grid.Pipeline // pipelines to run on the same data
	// Fold is the test fold of a table scenario's K-fold split, in
	// [0, K); 0 for a hold-out split and for simulated data.
	Fold int
	// Design is the table of a table scenario read as a design matrix
	// (table.Table.Design with the scenario's target, drop and
	// categorical columns); nil for simulated data. Callers read it once
	// per sweep and share it between jobs: Run never modifies it.
	Design *table.Design
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
	// Failures of external methods (see methodid.Method): a process that
	// crashed twice in a row, a call past the method's timeout, output
	// that breaks the protocol, and an error the method reported itself.
	// The message carries the method's stderr tail.
	KindMethodCrash   = "method-crash"
	KindMethodTimeout = "method-timeout"
	KindMethodOutput  = "method-output"
	KindMethodError   = "method-error"
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
	Pipeline string // grid.Pipeline.Canonical()
	// R2 is 1 − MSE / Var(Y): for simulated data Var(Y) is the true
	// population variance; for a table, whose law is unknown, it is the
	// variance of the test fold's own targets (divided by n_test).
	R2  float64
	MSE float64 // mean squared error on the test set
	MAE float64 // mean absolute error on the test set
	// ImputeRMSETrain and ImputeRMSETest are the root mean squared error
	// of the imputed values on the entries whose truth is known (every
	// NA of simulated data; the amputed cells of numeric columns of a
	// table), each column's errors divided by the sd of its known
	// training values; NaN when the pipeline does not estimate values
	// (learn.Spec.EstimatesValues) or no such entry exists.
	ImputeRMSETrain, ImputeRMSETest float64
	FitSeconds                      float64 // imputation + training wall time
	PredictSeconds                  float64 // test imputation + prediction wall time
	ErrKind                         string  // empty on success, else one of the Kind constants
	ErrMsg                          string
	// Class holds the scores of a classification task's class
	// probabilities; nil for a regression task and a failure. A
	// classification task has no R2, MSE and MAE: they are NaN.
	Class *stats.ClassScores
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
// "fit/"+pipeline.Label()), so results are identical whatever process runs the job
// and whatever other pipelines it runs. Run never panics because of a
// learner; such a panic is reported as KindPanic.
//
// A table scenario's job instead splits job.Design by the repetition's
// folds (package split), amputes the training rows with a model fitted
// on them alone and the test rows with the same model (package ampute),
// and fits with the stream sim.Stream(seed, scenario, unit, "fit/"+p)
// where unit = rep·K + fold.
func Run(ctx context.Context, job Job, env learn.Env) []Result {
	out := make([]Result, len(job.Pipelines))
	for i, p := range job.Pipelines {
		out[i].Pipeline = p.Canonical()
	}
	var data dataset
	var err error
	if job.Scenario.Table != nil {
		data, err = tableData(job)
	} else {
		data, err = simData(job)
	}
	if err == nil {
		for i, p := range job.Pipelines {
			out[i] = runOne(ctx, job, data, p, env)
		}
		return out
	}
	for i := range out {
		out[i].ErrKind, out[i].ErrMsg = KindData, err.Error()
		out[i].ImputeRMSETrain, out[i].ImputeRMSETest = math.NaN(), math.NaN()
	}
	return out
}

// simData draws a simulated job's repetition.
func simData(job Job) (dataset, error) {
	rep, err := sim.Generate(job.Scenario, job.Seed, job.Rep)
	if err != nil {
		return dataset{}, err
	}
	d := dataset{train: rep.Train.X, test: rep.Test.X, trainY: rep.Train.Y, testY: rep.Test.Y,
		key: job.Scenario.Canonical(), unit: job.Rep,
		truth: naTruth(rep.Train.X, rep.Train.Full, rep.Test.X, rep.Test.Full)}
	if job.Scenario.Task == sim.Binary {
		d.classes = 2
		return d, nil
	}
	if d.variance, _, err = sim.Variance(job.Scenario); err != nil {
		return dataset{}, err
	}
	return d, nil
}

// runOne fits and scores one pipeline, converting a panic into a result.
func runOne(ctx context.Context, job Job, data dataset, p grid.Pipeline, env learn.Env) (res Result) {
	res.Pipeline = p.Canonical()
	res.ImputeRMSETrain, res.ImputeRMSETest = math.NaN(), math.NaN()
	defer func() {
		if r := recover(); r != nil {
			res = Result{Pipeline: p.Canonical(), ErrKind: KindPanic,
				ErrMsg: fmt.Sprintf("%v\n%s", r, debug.Stack()), ImputeRMSETrain: math.NaN(), ImputeRMSETest: math.NaN()}
		}
	}()
	if err := ctx.Err(); err != nil {
		res.ErrKind, res.ErrMsg = KindCanceled, err.Error()
		return res
	}
	o, kind, err := predict(ctx, job, data, p, env)
	if err != nil {
		if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
			kind = KindCanceled
		}
		res.ErrKind, res.ErrMsg = kind, err.Error()
		return res
	}
	if data.classes > 0 {
		return scoreClasses(res, data, o)
	}
	mse := MSE(o.pred, data.testY)
	if math.IsNaN(mse) || math.IsInf(mse, 0) {
		res.ErrKind, res.ErrMsg = KindPredict, fmt.Sprintf("%d predictions for %d test rows, or a non-finite prediction", len(o.pred), len(data.testY))
		return res
	}
	res.FitSeconds, res.PredictSeconds = o.fitSec, o.predSec
	res.MSE, res.R2, res.MAE = mse, 1-mse/data.variance, MAE(o.pred, data.testY)
	res.Root, res.RootThreshold = o.root.name, o.root.threshold
	if o.fitted != nil && data.truth != nil {
		res.ImputeRMSETrain, res.ImputeRMSETest, err = data.truth.score(o.fitted, data.train, data.test)
		if err != nil {
			return Result{Pipeline: p.Canonical(), ErrKind: KindPredict, ErrMsg: err.Error(),
				ImputeRMSETrain: math.NaN(), ImputeRMSETest: math.NaN()}
		}
	}
	return res
}

// rootSplit is a fitted tree's first split.
type rootSplit struct {
	name      string
	threshold float64
}

// outcome is what predict returns for one pipeline.
type outcome struct {
	pred            []float64  // a regression's predictions
	proba           *mat.Dense // a classification's n × k class probabilities
	root            rootSplit
	fitSec, predSec float64
	fitted          *learn.Fitted // nil for the Bayes oracle
}

// predict fits pipeline p on the training set and predicts the test set.
func predict(ctx context.Context, job Job, data dataset, p grid.Pipeline, env learn.Env) (o outcome, kind string, err error) {
	if p.IsBayes() {
		if !sim.HasBayes(job.Scenario) {
			return o, KindUnavailable, noBayes(job.Scenario)
		}
		if data.classes > 0 {
			return o, KindUnavailable, noBayes(job.Scenario)
		}
		start := time.Now()
		o.pred, err = sim.BayesPredict(job.Scenario, data.test)
		o.predSec = time.Since(start).Seconds()
		return o, KindPredict, err
	}
	env.Classes = data.classes
	pl, err := learn.NewFromSpec(p.Spec(), p.Overrides(), env)
	if err != nil {
		return o, KindPipeline, err
	}
	rng := sim.Stream(job.Seed, data.key, data.unit, "fit/"+p.Label())
	start := time.Now()
	fitted, err := pl.FitWith(ctx, data.train, data.trainY, data.test, rng)
	o.fitSec = time.Since(start).Seconds()
	if err != nil {
		return o, methodKind(err, KindFit), err
	}
	if name, thr, ok := fitted.RootSplit(); ok {
		o.root = rootSplit{name, thr}
	}
	start = time.Now()
	if data.classes > 0 {
		o.proba, err = fitted.PredictProba(ctx, data.test)
	} else {
		o.pred, err = fitted.Predict(ctx, data.test)
	}
	o.predSec = time.Since(start).Seconds()
	if err != nil {
		return o, methodKind(err, KindPredict), err
	}
	if d := fitted.DeferredFitSeconds(); d > 0 { // an external learner fits when it predicts
		d = min(d, o.predSec)
		o.fitSec, o.predSec = o.fitSec+d, o.predSec-d
	}
	o.fitted = fitted
	return o, "", nil
}

// methodKind returns the kind of an external method's failure, or def.
func methodKind(err error, def string) string {
	for _, k := range []struct {
		err  error
		kind string
	}{{learn.ErrMethodCrash, KindMethodCrash}, {learn.ErrMethodTimeout, KindMethodTimeout},
		{learn.ErrMethodOutput, KindMethodOutput}, {learn.ErrMethodFailed, KindMethodError}} {
		if errors.Is(err, k.err) {
			return k.kind
		}
	}
	return def
}

// noBayes explains why a scenario has no Bayes predictor.
func noBayes(s sim.Scenario) error {
	if s.Table != nil {
		return fmt.Errorf("no Bayes predictor for a table (%s): its law is unknown", s.Table.Name)
	}
	if sim.IsClassification(s.Task) {
		return fmt.Errorf("no Bayes classifier yet for model %q under mechanism %q", s.Model, s.Mechanism)
	}
	return fmt.Errorf("no Bayes predictor for model %q under mechanism %q", s.Model, s.Mechanism)
}

// MAE returns the mean absolute error between predictions and targets,
// NaN when the lengths differ or are zero.
func MAE(pred, y []float64) float64 {
	if len(pred) != len(y) || len(y) == 0 {
		return math.NaN()
	}
	var s float64
	for i, v := range pred {
		s += math.Abs(v - y[i])
	}
	return s / float64(len(y))
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
