package plan

import (
	"math"

	"github.com/misslab/misslab/internal/grid"
	"github.com/misslab/misslab/internal/learn"
)

// PowerLaw is a cost law in n_train: Seconds·(n_train/1000)^Exponent,
// and past each Bend's rows a power law of the bend's exponent that
// continues the curve (piecewise linear in log–log): a learner whose
// working set leaves a cache level at large n grows faster there.
type PowerLaw struct {
	Seconds  float64 // seconds at n_train = 1000
	Exponent float64 // growth with n_train up to the first bend: 1 linear, 2 quadratic
	Bends    []Bend  // by ascending Rows, each above 1000; none: Exponent throughout
}

// Bend sets a PowerLaw's exponent from Rows training rows on.
type Bend struct {
	Rows     int
	Exponent float64
}

// At returns the law's seconds for a training set of n rows.
func (l PowerLaw) At(n int) float64 {
	x := float64(n)
	s, from, e := l.Seconds, 1000.0, l.Exponent
	for _, b := range l.Bends {
		r := float64(b.Rows)
		if x <= r {
			break
		}
		s *= math.Pow(r/from, e)
		from, e = r, b.Exponent
	}
	return s * math.Pow(x/from, e)
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
	// Classes is the number of classes of a classification task, 0 for
	// regression.
	Classes int
}

// ClassCost is how a learner family's cost changes when it classifies:
// a fit of k classes costs its regression cost (same shape) times Binary
// for k = 2 and Multi·(k/3)^Growth for k ≥ 3 (boosting grows k trees a
// round, the SVM fits k(k−1)/2 pairs, multinomial logistic regression
// has (k−1)·(p+1) weights).
type ClassCost struct {
	Binary, Multi, Growth float64
}

