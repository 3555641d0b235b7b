package grid

import (
	"math"

	"github.com/misslab/misslab/internal/learn"
)

// PowerLaw is a cost law in n_train: Seconds·(n_train/1000)^Exponent.
type PowerLaw struct {
	Seconds  float64 // seconds at n_train = 1000
	Exponent float64 // growth with n_train: 1 linear, 2 quadratic
}

// At returns the law's seconds for a training set of n rows.
func (l PowerLaw) At(n int) float64 {
	return l.Seconds * math.Pow(float64(n)/1000, l.Exponent)
}

// Shape is what a fit's cost depends on besides its pipeline.
type Shape struct {
	N int // training rows
	// D is the number of columns the learner sees: the covariates (a
	// table's design columns), plus one indicator per maskable column for
	// a "+mask" pipeline. 0 means RefWidth.
	D int
	// Missing is the fraction of the training set's covariate cells that
	// are missing before imputation, in [0, 1].
	Missing float64
}

// RefWidth is the design width at which CostModel's learner laws are
// stated.
const RefWidth = 10

// Scaling is how a learner family's cost grows with a fit's shape
// besides n: the factor (D/RefWidth)^Width · (1 + Missing·Slope).
type Scaling struct {
	Width float64 // exponent of the design width (1: linear in the columns)
	Slope float64 // extra cost per unit of missing fraction
}

// factor returns the scaling's multiplier for shape sh.
func (s Scaling) factor(sh Shape) float64 {
	f := 1 + sh.Missing*s.Slope
	if sh.D > 0 && s.Width != 0 {
		f *= math.Pow(float64(sh.D)/RefWidth, s.Width)
	}
	return f
}

// CostModel estimates the CPU time of a sweep for `coordinator plan`. A
// pipeline's fit (training plus predicting the test set) costs its
// learner's law, scaled by the learner's Scaling of the fit's Shape, plus
// its strategy's law; each job also pays Job once (drawing the train and
// test sets). A forest's trees and boosting's rounds scale its cost
// (Linear); other settings, n_test (meant for n_test ≈ 1000) and how hard
// the target is to fit are ignored (the last moves a learner's cost by
// about ±20% between the paper's models at equal shape).
type CostModel struct {
	Learners   map[string]PowerLaw // per learner family (learn.Tree, ...), at D = RefWidth and nothing missing
	Scalings   map[string]Scaling  // per learner family; absent means no scaling (factor 1)
	Strategies map[string]PowerLaw // extra cost per strategy (e.g. Gaussian EM); absent means 0
	// Linear names, per learner family, the setting a fit's cost is
	// proportional to (the forest's trees, boosting's rounds): the laws
	// are stated at the setting's default, and a pipeline that sets it
	// pays in proportion. Absent means the settings are ignored.
	Linear   map[string]string
	Fallback PowerLaw // for learners missing from Learners
	// ExternalLearner and ExternalImputer are the cost of one call of an
	// external method (docs/METHODS.md), which misslab cannot know: a
	// guess from the shipped scikit-learn and R methods (see
	// DefaultCostModel); plan says so.
	ExternalLearner, ExternalImputer PowerLaw
	Job                              PowerLaw // per job, shared by its pipelines
	Cores                            int      // cores working on the grid, for wall time (< 1 means 1)
}

