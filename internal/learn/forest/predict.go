package forest

import (
	"context"
	"fmt"
	"math"

	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/mat"

	"github.com/misslab/misslab/internal/learn/learnerr"
	"github.com/misslab/misslab/internal/learn/tree"
)

// rowBlock is the number of rows predicted together, tree after tree, so
// that a tree's nodes stay in cache across the block.
const rowBlock = 256

// Predict returns the forest's prediction for every row of X, which must
// have the training set's number of columns: the average over trees of
// the leaf each row reaches, summed in tree order (as ranger's
// predictInternal), so the result does not depend on the number of
// threads. Observed x goes to child 0 when x ≤ threshold (ranger's
// rule, as in training). Under MIA a NaN follows the side stored with the
// split; where no training NA reached the split, that is the child with
// more in-bag entries. Errors
// wrap learnerr.ErrInput: an empty X, a column mismatch, ±Inf, or NaN
// when the forest was fitted with tree.NoMissing; a cancelled ctx returns
// its error before any work.
func (f *Model) Predict(ctx context.Context, X *mat.Dense) ([]float64, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if X == nil || X.IsEmpty() {
		return nil, fmt.Errorf("forest: X is empty, the forest needs %d columns: %w", f.d, learnerr.ErrInput)
	}
	raw := X.RawMatrix()
	if raw.Cols != f.d {
		return nil, fmt.Errorf("forest: X has %d columns, the forest was fitted on %d: %w", raw.Cols, f.d, learnerr.ErrInput)
	}
	if err := checkValues(raw, f.strategy); err != nil {
		return nil, err
	}
	out := make([]float64, raw.Rows)
	blocks := (raw.Rows + rowBlock - 1) / rowBlock
	_ = parallel(blocks, f.threads, func() func(int) error {
		return func(b int) error {
			lo := b * rowBlock
			f.predictBlock(raw, lo, min(lo+rowBlock, raw.Rows), out)
			return nil
		}
	})
	return out, nil
}

// predictBlock writes the predictions of rows [lo, hi) into out. Each
// tree walks four rows at once, without branching on the comparisons, so
// that the four walks overlap; each row still sums its trees in order.
func (f *Model) predictBlock(raw blas64.General, lo, hi int, out []float64) {
	acc := out[lo:hi]
	clear(acc)
	row := func(i int) []float64 {
		r := lo + i
		return raw.Data[r*raw.Stride : r*raw.Stride+raw.Cols]
	}
	n4 := len(acc) &^ 3
	for _, t := range f.trees {
		for i := 0; i < n4; i += 4 {
			a, b, c, d := leaf4(t, row(i), row(i+1), row(i+2), row(i+3))
			acc[i] += a
			acc[i+1] += b
			acc[i+2] += c
			acc[i+3] += d
		}
		for i := n4; i < len(acc); i++ {
			acc[i] += leaf(t, row(i))
		}
	}
	nt := float64(len(f.trees))
	for i := range acc {
		acc[i] /= nt
	}
}

// leaf4 returns the predictions of the tree t for four rows, walking
// them together until all four reach a leaf.
func leaf4(t []node, r0, r1, r2, r3 []float64) (p0, p1, p2, p3 float64) {
	var k0, k1, k2, k3 uint32
	for (t[k0].feat & t[k1].feat & t[k2].feat & t[k3].feat) >= 0 {
		k0, k1, k2, k3 = step(t, k0, r0), step(t, k1, r1), step(t, k2, r2), step(t, k3, r3)
	}
	return t[k0].v, t[k1].v, t[k2].v, t[k3].v
}

// step returns the node that row goes to from node k: k itself at a
// leaf, else the child leaf would take. It has no branch on the data
// (set-on-condition and masks), so the walks of leaf4
// overlap instead of waiting on mispredicted jumps.
func step(t []node, k uint32, row []float64) uint32 {
	nd := &t[k]
	feat := nd.feat & ^(nd.feat >> 31) // a leaf's -1 reads column 0, unused
	x := row[feat]
	c := nd.kids>>1 + b2u(x > nd.v) // x ≤ v (ranger's rule) and NaN: child 0
	c += nd.kids & 1 & -b2u(x != x) // NaN: the stored side
	if nd.feat < 0 {
		c = k
	}
	return c
}

// b2u is 1 for true and 0 for false; the compiler turns it into a SETcc.
func b2u(b bool) uint32 {
	if b {
		return 1
	}
	return 0
}

// leaf returns the prediction of the tree t for row.
func leaf(t []node, row []float64) float64 {
	nd := &t[0]
	for nd.feat >= 0 {
		x := row[nd.feat]
		k := nd.kids >> 1
		switch {
		case x <= nd.v: // ranger's rule: x ≤ threshold goes left
		case x > nd.v:
			k++
		default: // NaN
			k += nd.kids & 1
		}
		nd = &t[k]
	}
	return nd.v
}

// maxRows bounds the training rows: a tree has fewer than 2n nodes, and
// a split stores its children's index in 31 bits.
const maxRows = 1 << 30

// checkTrain validates the training data and parameters.
func checkTrain(X *mat.Dense, y []float64, p Params) error {
	if X == nil || X.IsEmpty() {
		return fmt.Errorf("forest: X has no rows or columns: %w", learnerr.ErrInput)
	}
	raw := X.RawMatrix()
	if len(y) != raw.Rows {
		return fmt.Errorf("forest: %d targets for %d rows: %w", len(y), raw.Rows, learnerr.ErrInput)
	}
	if raw.Rows > maxRows {
		return fmt.Errorf("forest: %d rows exceed the %d a tree's 31-bit node index allows: %w", raw.Rows, maxRows, learnerr.ErrInput)
	}
	if err := p.validate(raw.Cols); err != nil {
		return err
	}
	for i, v := range y {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return fmt.Errorf("forest: target y[%d] = %v is not finite: %w", i, v, learnerr.ErrInput)
		}
	}
	return checkValues(raw, p.Strategy)
}

// checkValues rejects ±Inf anywhere and NaN under NoMissing.
func checkValues(raw blas64.General, st tree.Strategy) error {
	for i := range raw.Rows {
		for j, v := range raw.Data[i*raw.Stride : i*raw.Stride+raw.Cols] {
			if math.IsInf(v, 0) {
				return fmt.Errorf("forest: X[%d, %d] = %v is infinite (NaN marks NA): %w", i, j, v, learnerr.ErrInput)
			}
			if st == tree.NoMissing && math.IsNaN(v) {
				return fmt.Errorf("forest: X[%d, %d] is NaN under strategy none (impute first): %w", i, j, learnerr.ErrInput)
			}
		}
	}
	return nil
}