// factor returns the multiplier for k classes (1 for regression, k = 0).
func (c ClassCost) factor(k int) float64 {
	switch {
	case k == 0:
		return 1
	case k == 2:
		return c.Binary
	}
	return c.Multi * math.Pow(float64(k)/3, c.Growth)
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
	// Classify is, per learner family, its cost as a classifier relative
	// to its regression cost; absent means 1.
	Classify map[string]ClassCost
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
// 2-core cloud VM (Intel Xeon, 2 MiB L2 per core; 25 Nov 2026, after
// issue 14's sixth round; docs/BENCHMARKS.md), a typical machine rather
// than the fastest seen: the same benchmarks ran 1.07–1.33× faster on
// the AMD EPYC VM of the third round, on which the model was calibrated
// before. Cores is 2.
//
// Shape: experiment's BenchmarkShape fits each family at n_train = 1000
// on linear designs of d = 10, 20 and 40 complete columns (the width
// exponents: forest 0.59, boost 0.63, tree 1.1, ctree 0.37, svm 0.42,
// knn 0.69) and with 40% MCAR in every column, on the linear and
// Friedman models (the slopes, means of the two: forest 0.58, boost
// 1.41, tree 1.0, ctree 1.5, svm 1.3, knn 0.24; svm's two were 2.5 and
// 0.16, since its support vectors depend on how well it fits). Linear
// regression is taken as linear in d. These are ratios, measured on the
// EPYC VM; the Friedman design's boost slope came out at 1.43 again on
// the Xeon.
//
// Level: each family's constant is set so that the model gives the mean
// CPU time per pipeline measured on one repetition of Figure 3's 37
// pipelines (experiment's BenchmarkFigure3Rep, two runs of 10, per-family
// -s/op over its pipelines: d = 9, 12 with the 3 mask columns, 6.7% of
// the cells missing): tree 1.07 ms, ctree 1.33 ms, forest (500 trees)
// 0.1045 s, boost (500 rounds) 0.0672 s, svm 11.5 ms, knn 3.86 ms. Also:
// linear 0.4 ms, Gaussian EM imputation 1.1 ms, sim.Generate 0.5 ms,
// BayesPredict 0.2 ms (EPYC).
//
// Imputers, from impute's BenchmarkImputeCost (fit, then imputing the
// training set and 1000 test rows, on Figure 3's design, d = 9; on a
// 2-core Xeon VM where the Gaussian EM took 1.14 ms at n = 1000, as
// above): scikit-learn's IterativeImputer (iterative) 3.84, 10.1 and
// 31.7 ms at n_train = 10³, 3·10³ and 10⁴ (n^0.92); KNNImputer (knn)
// 18.3, 106 and 995 ms (n^1.60, then n^1.86: every training row is
// imputed from all the others, so the cost tends to n², assumed past
// 10⁴). Neither law follows the width: iterative grows about as d³ (d
// regressions on d − 1 columns a round) and knn as d.
//
// Growth in n, from experiment's BenchmarkLarge on the same VM (Figure
// 5's design: Friedman model, d = 10, 40% MCAR): the forest grew as
// n^1.09 from 10³ to 10⁴ and n^1.18 from 10⁴ to 10⁵ (mean-imputed
// 0.126, 1.56, 23.8 s; MIA 0.141, 1.69, 25.2 s: its working set leaves
// the core's cache), boosting as n^0.91 then n^1.0 (0.106, 0.856, 8.54
// s; MIA 0.105, 0.858, 8.69 s), the SVM as n^1.85 to 10⁴ and n^2.68 from
// 10⁴ to 3·10⁴ (0.015, 0.094 at 3·10³, 1.05, 20.0 s: libsvm's kernel
// cache stops holding the working set), CART as n^1.05 (0.0188 s at 10⁴,
// 0.211 s at 10⁵), ctree as n^1.16 (2.5, 36.5 ms), KNN as n^1
// (prediction linear in n_train; 0.85 measured to 10⁴). Checked on
// `coordinator run` on that VM, CPU measured against planned: 385 s
// against 389 s for examples/figure5-large.hcl --reps 1 (292 s by the
// previous model: single exponents, EPYC levels), where a fit at 10⁵
// took 21.7 s for the forest and 9.0 s for boosting (planned 22.5 and
// 7.7 s); figure3 --reps 20 85 s (79), figure4 --reps 10 24.7 s (24.5),
// figure5 --reps 2 74 s (75), quickstart 57 s (51), appendix --reps 1
// 33 s (24; its fits took 25.9 s, the rest is the report of 18
// scenarios, which the model leaves out).
func DefaultCostModel() CostModel {
	return CostModel{
		Learners: map[string]PowerLaw{
			learn.Tree:   {Seconds: 0.000962, Exponent: 1.05},
			learn.CTree:  {Seconds: 0.00119, Exponent: 1.16},
			learn.Forest: {Seconds: 0.0991, Exponent: 1.09, Bends: []Bend{{Rows: 10000, Exponent: 1.18}}},
			learn.Boost:  {Seconds: 0.0604, Exponent: 0.91, Bends: []Bend{{Rows: 10000, Exponent: 1.0}}},
			learn.SVM:    {Seconds: 0.01036, Exponent: 1.85, Bends: []Bend{{Rows: 10000, Exponent: 2.68}}},
			learn.KNN:    {Seconds: 0.00369, Exponent: 1},
			learn.LinReg: {Seconds: 0.0004, Exponent: 1},
			learn.Bayes:  {Seconds: 0.0002, Exponent: 0},
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
			learn.Gaussian:  {Seconds: 0.0011, Exponent: 1},
			learn.Iterative: {Seconds: 0.00384, Exponent: 0.92},
			learn.KNNImpute: {Seconds: 0.0183, Exponent: 1.6, Bends: []Bend{{Rows: 3000, Exponent: 1.86}, {Rows: 10000, Exponent: 2}}},
		},
		Classify: DefaultClassCosts(),
		Linear:   map[string]string{learn.Forest: "trees", learn.Boost: "rounds"},
		Fallback: PowerLaw{Seconds: 0.1, Exponent: 1.1},
		// examples/byom.hcl on the same machine: scikit-learn's HGB 0.37 s
		// and R's rpart 0.06 s per fit + predict, KNNImputer 0.1 s and
		// IterativeImputer 0.06 s per call, protocol included.
		ExternalLearner: PowerLaw{Seconds: 0.3, Exponent: 1},
		ExternalImputer: PowerLaw{Seconds: 0.1, Exponent: 1},
		Job:             PowerLaw{Seconds: 0.0005, Exponent: 1},
		Cores:           2,
	}
}

// FitSeconds returns the estimated seconds of one fit of pipeline on a
// training set of shape sh.
func (c CostModel) FitSeconds(pipeline grid.Pipeline, sh Shape) float64 {
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
	class := 1.0
	if cc, ok := c.Classify[spec.Learner]; ok && !spec.LearnerMethod.External() {
		class = cc.factor(sh.Classes)
	}
	return law.At(sh.N)*scale.factor(sh)*c.work(pipeline)*class + imp.At(sh.N)
}

// work returns the pipeline's value of its family's Linear setting over
// that setting's default: 1 when the family has none or the pipeline's
// learner is external.
func (c CostModel) work(p grid.Pipeline) float64 {
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

// DefaultClassCosts are the classification factors of DefaultCostModel,
// from learn's BenchmarkClassCost (each family's mean-imputed pipeline
// at n_train = n_test = 1000, d = 10, 10% MCAR, k = 2, 3, 5 and 10
// equal-mass classes, against the same fits as a regression): tree 1.06
// at k = 2, 1.17 at 3, 2.0 at 10 (Gini over k classes); ctree 1.03,
// 1.2, 1.3; the probability forest 0.56, 0.72, 0.91 (ranger's
// min.node.size 10 for probabilities against 5: smaller trees); boosting 0.87,
// 2.9, 7.2 (k trees a round from k = 3); the SVM 1.65 (Platt's five
// cross-validated fits, on a dual easier than eps-regression's), 1.0,
// 2.5; knn3 about 1.05 whatever k; logistic regression 3.1 for glm's
// IRLS, and multinom's BFGS 190 at k = 3 to 1100 at k = 10 (its
// correctly rounded exp, which keeps it equal to R's, dominates).
func DefaultClassCosts() map[string]ClassCost {
	return map[string]ClassCost{
		learn.Tree:   {Binary: 1.06, Multi: 1.17, Growth: 0.45},
		learn.CTree:  {Binary: 1.03, Multi: 1.2, Growth: 0.12},
		learn.Forest: {Binary: 0.56, Multi: 0.72, Growth: 0.22},
		learn.Boost:  {Binary: 0.87, Multi: 2.9, Growth: 0.76},
		learn.SVM:    {Binary: 1.65, Multi: 1.02, Growth: 0.74},
		learn.KNN:    {Binary: 1.05, Multi: 1.09},
		learn.LinReg: {Binary: 3.1, Multi: 193, Growth: 1.46},
	}
}
