package boost

import (
	"context"
	"fmt"
	"math/rand/v2"

	"gonum.org/v1/gonum/mat"

	"github.com/misslab/misslab/internal/learn/learnerr"
)

// Model is a fitted boosted ensemble. It is immutable and safe for
// concurrent Predict calls.
type Model struct {
	d      int
	base   float32
	nodes  []pnode // all trees, each in breadth-first order
	roots  []int32 // index of each tree's root in nodes
	depths []uint8 // depth of each tree (≤ MaxDepth ≤ 30)
}

// Fit trains gradient-boosted trees on X (n × d, NaN = missing) and the n
// targets y with the squared-error objective. It reproduces XGBoost 1.7's
// tree_method="exact" (updaters grow_colmaker,prune, src/tree/
// updater_colmaker.cc) with nthread=1, down to the last float32 bit on the
// golden fixtures of testdata/make_golden.py:
//
//   - features and targets are rounded to float32 as in XGBoost's DMatrix;
//     predictions, gradients (prediction − y; hessian 1) and leaf values
//     are float32, gradient sums float64, each gain term G²/(H+λ) a float32
//     division of float32-rounded operands, loss changes float32;
//   - trees grow depthwise to MaxDepth; every distinct observed value of
//     every feature bounds a candidate (observed x < threshold goes left;
//     the threshold is the float32 midpoint of two adjacent values, or the
//     one scanned first when the midpoint rounds onto the one scanned
//     second); missing values go
//     to a learnt default side (Chen & Guestrin 2016, Algorithm 3, the
//     paper's MIA): a descending scan sends them left, an ascending scan
//     sends them right, and each ends with the split "observed | missing"
//     at threshold min − (|min| + 1e-6), resp. max + (|max| + 1e-6). As in
//     XGBoost the ascending scan runs only for features with missing
//     training values and at least two distinct values, so a feature
//     without NA in training always sends test NA left;
//   - among equal loss changes the first found wins: lower feature, then
//     ascending before descending scan, then scan order;
//   - a node splits if its best loss change exceeds 1e-6; children's rows
//     are then assigned by the stored threshold, so XGBoost's quirk for
//     adjacent float32 values on an ascending scan (the threshold is the
//     lower value, which then goes right although the gain counted it
//     left) is reproduced too;
//   - splits whose two children are leaves are pruned while their loss
//     change is below Gamma.
//
// Deliberate differences: no sample weights, row or column subsampling,
// max_delta_step, constraints or other objectives; ties among equal
// float32 values in a column are ordered by row (XGBoost's order is
// unspecified; only the last bits of float64 sums can differ); a training
// column without any observed value is an error (XGBoost accepts it and
// never splits on it); values beyond float32 range are errors (XGBoost
// rejects them as infinite).
//
// rng is reserved for future subsampling: the fit uses no randomness, so
// it is deterministic, but rng must not be nil. Fit checks ctx between
// rounds. Data errors (empty or mismatched matrices, NaN or ±Inf targets,
// ±Inf features, values beyond float32 range, a training column without
// any observed value, a nil rng) wrap learnerr.ErrInput, parameter errors
// learnerr.ErrSetting; Fit does not retain X or y. Cost: O(n·d·log n)
// once, then per round O(n·d) per tree level (about twice that for features with missing values).
func Fit(ctx context.Context, X *mat.Dense, y []float64, p Params, rng *rand.Rand) (*Model, error) {
	return fit(ctx, X, y, p, rng, nil)
}

