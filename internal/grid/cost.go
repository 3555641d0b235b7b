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
// (n_train = n_test = 1000, d = 9): the mean CPU time per pipeline of
// each learner family over one repetition of Figure 3's 37 pipelines
// (experiment's BenchmarkFigure3Rep, its per-family -s/op metrics: masks
// and imputers as the paper grids mix them), on an idle 2-core AMD EPYC
// (24 Nov 2026, after issue 14's third round; docs/BENCHMARKS.md): tree
// 0.9 ms, ctree 1.3 ms, forest (500 trees) 0.098 s, boost (500
// rounds) 0.054 s, svm 14.8 ms, knn 2.9 ms, linear 0.4 ms, Gaussian EM
// imputation 1.1 ms, sim.Generate 0.5 ms, BayesPredict 0.2 ms. The
// previous constants were measured on the same machine under load
// (load 4-9), which inflated them about 2×. The exponents are fitted on
// experiment's BenchmarkLarge (Figure 5's design, d = 10, 40% MCAR)
// between n_train = 10³ and 10⁵ on the same idle machine: forest 1.1
// (0.131 s, 1.40 s, 20.9 s), boost 0.96 (0.095 s, 0.75 s, 8.1 s), CART
// and ctree 1.05, KNN 1 (prediction linear in n_train), svm 2.1 (fitted
// to 3·10⁴ in the previous round: libsvm's kernel cache stops holding the
// working set past 10⁴ rows, and between 10⁴ and 3·10⁴ it grew as n^2.6,
// so estimates past 3·10⁴ are low). Figure 5's data (d = 10, every
// column incomplete) cost 1.2× (forest) to 1.7× (boost) Figure 3's at
// the same n. Cores is 2.
func DefaultCostModel() CostModel {
	return CostModel{
		Learners: map[string]PowerLaw{
			learn.Tree:   {0.0009, 1.05},
			learn.CTree:  {0.0013, 1.05},
			learn.Forest: {0.098, 1.1},
			learn.Boost:  {0.054, 0.96},
			learn.SVM:    {0.0148, 2.1},
			learn.KNN:    {0.0029, 1},
			learn.LinReg: {0.0004, 1},
			learn.Bayes:  {0.0002, 0},
		},
		Strategies: map[string]PowerLaw{
			learn.Gaussian: {0.0011, 1},
		},
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
