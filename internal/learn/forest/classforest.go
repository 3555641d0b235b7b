package forest

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"unsafe"

	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/mat"

	"github.com/misslab/misslab/internal/learn/learnerr"
	"github.com/misslab/misslab/internal/learn/tree"
)

// ClassModel is a fitted probability forest. It is immutable and safe
// for concurrent PredictProba calls.
type ClassModel struct {
	f       Model       // the trees; a leaf's v is the offset of its fractions in fracs[t]
	fracs   [][]float64 // fracs[t]: tree t's leaf class fractions, k per leaf
	k       int
	minNode int
}

// maxClasses bounds k: class codes are stored in 32 bits.
const maxClasses = math.MaxInt32

// FitClass grows a probability forest as ranger 0.14.1's
// ranger(probability = TRUE) does (src/TreeProbability.cpp,
// src/ForestProbability.cpp) on X (n × d, NaN = NA under Strategy MIA)
// and the class codes y (n values in 0, 1, …, k−1 stored as float64; not
// every code need occur), k ≥ 2 classes:
//   - the rows of each tree, the candidate columns of each node, their
//     order, the midpoint thresholds, the size, depth and purity stops
//     and MIA are those of Fit (see there), with class codes as targets;
//   - a split maximises ranger's Gini decrease Σ_j L_j²/N_L + Σ_j R_j²/N_R
//     (L_j, R_j: in-bag entries of class j in each child, a row drawn m
//     times counting m times), computed in float64 as ranger computes it;
//     a later candidate must be strictly better;
//   - a leaf holds the class fractions of its in-bag entries, and
//     PredictProba averages them over the trees.
//
// Defaults follow ranger's for a probability forest: MinNodeSize 0 means
// DefaultMinNodeSizeProbability (10), Mtry 0 means max(1, ⌊√d⌋), and
// RangerClassDefaults gives 500 trees drawn with replacement, n rows each.
// ranger 0.14 accepts no NA: under MIA the forest is the extension of
// ranger's rule that Fit documents, with the Gini decrease.
//
// rng is the only source of randomness and must not be nil; the forest
// does not depend on p.Threads. Errors wrap learnerr.ErrSetting (bad
// Params, k < 2) or learnerr.ErrInput (no rows or columns, len(y) ≠ rows,
// a code that is not an integer in [0, k), ±Inf in X, NaN under
// tree.NoMissing, a nil rng), or are the context's error. FitClass does
// not retain X or y.
func FitClass(ctx context.Context, X *mat.Dense, y []float64, k int, p Params, rng *rand.Rand) (*ClassModel, error) {
	if rng == nil {
		return nil, fmt.Errorf("forest: nil random source: %w", learnerr.ErrInput)
	}
	if k < 2 || k > maxClasses {
		return nil, fmt.Errorf("forest: %d classes, a probability forest needs 2 to %d: %w", k, maxClasses, learnerr.ErrSetting)
	}
	if err := checkTrain(X, y, p); err != nil {
		return nil, err
	}
	for i, v := range y {
		if v < 0 || v >= float64(k) || v != math.Trunc(v) {
			return nil, fmt.Errorf("forest: class y[%d] = %v is not a code in [0, %d): %w", i, v, k, learnerr.ErrInput)
		}
	}
	p.MinNodeSize = p.classMinNode()
	n, d := X.Dims()
	dt := newData(X, y)
	trees, fracs, held, err := growForest(ctx, n, p, rng, func() treeFunc {
		return newClassGrower(dt, p, k).growTree
	})
	if err != nil {
		return nil, err
	}
	return &ClassModel{f: Model{trees: trees, held: held, d: d, mtry: p.mtry(d), strategy: p.Strategy,
		threads: max(1, p.Threads)}, fracs: fracs, k: k, minNode: p.MinNodeSize}, nil
}

// PredictProba returns the n × k matrix of class probabilities of the
// rows of X (column j: class code j), which must have the training set's
// number of columns: for each row, the class fractions of the leaf it
// reaches in each tree, summed in tree order and divided by the number
// of trees, as ranger's predict on a probability forest computes them;
// each row sums to 1 up to rounding. Rows are routed as Model.Predict
// routes them (x ≤ threshold to child 0; under MIA a NaN follows the
// split's stored side). Errors wrap learnerr.ErrInput: an empty X, a
// column mismatch, ±Inf, or NaN when the forest was fitted with
// tree.NoMissing; a cancelled ctx returns its error before any work.
func (m *ClassModel) PredictProba(ctx context.Context, X *mat.Dense) (*mat.Dense, error) {
	raw, err := m.f.checkX(ctx, X)
	if err != nil {
		return nil, err
	}
	out := mat.NewDense(raw.Rows, m.k, nil)
	acc := out.RawMatrix().Data
	m.f.blocks(raw.Rows, func(lo, hi int) { m.predictBlock(raw, lo, hi, acc[lo*m.k:hi*m.k]) })
	return out, nil
}

// predictBlock writes the class probabilities of rows [lo, hi) into acc
// (k per row), tree after tree through a router, so each row sums its
// trees in order.
func (m *ClassModel) predictBlock(raw blas64.General, lo, hi int, acc []float64) {
	clear(acc)
	newRouter(hi-lo, m.f.d, m.f.strategy != noMissing).predictClass(m.f.trees, m.fracs, m.k, raw, lo, hi, acc)
	nt := float64(len(m.f.trees))
	for i := range acc {
		acc[i] /= nt
	}
}

// NumClasses returns k, the number of classes (columns of PredictProba).
func (m *ClassModel) NumClasses() int { return m.k }

// NumTrees returns the number of trees.
func (m *ClassModel) NumTrees() int { return m.f.NumTrees() }

// NumFeatures returns the number of columns the forest was fitted on.
func (m *ClassModel) NumFeatures() int { return m.f.d }

// Mtry returns the number of candidate columns drawn per node.
func (m *ClassModel) Mtry() int { return m.f.mtry }

// MinNodeSize returns the minimum node size the forest was grown with,
// after resolving 0 to DefaultMinNodeSizeProbability.
func (m *ClassModel) MinNodeSize() int { return m.minNode }

// Strategy returns the missing-value strategy the forest was fitted with.
func (m *ClassModel) Strategy() tree.Strategy { return m.f.strategy }

// NumNodes returns the total number of nodes (splits and leaves) over all
// trees.
func (m *ClassModel) NumNodes() int { return m.f.NumNodes() }

// SizeBytes returns the memory the fitted forest holds, in bytes: its
// trees' nodes and leaf fractions (arena chunks, slack included), their
// indexes and the structs.
func (m *ClassModel) SizeBytes() int {
	return m.f.SizeBytes() + int(unsafe.Sizeof(*m)) - int(unsafe.Sizeof(m.f)) +
		cap(m.fracs)*int(unsafe.Sizeof([]float64(nil)))
}