// DefaultCostModel returns single-core constants measured on an idle
// 2-core AMD EPYC (24 Nov 2026, after issue 14's third round;
// docs/BENCHMARKS.md). Cores is 2.
//
// Shape: experiment's BenchmarkShape fits each family at n_train = 1000
// on linear designs of d = 10, 20 and 40 complete columns (the width
// exponents: forest 0.59, boost 0.63, tree 1.1, ctree 0.37, svm 0.42,
// knn 0.69) and with 40% MCAR in every column, on the linear and
// Friedman models (the slopes, means of the two: forest 0.58, boost
// 1.41, tree 1.0, ctree 1.5, svm 1.3, knn 0.24; svm's two were 2.5 and
// 0.16, since its support vectors depend on how well it fits). Linear
// regression is taken as linear in d.
//
// Level: each family's constant is set so that the model gives the mean
// CPU time per pipeline measured on one repetition of Figure 3's 37
// pipelines (experiment's BenchmarkFigure3Rep, per-family -s/op: d = 9,
// 12 with the 3 mask columns, 6.7% of the cells missing): tree 0.9 ms,
// ctree 1.3 ms, forest (500 trees) 0.098 s, boost (500 rounds) 0.051 s
// (0.054 s before issue 14's sixth round, whose alternated A/B runs put
// boosting at 0.935 of its time at n = 1000 and 0.885 at 10⁵, and the
// forest at 1.0 and 0.88: the levels and growth exponents below follow),
// svm 9.1 ms (14.8 ms before the AVX2 loops of issue 14's fifth round,
// which took the SVM family's share of a repetition from 0.130 to
// 0.080 s on one machine, a ratio of 0.615), knn 2.9 ms; they are within 10% of BenchmarkShape's
// complete d = 10 linear design (forest 0.095 s, boost 0.047 s, knn 2.5
// ms, ctree 1.1 ms; the tree there is CART on mean-imputed data only).
// Also: linear 0.4 ms, Gaussian EM imputation 1.1 ms, sim.Generate 0.5
// ms, BayesPredict 0.2 ms.
//
// Growth in n: exponents fitted on experiment's BenchmarkLarge (Figure
// 5's design, d = 10, 40% MCAR) between n_train = 10³ and 10⁵: forest 1.1
// (0.131 s, 1.40 s, 20.9 s; 1.07 after the sixth round's large-node
// partition), boost 0.96 (0.095 s, 0.75 s, 8.1 s; 0.95 after it), CART
// and ctree 1.05, KNN 1 (prediction linear in n_train), svm 2.1 (fitted
// to 3·10⁴: libsvm's kernel cache stops holding the working set past 10⁴
// rows, and between 10⁴ and 3·10⁴ it grew as n^2.6, so estimates past
// 3·10⁴ are low).
func DefaultCostModel() CostModel {
	return CostModel{
		Learners: map[string]PowerLaw{
			learn.Tree:   {0.00081, 1.05},
			learn.CTree:  {0.00116, 1.05},
			learn.Forest: {0.093, 1.07},
			learn.Boost:  {0.0457, 0.95},
			learn.SVM:    {0.0082, 2.1},
			learn.KNN:    {0.00277, 1},
			learn.LinReg: {0.0004, 1},
			learn.Bayes:  {0.0002, 0},
		},
		Scalings: map[string]Scaling{
			learn.Tree:   {Width: 1.1, Slope: 1.0},
			learn.CTree:  {Width: 0.37, Slope: 1.5},
			learn.Forest: {Width: 0.59, Slope: 0.58},
			learn.Boost:  {Width: 0.63, Slope: 1.41},
			learn.SVM:    {Width: 0.42, Slope: 1.3},
			learn.KNN:    {Width: 0.69, Slope: 0.24},
			learn.LinReg: {Width: 1},
		},
		Strategies: map[string]PowerLaw{
			learn.Gaussian: {0.0011, 1},
		},
		Linear:   map[string]string{learn.Forest: "trees", learn.Boost: "rounds"},
		Fallback: PowerLaw{0.1, 1.1},
		// examples/byom.hcl on the same machine: scikit-learn's HGB 0.37 s
		// and R's rpart 0.06 s per fit + predict, KNNImputer 0.1 s and
		// IterativeImputer 0.06 s per call, protocol included.
		ExternalLearner: PowerLaw{0.3, 1},
		ExternalImputer: PowerLaw{0.1, 1},
		Job:             PowerLaw{0.0005, 1},
		Cores:           2,
	}
}

// FitSeconds returns the estimated seconds of one fit of pipeline on a
// training set of shape sh.
func (c CostModel) FitSeconds(pipeline Pipeline, sh Shape) float64 {
	spec := pipeline.Spec()
	law, ok := c.Learners[spec.Learner]
	switch {
	case spec.LearnerMethod.External():
		law = c.ExternalLearner
	case !ok:
		law = c.Fallback
	}
	imp := c.Strategies[spec.Strategy]
	if spec.ImputerMethod.External() {
		imp = c.ExternalImputer
	}
	scale := c.Scalings[spec.Learner]
	if spec.LearnerMethod.External() {
		scale = Scaling{}
	}
	return law.At(sh.N)*scale.factor(sh)*c.work(pipeline) + imp.At(sh.N)
}

// work returns the pipeline's value of its family's Linear setting over
// that setting's default: 1 when the family has none or the pipeline's
// learner is external.
func (c CostModel) work(p Pipeline) float64 {
	key, ok := c.Linear[p.Learner()]
	if !ok || p.Spec().LearnerMethod.External() {
		return 1
	}
	params, err := learn.ParamsOf(p.Learner())
	if err != nil {
		return 1
	}
	v, set := p.Resolved()[key]
	for _, q := range params {
		if q.Key == key && set && q.Default > 0 {
			return v / q.Default
		}
	}
	return 1
}

func (c CostModel) cores() int { return max(c.Cores, 1) }