// fit is Fit, handing every grown tree to keep if it is not nil.
func fit(ctx context.Context, X *mat.Dense, y []float64, p Params, rng *rand.Rand, keep func(*tree)) (*Model, error) {
	if err := p.Validate(); err != nil {
		return nil, err
	}
	if rng == nil {
		return nil, fmt.Errorf("boost: nil random source: %w", learnerr.ErrInput)
	}
	ds, err := newDataset(X, y)
	if err != nil {
		return nil, err
	}
	m := &Model{d: ds.d, base: float32(p.BaseScore), roots: make([]int32, 0, min(p.Rounds, 1<<16)),
		depths: make([]uint8, 0, min(p.Rounds, 1<<16))}
	pred := make([]float32, ds.n)
	for i := range pred {
		pred[i] = m.base
	}
	g := newGrower(ds, p)
	for round := range p.Rounds {
		if err := ctx.Err(); err != nil {
			return nil, fmt.Errorf("boost: fit stopped at round %d: %w", round, err)
		}
		for i, yi := range ds.y {
			g.grad[i] = pred[i] - yi
		}
		t := g.grow()
		for i, id := range g.final {
			pred[i] += t.resolve(id)
		}
		m.add(&t)
		if keep != nil {
			keep(&t)
		}
	}
	return m, nil
}

// add appends the surviving nodes of t to m as its next tree.
func (m *Model) add(t *tree) {
	m.roots = append(m.roots, int32(len(m.nodes)))
	var depth int
	m.nodes, depth = t.compact(m.nodes)
	m.depths = append(m.depths, uint8(depth))
}

// resolve returns the leaf value reached by a row that ended growth in
// node id, following pruning up to the surviving leaf.
func (t *tree) resolve(id int32) float32 {
	for t.nodes[id].deleted {
		id = t.nodes[id].parent
	}
	return t.nodes[id].value
}

// Predict returns BaseScore plus the sum of all trees' leaf values for
// each row of X (n × d, NaN = missing), accumulated in float32 tree by
// tree as XGBoost does. Features are rounded to float32 before the
// comparisons. Errors wrap learnerr.ErrInput: a column count differing
// from training, ±Inf or values beyond float32 range; a cancelled ctx
// returns its error before any work.
func (m *Model) Predict(ctx context.Context, X *mat.Dense) ([]float64, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	n, d, err := dims(X)
	if err != nil {
		return nil, err
	}
	if d != m.d {
		return nil, fmt.Errorf("boost: X has %d columns, the model was trained on %d: %w", d, m.d, learnerr.ErrInput)
	}
	x, err := features(X, n, d)
	if err != nil {
		return nil, err
	}
	out := make([]float64, n)
	sum := make([]float32, min(n, predictBlock))
	for lo := 0; lo < n; lo += predictBlock {
		hi := min(lo+predictBlock, n)
		m.predictBlock(x[lo*d:hi*d], sum[:hi-lo])
		for i, s := range sum[:hi-lo] {
			out[lo+i] = float64(s)
		}
	}
	return out, nil
}

// predictBlock is the number of rows predicted together, tree by tree, so
// that a block's features and the current tree stay in the L1 cache.
const predictBlock = 256

// predictBlock sets sum[i] to the prediction of row i of the row-major
// float32 block x, adding the trees' leaf values in tree order. Four rows
// descend each tree in lockstep, as many steps as the tree is deep, so
// that their independent node loads overlap.
func (m *Model) predictBlock(x []float32, sum []float32) {
	d, nodes := m.d, m.nodes
	for i := range sum {
		sum[i] = m.base
	}
	for t, r := range m.roots {
		depth := int(m.depths[t])
		i := 0
		for ; i+4 <= len(sum); i += 4 {
			x0, x1, x2, x3 := x[i*d:(i+1)*d], x[(i+1)*d:(i+2)*d], x[(i+2)*d:(i+3)*d], x[(i+3)*d:(i+4)*d]
			k0, k1, k2, k3 := r, r, r, r
			for range depth {
				k0, k1 = step(nodes, k0, x0), step(nodes, k1, x1)
				k2, k3 = step(nodes, k2, x2), step(nodes, k3, x3)
			}
			s := sum[i : i+4]
			s[0] += nodes[k0].out
			s[1] += nodes[k1].out
			s[2] += nodes[k2].out
			s[3] += nodes[k3].out
		}
		for ; i < len(sum); i++ {
			k := r
			for range depth {
				k = step(nodes, k, x[i*d:(i+1)*d])
			}
			sum[i] += nodes[k].out
		}
	}
}

// Trees returns the number of trees (boosting rounds) of the model.
func (m *Model) Trees() int { return len(m.roots) }
