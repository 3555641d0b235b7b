package tree

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"

	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/mat"

	"github.com/misslab/misslab/internal/learn/learnerr"
)

// Model is a fitted regression tree. It is immutable and safe for
// concurrent Predict calls.
type Model struct {
	nodes    []node
	surr     []surrogate
	d        int
	strategy Strategy
	seed     [2]uint64 // Prob: seed of the prediction-time coin flips
}

// node is one node of a tree; feature < 0 marks a leaf.
type node struct {
	feature    int32
	child      [2]int32
	threshold  float64
	naSide     int8     // NA side for MIA, Block, Majority; larger side otherwise
	naSeen     bool     // training NA reached this split
	first      int8     // child grown first: the one with the lower mean (rpart's left son)
	pLeft      float64  // Prob: observed fraction below the threshold
	obs        [2]int32 // primary-observed entries sent to each child
	mean, risk float64
	complexity float64
	improve    float64
	n, depth   int32
	surLo      int32 // surrogates are surr[surLo:surHi]
	surHi      int32
}

func (nd *node) makeLeaf() {
	nd.feature, nd.child, nd.surLo, nd.surHi = -1, [2]int32{-1, -1}, 0, 0
	nd.threshold, nd.naSide, nd.naSeen, nd.pLeft, nd.improve, nd.first = 0, 0, false, 0, 0, 0
	nd.obs = [2]int32{}
}

func (t *Model) addNode() int32 {
	t.nodes = append(t.nodes, node{})
	t.nodes[len(t.nodes)-1].makeLeaf()
	return int32(len(t.nodes) - 1)
}

// Fit grows a tree on every row of X (n × d, NaN = NA) and the n targets
// y. rng is the only source of randomness (Mtry draws, Prob coin flips
// and the seed of Prob's prediction-time flips); it must not be nil.
// With fewer than MinSplit rows the tree is a single leaf, as in rpart.
// Under Strategy Surrogate rows whose every feature is NA are dropped
// first, as rpart's na.rpart does. Errors wrap learnerr.ErrSetting (bad
// Params) or learnerr.ErrInput (empty X, len(y) ≠ rows, a non-finite
// target, ±Inf in X, NaN under NoMissing, a nil rng), or are the
// context's error. Fit does not retain X or y.
func Fit(ctx context.Context, X *mat.Dense, y []float64, p Params, rng *rand.Rand) (*Model, error) {
	return fit(ctx, X, y, nil, p, rng)
}

// FitSample grows a tree on the multiset of rows of X listed in rows (a
// bootstrap draw may repeat a row; a row drawn k times weighs k times,
// exactly as if it were duplicated). Counts in Params count these
// entries. Otherwise as Fit.
func FitSample(ctx context.Context, X *mat.Dense, y []float64, rows []int, p Params, rng *rand.Rand) (*Model, error) {
	if len(rows) == 0 {
		return nil, fmt.Errorf("tree: no rows sampled: %w", learnerr.ErrInput)
	}
	return fit(ctx, X, y, rows, p, rng)
}

func fit(ctx context.Context, X *mat.Dense, y []float64, rows []int, p Params, rng *rand.Rand) (*Model, error) {
	if rng == nil {
		return nil, fmt.Errorf("tree: nil random source: %w", learnerr.ErrInput)
	}
	raw, err := checkTrain(X, y, p)
	if err != nil {
		return nil, err
	}
	entries, err := entryRows(raw, rows, p.Strategy == Surrogate)
	if err != nil {
		return nil, err
	}
	s := newSample(raw.Data, raw.Stride, raw.Cols, y, entries, sortColumn)
	g := newGrower(ctx, p, s, rng)
	g.crit = anova{g}
	return g.run()
}

// newGrower returns a grower for the sample s with an empty tree; its
// criterion is left to the caller.
func newGrower(ctx context.Context, p Params, s *sample, rng *rand.Rand) *grower {
	t := &Model{d: s.d, strategy: p.Strategy}
	t.addNode()
	g := &grower{ctx: ctx, p: p, s: s, rng: rng, t: t, inv: make([]float64, s.n+1)}
	for k := 1; k <= s.n; k++ {
		g.inv[k] = 1 / float64(k)
	}
	return g
}

