package tree

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"

	"gonum.org/v1/gonum/mat"

	"github.com/misslab/misslab/internal/learn/learnerr"
)

// Predict returns the tree's prediction for every row of X, which must
// have the training set's number of columns (learnerr.ErrInput otherwise).
// NaN marks NA and is routed as at training:
//   - Surrogate: as rpart's predict (usesurrogate = 2): the first
//     surrogate whose column is observed, else the child holding more
//     training entries; on a tie the row stops and gets the node's mean.
//   - MIA, Block, Majority: the side stored with the split; where no
//     training NA reached the split, the child holding more training
//     entries (ties: the "x < threshold" child).
//   - Prob: left with the split's training probability nL/(nL+nR), from
//     a stream seeded at fit time and by the row's index in X, so the
//     same X always gets the same predictions.
//
// ±Inf is rejected (learnerr.ErrInput), and so is NaN under NoMissing.
// A cancelled ctx returns its error before any work.
func (t *Model) Predict(ctx context.Context, X *mat.Dense) ([]float64, error) {
	ids, err := t.leaves(ctx, X)
	if err != nil {
		return nil, err
	}
	out := make([]float64, len(ids))
	for i, id := range ids {
		out[i] = t.nodes[id].mean
	}
	return out, nil
}

// leaves checks X as Predict documents and returns the node where each
// row stops.
func (t *Model) leaves(ctx context.Context, X *mat.Dense) ([]int32, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if X == nil || X.IsEmpty() {
		return nil, fmt.Errorf("tree: X is empty, the tree needs %d columns: %w", t.d, learnerr.ErrInput)
	}
	raw := X.RawMatrix()
	if raw.Cols != t.d {
		return nil, fmt.Errorf("tree: X has %d columns, the tree was fitted on %d: %w", raw.Cols, t.d, learnerr.ErrInput)
	}
	if err := checkValues(raw, t.strategy); err != nil {
		return nil, err
	}
	out := make([]int32, raw.Rows)
	var pcg rand.PCG
	rng := rand.New(&pcg)
	for i := range raw.Rows {
		row := raw.Data[i*raw.Stride : i*raw.Stride+raw.Cols]
		if t.strategy == Prob {
			pcg.Seed(t.seed[0], t.seed[1]^splitmix(uint64(i)))
		}
		out[i] = t.leaf(row, rng)
	}
	return out, nil
}

// leaf returns the node where row stops.
func (t *Model) leaf(row []float64, rng *rand.Rand) int32 {
	id := int32(0)
	for {
		nd := &t.nodes[id]
		if nd.feature < 0 {
			return id
		}
		var side int8
		switch x := row[nd.feature]; {
		case !math.IsNaN(x):
			side = 1
			if x < nd.threshold {
				side = 0
			}
		case t.strategy == Surrogate:
			side = t.surrogateSide(nd, row)
		case t.strategy == Prob:
			side = 1
			if rng.Float64() < nd.pLeft {
				side = 0
			}
		default:
			side = nd.naSide
		}
		if side > 1 {
			return id
		}
		id = nd.child[side]
	}
}

// surrogateSide routes a row missing nd's primary variable as rpart's
// predict does; 2 means "stop here".
func (t *Model) surrogateSide(nd *node, row []float64) int8 {
	for _, su := range t.surr[nd.surLo:nd.surHi] {
		if v := row[su.feature]; !math.IsNaN(v) {
			if (v < su.thr) == su.lowLeft {
				return 0
			}
			return 1
		}
	}
	return majoritySide(int(t.nodes[nd.child[0]].n), int(t.nodes[nd.child[1]].n))
}

// splitmix is SplitMix64's finaliser, used to decorrelate per-row seeds.
func splitmix(z uint64) uint64 {
	z += 0x9e3779b97f4a7c15
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
	z = (z ^ (z >> 27)) * 0x94d049bb133111eb
	return z ^ (z >> 31)
}
