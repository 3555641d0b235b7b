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

// CostModel estimates the CPU time of a sweep for `coordinator plan`. A
// pipeline's fit (training plus predicting the test set) costs its
// learner's law plus its strategy's law; each job also pays Job once
// (drawing the train and test sets). Costs ignore d, n_test and the mask
// columns: they are meant for the paper's sizes (d ≈ 10, n_test ≈ 1000).
type CostModel struct {
	Learners   map[string]PowerLaw // per learner family (learn.Tree, ...)
	Strategies map[string]PowerLaw // extra cost per strategy (e.g. Gaussian EM); absent means 0
	Fallback   PowerLaw            // for learners missing from Learners
	// ExternalLearner and ExternalImputer are the cost of one call of an
	// external method (docs/METHODS.md), which misslab cannot know: a
	// guess from the shipped scikit-learn and R methods (see
	// DefaultCostModel); plan says so.
	ExternalLearner, ExternalImputer PowerLaw
	Job                              PowerLaw // per job, shared by its pipelines
	Cores                            int      // cores working on the grid, for wall time (< 1 means 1)
}

// DefaultCostModel returns single-core constants for the paper's sizes
// (n_train = n_test = 1000, d = 9), taken as CPU time from each
// package's fit + predict benchmark on a 2-core AMD EPYC shared with
// other work (24 Nov 2026, after issue 14's first speed-ups; the middle
// of two sessions 7 minutes apart that differed by up to 20%;
// docs/BENCHMARKS.md): tree 1.2 ms, ctree 1.8 ms, forest (500 trees)
// 0.23 s, boost (500 rounds) 0.105 s, svm 32 ms, knn 4.9 ms, linear
// 0.4 ms, Gaussian EM imputation 1.1 ms, sim.Generate 0.5 ms,
// BayesPredict 0.2 ms. With them the quickstart at --reps 5 (15 jobs)
// is estimated at 17.0 CPU-seconds; it measured 17.6 and 18.3
// (coordinator run, user + sys, report included), and one repetition
// of Figure 3's 37 pipelines at 2.59 s against 2.46-3.42 s
// (experiment's BenchmarkFigure3Rep). The exponents are fitted on
// experiment's BenchmarkLarge (Figure 5's design, d = 10, 40% MCAR)
// from n_train = 10³ to the largest size measured: forest 1.2 (10⁵),
// boost 1.05 (10⁵), svm 2.1 (3·10⁴: libsvm's kernel cache stops
// holding the working set past 10⁴ rows, and between 10⁴ and 3·10⁴ it
// grew as n^2.6, so estimates past 3·10⁴ are low), CART and ctree 1.1,
// KNN 1 (prediction linear in n_train). Figure 5's data (d = 10, every
// column incomplete) costs about 1.4× Figure 3's at the same n. Cores
// is 2.
func DefaultCostModel() CostModel {
	return CostModel{
		Learners: map[string]PowerLaw{
			learn.Tree:   {0.0012, 1.1},
			learn.CTree:  {0.0018, 1.1},
			learn.Forest: {0.23, 1.2},
			learn.Boost:  {0.105, 1.05},
			learn.SVM:    {0.032, 2.1},
			learn.KNN:    {0.0049, 1},
			learn.LinReg: {0.0004, 1},
			learn.Bayes:  {0.0002, 0},
		},
		Strategies: map[string]PowerLaw{
			learn.Gaussian: {0.0011, 1},
		},
		Fallback: PowerLaw{0.1, 1.2},
		// examples/byom.hcl on the same machine: scikit-learn's HGB 0.37 s
		// and R's rpart 0.06 s per fit + predict, KNNImputer 0.1 s and
		// IterativeImputer 0.06 s per call, protocol included.
		ExternalLearner: PowerLaw{0.3, 1},
		ExternalImputer: PowerLaw{0.1, 1},
		Job:             PowerLaw{0.0005, 1},
		Cores:           2,
	}
}

// FitSeconds returns the estimated seconds of one fit of pipeline on
// n_train rows.
func (c CostModel) FitSeconds(pipeline Pipeline, nTrain int) float64 {
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
	return law.At(nTrain) + imp.At(nTrain)
}

func (c CostModel) cores() int { return max(c.Cores, 1) }