// run grows the whole tree with rpart's alpha (CP times the root's
// risk), settles the reported complexities and draws Prob's seed.
func (g *grower) run() (*Model, error) {
	_, rootRisk := g.crit.summarise(0, 0, g.s.n)
	g.alpha = rootAlpha(g.p.CP, rootRisk)
	if _, _, err := g.grow(0, 0, g.s.n, 0); err != nil {
		return nil, err
	}
	t := g.t
	t.fixComplexity(0, t.nodes[0].complexity, g.alpha)
	if g.p.Strategy == Prob {
		t.seed = [2]uint64{g.rng.Uint64(), g.rng.Uint64()}
	}
	return t, nil
}

// checkTrain validates the training data and parameters.
func checkTrain(X *mat.Dense, y []float64, p Params) (blas64.General, error) {
	if X == nil || X.IsEmpty() {
		return blas64.General{}, fmt.Errorf("tree: X has no rows or columns: %w", learnerr.ErrInput)
	}
	raw := X.RawMatrix()
	if len(y) != raw.Rows {
		return raw, fmt.Errorf("tree: %d targets for %d rows: %w", len(y), raw.Rows, learnerr.ErrInput)
	}
	if err := p.validate(raw.Cols); err != nil {
		return raw, err
	}
	for i, v := range y {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return raw, fmt.Errorf("tree: target y[%d] = %v is not finite: %w", i, v, learnerr.ErrInput)
		}
	}
	return raw, checkValues(raw, p.Strategy)
}

// checkValues rejects ±Inf anywhere and NaN under NoMissing.
func checkValues(raw blas64.General, st Strategy) error {
	for i := range raw.Rows {
		for j, v := range raw.Data[i*raw.Stride : i*raw.Stride+raw.Cols] {
			if math.IsInf(v, 0) {
				return fmt.Errorf("tree: X[%d, %d] = %v is infinite (NaN marks NA): %w", i, j, v, learnerr.ErrInput)
			}
			if st == NoMissing && math.IsNaN(v) {
				return fmt.Errorf("tree: X[%d, %d] is NaN under strategy none (impute first): %w", i, j, learnerr.ErrInput)
			}
		}
	}
	return nil
}

// entryRows turns the sampled rows (nil: every row once) into entries,
// dropping rows that are entirely NA when dropAllNA is set.
func entryRows(raw blas64.General, rows []int, dropAllNA bool) ([]int32, error) {
	var out []int32
	keep := func(r int) bool {
		if !dropAllNA {
			return true
		}
		for _, v := range raw.Data[r*raw.Stride : r*raw.Stride+raw.Cols] {
			if !math.IsNaN(v) {
				return true
			}
		}
		return false
	}
	if rows == nil {
		out = make([]int32, 0, raw.Rows)
		for r := range raw.Rows {
			if keep(r) {
				out = append(out, int32(r))
			}
		}
	} else {
		out = make([]int32, 0, len(rows))
		for _, r := range rows {
			if r < 0 || r >= raw.Rows {
				return nil, fmt.Errorf("tree: sampled row %d not in [0, %d): %w", r, raw.Rows, learnerr.ErrInput)
			}
			if keep(r) {
				out = append(out, int32(r))
			}
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("tree: every sampled row is entirely NA: %w", learnerr.ErrInput)
	}
	return out, nil
}

// fixComplexity lowers every node's complexity to at most its parent's
// (floored at alpha), as rpart's make_cp_list does before reporting it.
func (t *Model) fixComplexity(id int32, parent, alpha float64) {
	nd := &t.nodes[id]
	nd.complexity = min(nd.complexity, parent)
	if nd.feature < 0 {
		return
	}
	pc := max(nd.complexity, alpha)
	t.fixComplexity(nd.child[0], pc, alpha)
	t.fixComplexity(nd.child[1], pc, alpha)
}
