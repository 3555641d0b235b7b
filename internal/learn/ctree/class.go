package ctree

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"

	"gonum.org/v1/gonum/mat"

	"github.com/misslab/misslab/internal/learn/learnerr"
)

// ClassModel is a fitted conditional inference tree for a factor
// response: partykit's ctree with y a factor. It is immutable and safe
// for concurrent PredictProba calls.
type ClassModel struct {
	tree   *Model    // structure, tests and routing
	k      int       // classes: the columns of PredictProba
	counts []float64 // counts[id*k+q]: training rows of class q in node id
	prob   []float64 // prob[id*k+q]: counts[id*k+q] / rows in node id
}

// FitClass grows a conditional inference tree on every row of X (n × d,
// NaN = NA) and the class codes y (n values in 0, 1, …, k−1; not every
// code need occur), k ≥ 2 classes, with the algorithm and controls of
// Fit and partykit's influence function for a factor response (see
// influence):
//
//   - two classes: the single column h(y) = 1{y = 1}, i.e. Fit on the
//     codes 0/1, with its statistics, p-values (χ²₁) and libcoin's order
//     of operations in the cut search;
//   - k ≥ 3: the k indicator columns; each variable's quadratic test has
//     m − 1 degrees of freedom, m the classes present among the rows
//     observing it (see classTest), and cuts maximise the k-column
//     two-sample quadratic statistic (see cutter.bestClass).
//
// As partykit drops classes that do not occur in y, it is the number of
// classes present that counts (see classInfluence); y of a single class
// gives a single leaf, where partykit stops with an error.
//
// Node tests, Bonferroni adjustment, tie-breaks, MinCriterion, MinSplit,
// MinBucket/MinProb, MaxDepth, SplitTry, surrogates (which depend on X
// only) and the Missing rule are Fit's. A node's class probabilities are
// the class shares of the training rows that reach it (partykit's
// .pred_factor: per-class counts over the count, weights being 1).
//
// With Missing = Majority the fitted tree equals partykit 1.2-16's
// ctree(y ~ ., data, control = ctree_control(..., majority = TRUE)) with
// y = factor(codes, levels = 0:(k − 1)), and PredictProba equals
// predict(type = "prob"), on the golden fixtures of make_class_golden.R.
// Deliberate differences are Fit's, and for k ≥ 3 the quadratic forms are
// computed in closed form where libcoin inverts the covariance by a
// LAPACK eigendecomposition: the statistics agree to rounding, so two
// cut-points whose statistics are mathematically equal (rare) can be
// ranked differently. Only partykit's default test and split statistic
// ("quadratic") exist here; its "maximum", whose multi-class p-value is
// mvtnorm's randomised Genz–Bretz integration, is not offered.
//
// rng must not be nil; it is used as by Fit. Errors wrap
// learnerr.ErrSetting (bad Params) or learnerr.ErrInput (k < 2, a code
// that is not an integer in [0, k), and Fit's data errors), or are the
// context's error. FitClass does not retain X or y.
func FitClass(ctx context.Context, X *mat.Dense, y []float64, k int, p Params, rng *rand.Rand) (*ClassModel, error) {
	if rng == nil {
		return nil, fmt.Errorf("ctree: nil random source: %w", learnerr.ErrInput)
	}
	if err := p.validate(); err != nil {
		return nil, err
	}
	if k < 2 || k > math.MaxInt32 {
		return nil, fmt.Errorf("ctree: %d classes, a classifier needs 2 to %d: %w", k, math.MaxInt32, learnerr.ErrInput)
	}
	cols, err := checkTrain(X, y)
	if err != nil {
		return nil, err
	}
	for i, v := range y {
		if v < 0 || v >= float64(k) || v != math.Trunc(v) {
			return nil, fmt.Errorf("ctree: class y[%d] = %v is not a code in [0, %d): %w", i, v, k, learnerr.ErrInput)
		}
	}
	g, err := growTree(ctx, cols, classInfluence(y, k), y, k, p, rng)
	if err != nil {
		return nil, err
	}
	m := &ClassModel{tree: g.t, k: k, counts: g.counts, prob: make([]float64, len(g.counts))}
	for id, nd := range g.t.nodes {
		for q := range k {
			m.prob[id*k+q] = m.counts[id*k+q] / float64(nd.n)
		}
	}
	return m, nil
}

// classInfluence returns partykit's influence function for the codes y
// of k classes. partykit's model frame drops the levels that do not
// occur, so it depends on the m classes present: for m ≥ 3 the k
// indicator columns (those of absent classes are zero and drop out of
// every statistic); for m = 2 the single column 1{y = the higher code}
// (Fit's computations, as for k = 2); for m = 1 a constant column, with
// which no variable is tested and the tree is a single leaf (partykit
// stops with an error there).
func classInfluence(y []float64, k int) influence {
	seen := make([]bool, k)
	m, hi := 0, 0.0
	for _, v := range y {
		if !seen[int(v)] {
			seen[int(v)] = true
			m++
			hi = max(hi, v)
		}
	}
	if m >= 3 {
		return influence{y: y, k: k}
	}
	h := make([]float64, len(y))
	for i, v := range y {
		if v == hi {
			h[i] = 1
		}
	}
	return influence{y: h}
}

// PredictProba returns the n × k class probabilities of the rows of X
// (column q: class code q; rows sum to 1 up to rounding): those of the
// leaf the row reaches, routed as Model.Predict routes it (surrogates,
// then the Missing rule). This is partykit's predict(type = "prob"). X
// must have the training set's number of columns; errors are Predict's.
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

// ClassNodeInfo describes one node of a fitted classification tree. In
// the embedded NodeInfo, Value is the mean class code of the node's rows,
// of no use for k ≥ 3; Tests hold the k-class statistics (see FitClass).
type ClassNodeInfo struct {
	NodeInfo
	// Counts are the node's training rows of each class (k values).
	Counts []float64
	// Prob are the class shares Counts/N: the node's predict(type =
	// "prob") row.
	Prob []float64
}

// Nodes returns every node in preorder (partykit's node ids − 1);
// Nodes()[0] is the root.
func (m *ClassModel) Nodes() []ClassNodeInfo {
	base := m.tree.Nodes()
	out := make([]ClassNodeInfo, len(base))
	for i, b := range base {
		out[i] = ClassNodeInfo{NodeInfo: b,
			Counts: append([]float64(nil), m.counts[i*m.k:(i+1)*m.k]...),
			Prob:   append([]float64(nil), m.prob[i*m.k:(i+1)*m.k]...)}
	}
	return out
}

// RootSplit reports the column and threshold of the root split (x ≤
// threshold goes left); ok is false when the root is a leaf.
func (m *ClassModel) RootSplit() (feature int, threshold float64, ok bool) {
	return m.tree.RootSplit()
}

// NumClasses returns k, the number of columns of PredictProba.
func (m *ClassModel) NumClasses() int { return m.k }

// NumLeaves returns the number of leaves.
func (m *ClassModel) NumLeaves() int { return m.tree.NumLeaves() }

// Depth returns the largest node depth (0 for a single leaf).
func (m *ClassModel) Depth() int { return m.tree.Depth() }

// NumFeatures returns the number of columns the tree was fitted on.
func (m *ClassModel) NumFeatures() int { return m.tree.d }

// Params returns the controls the tree was fitted with.
func (m *ClassModel) Params() Params { return m.tree.p }
