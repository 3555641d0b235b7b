package ctree

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"

	"gonum.org/v1/gonum/mat"

	"github.com/misslab/misslab/internal/learn/learnerr"
)

// Model is a fitted conditional inference tree. It is immutable and safe
// for concurrent Predict calls.
type Model struct {
	nodes []node
	tests []VarTest   // node tests are tests[testLo:testHi]
	surr  []surrogate // node surrogates are surr[surLo:surHi]
	d     int
	p     Params
	seed  [2]uint64 // Random: seed of the prediction-time draws
}

// node is one node of a tree, in preorder; feature < 0 marks a leaf.
type node struct {
	feature        int32
	left, right    int32
	threshold      float64 // observed x ≤ threshold goes left
	naLeft         bool    // Majority: rows without a usable surrogate go left
	pLeft          float64 // fraction of observed rows going left
	value          float64 // mean target of the training rows in the node
	n, depth       int32
	testLo, testHi int32
	surLo, surHi   int32
}

// surrogate is one surrogate split: a row observing feature goes left
// when (x ≤ thr) == lowLeft.
type surrogate struct {
	feature int
	thr     float64
	lowLeft bool
}

// Fit grows a conditional inference tree on every row of X (n × d, NaN =
// NA) and the n targets y, with partykit ctree's algorithm for a numeric
// response and numeric covariates:
//
//  1. In a node of n rows (a leaf if at MaxDepth or n < MinSplit), each
//     variable is tested for independence from y on the rows observing
//     it (see VarTest); p-values are adjusted per TestType.
//  2. If no criterion log(1 − p_adj) exceeds log(MinCriterion) the node
//     is a leaf. Otherwise the SplitTry best variables are tried in
//     order for the cut "x ≤ u" maximising the two-sample statistic with
//     at least max(MinBucket, ceil(n·MinProb)) observed rows per side.
//  3. Rows missing the split variable follow the surrogates
//     (MaxSurrogate > 0), then the Missing rule.
//
// With Missing = Majority the fitted tree equals partykit 1.2-16's
// ctree(y ~ ., data, control = ctree_control(..., majority = TRUE)) on
// the golden fixtures: same splits, per-variable statistics and p-values,
// leaf means and predictions. Deliberate differences from partykit:
//   - Surrogate cut search excludes the degenerate cut "x ≤ max x" that
//     partykit's minbucket = 0 admits and that libcoin's pseudo-inverse
//     sometimes scores +Inf (see TestGoldenStockSurrogates).
//   - Under Random, leaf means use the training rows as routed while
//     growing; partykit re-draws the NA rows' sides when it computes the
//     fitted nodes.
//   - ±Inf features are rejected (learnerr.ErrInput); an all-NA column is
//     simply never tested (partykit's inum() fails on it).
//   - Statistics use centred sums instead of libcoin's raw moments (equal
//     to rounding).
//   - Only numeric covariates and response (FitClass: a factor
//     response); no weights, mtry, maxvar, MIA, multiway, Monte-Carlo or
//     "maximum" test statistics.
//
// rng is the only source of randomness (Random routing at fit time and
// the seed of prediction-time draws); it must not be nil. Errors wrap
// learnerr.ErrSetting (bad Params) or learnerr.ErrInput (empty X, len(y)
// ≠ rows, a non-finite target, ±Inf in X, a nil rng), or are the
// context's error. Fit does not retain X or y.
func Fit(ctx context.Context, X *mat.Dense, y []float64, p Params, rng *rand.Rand) (*Model, error) {
	if rng == nil {
		return nil, fmt.Errorf("ctree: nil random source: %w", learnerr.ErrInput)
	}
	if err := p.validate(); err != nil {
		return nil, err
	}
	cols, err := checkTrain(X, y)
	if err != nil {
		return nil, err
	}
	g, err := growTree(ctx, cols, influence{y: y}, nil, 0, p, rng)
	if err != nil {
		return nil, err
	}
	return g.t, nil
}

// growTree grows a tree on the columns cols and the response h with
// controls p (already validated), counting per node the rows of each of
// nclass classes of codes when codes is not nil, and returns the grower
// holding the tree and the counts. Under Random it then draws the
// prediction seed.
func growTree(ctx context.Context, cols [][]float64, h influence, codes []float64, nclass int, p Params, rng *rand.Rand) (*grower, error) {
	n := len(h.y)
	t := &Model{d: len(cols), p: p}
	g := &grower{ctx: ctx, p: p, t: t, cols: cols, h: h, codes: codes, nclass: nclass, rng: rng,
		rows: make([]int32, n), scratch: make([]int32, n), side: make([]int8, n),
		z: make([]float64, n), cut: newCutter(cols)}
	for i := range g.rows {
		g.rows[i] = int32(i)
	}
	g.logMin = math.Log(p.MinCriterion)
	if _, err := g.grow(0, n, 0); err != nil {
		return nil, err
	}
	if p.Missing == Random {
		t.seed = [2]uint64{rng.Uint64(), rng.Uint64()}
	}
	return g, nil
}

// checkTrain validates X and y and returns X's columns (copied).
func checkTrain(X *mat.Dense, y []float64) ([][]float64, error) {
	if X == nil || X.IsEmpty() {
		return nil, fmt.Errorf("ctree: X has no rows or columns: %w", learnerr.ErrInput)
	}
	raw := X.RawMatrix()
	if len(y) != raw.Rows {
		return nil, fmt.Errorf("ctree: %d targets for %d rows: %w", len(y), raw.Rows, learnerr.ErrInput)
	}
	for i, v := range y {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return nil, fmt.Errorf("ctree: target y[%d] = %v is not finite: %w", i, v, learnerr.ErrInput)
		}
	}
	if err := checkInf(raw.Data, raw.Rows, raw.Cols, raw.Stride); err != nil {
		return nil, err
	}
	cols := make([][]float64, raw.Cols)
	flat := make([]float64, raw.Rows*raw.Cols)
	for j := range cols {
		cols[j] = flat[j*raw.Rows : (j+1)*raw.Rows]
		for i := range raw.Rows {
			cols[j][i] = raw.Data[i*raw.Stride+j]
		}
	}
	return cols, nil
}

// checkInf rejects ±Inf anywhere in a row-major matrix.
func checkInf(data []float64, rows, cols, stride int) error {
	for i := range rows {
		for j, v := range data[i*stride : i*stride+cols] {
			if math.IsInf(v, 0) {
				return fmt.Errorf("ctree: X[%d, %d] = %v is infinite (NaN marks NA): %w", i, j, v, learnerr.ErrInput)
			}
		}
	}
	return nil
}
