package tree

import (
	"context"
	"fmt"
	"math"
	"math/big"
	"math/rand/v2"

	"gonum.org/v1/gonum/mat"

	"github.com/misslab/misslab/internal/learn/learnerr"
)

// ClassModel is a fitted classification tree: rpart's method "class" with
// Gini splits, data priors and the 0-1 loss (see the package comment). It
// is immutable and safe for concurrent PredictProba calls.
type ClassModel struct {
	tree   *Model    // structure and routing; a node's mean is its class code
	k      int       // classes: the columns of PredictProba
	nc     int       // rpart's numclass: the largest code in training, plus 1
	counts []float64 // counts[id*nc+j]: training entries of class j in node id
	prob   []float64 // prob[id*k+j]: rpart's yprob of class j in node id
}

// FitClass grows a classification tree on every row of X (n × d, NaN =
// NA) and the class codes y (n values in 0, 1, …, k−1, not every code
// need occur), k ≥ 2 classes, with the controls and missing-value
// strategy of p exactly as Fit uses them (MinBucket, MinSplit, MaxDepth
// and MaxSurrogate count training rows; CP is relative to the root's
// risk, its misclassified count). Splits minimise rpart's Gini score;
// nodes are summarised by their class counts, predicted class and
// probabilities as rpart 4.1.19 computes them. rng is the only source of
// randomness (Mtry draws, Prob coin flips); it must not be nil. Under
// Strategy Surrogate rows whose every feature is NA are dropped first, as
// rpart's na.rpart does.
//
// Errors wrap learnerr.ErrSetting (bad Params, k < 2) or
// learnerr.ErrInput (empty X, len(y) ≠ rows, a code that is not an
// integer in [0, k), ±Inf in X, NaN under NoMissing, a nil rng, every row
// NA under Surrogate), or are the context's error. FitClass does not
// retain X or y.
func FitClass(ctx context.Context, X *mat.Dense, y []float64, k int, p Params, rng *rand.Rand) (*ClassModel, error) {
	if rng == nil {
		return nil, fmt.Errorf("tree: nil random source: %w", learnerr.ErrInput)
	}
	if k < 2 {
		return nil, fmt.Errorf("tree: %d classes, a classifier needs at least 2: %w", k, learnerr.ErrSetting)
	}
	raw, err := checkTrain(X, y, p)
	if err != nil {
		return nil, err
	}
	for i, v := range y {
		if v < 0 || v >= float64(k) || v != math.Trunc(v) {
			return nil, fmt.Errorf("tree: class y[%d] = %v is not a code in [0, %d): %w", i, v, k, learnerr.ErrInput)
		}
	}
	entries, err := entryRows(raw, nil, p.Strategy == Surrogate)
	if err != nil {
		return nil, err
	}
	crit := newGini(y, entries)
	s := newSample(raw.Data, raw.Stride, raw.Cols, y, entries, crit.presort())
	g := newGrower(ctx, p, s, rng)
	crit.g, g.crit = g, crit
	t, err := g.run()
	if err != nil {
		return nil, err
	}
	m := &ClassModel{tree: t, k: k, nc: crit.nc, counts: crit.counts[:len(t.nodes)*crit.nc]}
	m.prob = crit.yprob(m.counts, k)
	return m, nil
}

// PredictProba returns the n × k matrix of class probabilities of the
// rows of X (columns: class codes 0..k−1; each row sums to 1 up to
// rounding): the probabilities of the node where the row stops, rpart's
// predict(type = "prob"). Rows are routed as Model.Predict routes them,
// NA included (under Surrogate a row missing a split's variable and all
// its surrogates where the children are equally large stops there and
// gets that node's probabilities, as in rpart). X must have the training
// set's number of columns; errors are Predict's.
func (m *ClassModel) PredictProba(ctx context.Context, X *mat.Dense) (*mat.Dense, error) {
	ids, err := m.tree.leaves(ctx, X)
	if err != nil {
		return nil, err
	}
	out := mat.NewDense(len(ids), m.k, nil)
	for i, id := range ids {
		copy(out.RawRowView(i), m.prob[int(id)*m.k:int(id+1)*m.k])
	}
	return out, nil
}

// yprob returns rpart's class probabilities of every node (k per node,
// zero beyond rpart's numclass) from their class counts: with N_j the
// training entries of class j and π_j = N_j/N its prior, node counts n_j
// give t_j = n_j·(π_j / max(1, N_j)) and probabilities t_j / Σ t, the sum
// accumulated in x87 extended precision as R's rowSums does on x86-64.
// With data priors these are the node's class proportions up to
// rounding.
func (c *gini) yprob(counts []float64, k int) []float64 {
	scale := make([]float64, c.nc)
	for j, nj := range c.total {
		scale[j] = c.total[j] / c.n / max(1, nj)
	}
	nodes := len(counts) / c.nc
	out := make([]float64, nodes*k)
	t := make([]float64, c.nc)
	for id := range nodes {
		for j := range t {
			t[j] = counts[id*c.nc+j] * scale[j]
		}
		sum := extendedSum(t)
		for j, v := range t {
			out[id*k+j] = v / sum
		}
	}
	return out
}

// extendedSum returns Σ v accumulated left to right with a 64-bit
// significand (x87 extended precision, round to nearest even) and then
// rounded to float64: R's sum and rowSums on x86-64.
func extendedSum(v []float64) float64 {
	acc := new(big.Float).SetPrec(64)
	var x big.Float
	for _, a := range v {
		acc.Add(acc, x.SetFloat64(a))
	}
	f, _ := acc.Float64()
	return f
}
