package ctree

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"

	"gonum.org/v1/gonum/mat"

	"github.com/misslab/misslab/internal/learn/learnerr"
)

// Predict returns the tree's prediction, the mean training target of the
// leaf a row reaches, for every row of X, which must have the training
// set's number of columns; a mismatch or ±Inf is an error wrapping
// learnerr.ErrInput, and a cancelled ctx returns its error before any
// work.
// A row missing a split variable (NaN) follows the split's surrogates in
// order, then the Missing rule: Majority sends it to the child holding
// more observed training rows; Random sends it left with the observed
// training proportion, drawn from a stream seeded at fit time and by the
// row's index in X, so the same X always gets the same predictions.
func (t *Model) Predict(ctx context.Context, X *mat.Dense) ([]float64, error) {
	ids, err := t.leaves(ctx, X)
	if err != nil {
		return nil, err
	}
	out := make([]float64, len(ids))
	for i, id := range ids {
		out[i] = t.nodes[id].value
	}
	return out, nil
}

// leaves returns the index of the leaf every row of X reaches, routed as
// Predict documents, after Predict's checks.
func (t *Model) leaves(ctx context.Context, X *mat.Dense) ([]int32, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if X == nil || X.IsEmpty() {
		return nil, fmt.Errorf("ctree: X is empty, the tree needs %d columns: %w", t.d, learnerr.ErrInput)
	}
	raw := X.RawMatrix()
	if raw.Cols != t.d {
		return nil, fmt.Errorf("ctree: X has %d columns, the tree was fitted on %d: %w", raw.Cols, t.d, learnerr.ErrInput)
	}
	if err := checkInf(raw.Data, raw.Rows, raw.Cols, raw.Stride); err != nil {
		return nil, err
	}
	out := make([]int32, raw.Rows)
	var pcg rand.PCG
	rng := rand.New(&pcg)
	for i := range raw.Rows {
		if t.p.Missing == Random {
			pcg.Seed(t.seed[0], t.seed[1]^splitmix(uint64(i)))
		}
		out[i] = t.leaf(raw.Data[i*raw.Stride:i*raw.Stride+raw.Cols], rng)
	}
	return out, nil
}

// leaf returns the index of the leaf row reaches.
func (t *Model) leaf(row []float64, rng *rand.Rand) int32 {
	id := int32(0)
	for {
		nd := &t.nodes[id]
		if nd.feature < 0 {
			return id
		}
		left := false
		if x := row[nd.feature]; !math.IsNaN(x) {
			left = x <= nd.threshold
		} else {
			left = t.naLeft(nd, row, rng)
		}
		if left {
			id = nd.left
		} else {
			id = nd.right
		}
	}
}

// naLeft routes a row missing nd's split variable.
func (t *Model) naLeft(nd *node, row []float64, rng *rand.Rand) bool {
	for _, s := range t.surr[nd.surLo:nd.surHi] {
		if v := row[s.feature]; !math.IsNaN(v) {
			return v <= s.thr == s.lowLeft
		}
	}
	if t.p.Missing == Random {
		return rng.Float64() < nd.pLeft
	}
	return nd.naLeft
}

// splitmix is SplitMix64's finaliser, used to decorrelate per-row seeds.
func splitmix(z uint64) uint64 {
	z += 0x9e3779b97f4a7c15
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
	z = (z ^ (z >> 27)) * 0x94d049bb133111eb
	return z ^ (z >> 31)
}
