package sim

import (
	"fmt"
	"math"
	"slices"
	"strconv"
)

// Task names accepted in Scenario.Task. The empty task is Regression.
const (
	// Regression: Y = η(X, M) + ε, a real number (every model).
	Regression = "regression"
	// Binary: Y ∈ {0, 1} with P(Y = 1 | X, M) = σ(Scale·(η(X, M) −
	// Threshold)), σ the logistic function and η the regression function
	// of the same model (its signal plus the predictive mechanism's
	// 2·Σ_j M_j): the paper's models turned into classification tasks
	// through a logistic link, as in Le Morvan et al. (2020)'s and
	// Perez-Lebel et al. (2022)'s simulations. Models with Gaussian
	// covariates or Model 4 only.
	Binary = "binary"
	// Multiclass: a table whose target has more than two levels.
	Multiclass = "multiclass"
)

// Tasks lists the task names of simulated data in a stable order.
var Tasks = []string{Regression, Binary}

// IsClassification reports whether task is Binary or Multiclass.
func IsClassification(task string) bool { return task == Binary || task == Multiclass }

// binaryModels are the models a binary task can be made of: the toy
// settings are the paper's regression examples, with their own closed
// forms, and stay regression tasks.
var binaryModels = []string{Quadratic, Linear, Friedman, Nonlinear, NonlinearHigh}

// defaultScales are the scales a of DefaultScale: with the threshold at
// the median of η(X) (MedianThreshold) and complete data, the Bayes
// classifier's accuracy E[max(p, 1 − p)], p = σ(a(η − c)), is 0.85 at the
// paper's defaults of each model (ρ = 0.5; d = 9 for the quadratic model,
// 10 for the others), as TestDefaultScales checks (Monte Carlo, within
// ±0.002). A scale is per unit of η, so it shrinks as a model's signal
// spreads: the medians are 4.197 (quadratic), 5.600 (linear), 29.20
// (friedman), 6.891 (nonlinear) and 68.96 (nonlinear-high).
var defaultScales = map[string]float64{
	Quadratic:     0.782,
	Linear:        0.667,
	Friedman:      0.127,
	Nonlinear:     0.321,
	NonlinearHigh: 0.0321,
}

// positiveRates are P(Y = 1) of each model's binary task at its defaults
// (see defaultScales): the median threshold splits η in half, so the
// Bayes classifier predicts each class for half the population, but where
// η is skewed to the right (every model but the linear one) the logistic
// link makes ones a little more frequent. TestDefaultScales checks them.
var positiveRates = map[string]float64{
	Quadratic:     0.532,
	Linear:        0.500,
	Friedman:      0.524,
	Nonlinear:     0.547,
	NonlinearHigh: 0.547,
}

// DefaultScale returns the scale a of model's binary task (see
// defaultScales), 0 for a model without one.
func DefaultScale(model string) float64 { return defaultScales[model] }

// BinaryThresholdDraws is the number of Monte Carlo draws behind
// MedianThreshold.
const BinaryThresholdDraws = 1 << 20

// MedianThreshold returns the median of the signal f(X) (complete
// covariates, no mask term) under the law of X of s: with this threshold
// the Bayes classifier of complete data predicts each class for half the
// population, and the classes have about equal size (see positiveRates). It is a population constant: the middle
// order statistic of BinaryThresholdDraws draws from the stream
// Stream(0, key, 0, "signal-median"), where key encodes (model, d, ρ)
// only, computed once per process and cached, so every worker uses the
// same bits. Its standard error is about 1.3/√N standard deviations of
// f(X) (0.005 for the quadratic model). Errors wrap ErrInvalid for a
// model without a binary task.
func MedianThreshold(model string, d int, rho float64) (float64, error) {
	if !slices.Contains(binaryModels, model) {
		return 0, fmt.Errorf("%w: model %q has no binary task (models with one: %v)", ErrInvalid, model, binaryModels)
	}
	s, err := Defaults(model)
	if err != nil {
		return 0, err
	}
	s.D, s.Rho = d, rho
	if err := s.Validate(); err != nil {
		return 0, err
	}
	s = Scenario{Model: model, D: d, Rho: rho} // the law of X alone
	key := s.Population()
	return signalMedianCache.get(key, func() float64 { return mcSignalMedian(s, key) }), nil
}

var signalMedianCache onceCache[float64]

// mcSignalMedian is MedianThreshold's Monte Carlo estimate.
func mcSignalMedian(s Scenario, key string) float64 {
	l := newLaw(s)
	r := Stream(0, key, 0, "signal-median")
	x := make([]float64, s.D)
	f := make([]float64, BinaryThresholdDraws)
	for i := range f {
		l.drawX(r, x)
		f[i] = l.signal(x)
	}
	return nthSmallest(f, BinaryThresholdDraws/2)
}

// validateTask checks the task fields of a simulated scenario.
func (s Scenario) validateTask() error {
	switch s.Task {
	case "", Regression:
		if s.Scale != 0 || s.Threshold != 0 {
			return fmt.Errorf("%w: scale and threshold are set, but the task is regression (set task = %q)", ErrInvalid, Binary)
		}
		return nil
	case Binary:
	default:
		return fmt.Errorf("%w: task %q is unknown for simulated data (known: %v)", ErrInvalid, s.Task, Tasks)
	}
	switch {
	case !slices.Contains(binaryModels, s.Model):
		return fmt.Errorf("%w: model %q has no binary task: the toy settings are the paper's regression examples "+
			"(models with one: %v)", ErrInvalid, s.Model, binaryModels)
	case !(s.Scale > 0) || math.IsInf(s.Scale, 0):
		return fmt.Errorf("%w: scale = %v must be a finite number > 0", ErrInvalid, s.Scale)
	case math.IsNaN(s.Threshold) || math.IsInf(s.Threshold, 0):
		return fmt.Errorf("%w: threshold = %v must be finite", ErrInvalid, s.Threshold)
	case s.Noise != 0:
		return fmt.Errorf("%w: noise = %v with task %q: the randomness of a binary target is its Bernoulli draw; "+
			"noise must be 0", ErrInvalid, s.Noise, Binary)
	}
	return nil
}

// taskCanonical is the part of Canonical that names a classification
// task; empty for regression, so that regression identities (and every
// result stored under them) are unchanged.
func (s Scenario) taskCanonical() string {
	if s.Task == "" || s.Task == Regression {
		return ""
	}
	f := func(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }
	if s.Table != nil {
		return ";task=" + s.Task
	}
	return ";task=" + s.Task + ";scale=" + f(s.Scale) + ";threshold=" + f(s.Threshold)
}

// binaryProb returns P(Y = 1 | η) = σ(a(η − c)).
func (l *law) binaryProb(eta float64) float64 { return sigmoid(l.s.Scale * (eta - l.s.Threshold)) }
