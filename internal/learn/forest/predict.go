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

// rowBlock bounds the rows predicted together, tree after tree (a
// router's columns then stay in cache), and minBlock is the smallest
// block worth a thread of its own: a block's cost per tree has a part
// per node visited, whatever its rows.
const (
	rowBlock = 2048
	minBlock = 256
)

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
	raw, err := f.checkX(ctx, X)
	if err != nil {
		return nil, err
	}
	out := make([]float64, raw.Rows)
	f.blocks(raw.Rows, func(lo, hi int) { f.predictBlock(raw, lo, hi, out) })
	return out, nil
}

// checkX returns X's storage after checking that ctx is live and that X
// has rows, the training set's number of columns, no ±Inf, and no NaN
// unless the forest was fitted under MIA.
func (f *Model) checkX(ctx context.Context, X *mat.Dense) (blas64.General, error) {
	if err := ctx.Err(); err != nil {
		return blas64.General{}, err
	}
	if X == nil || X.IsEmpty() {
		return blas64.General{}, fmt.Errorf("forest: X is empty, the forest needs %d columns: %w", f.d, learnerr.ErrInput)
	}
	raw := X.RawMatrix()
	if raw.Cols != f.d {
		return blas64.General{}, fmt.Errorf("forest: X has %d columns, the forest was fitted on %d: %w", raw.Cols, f.d, learnerr.ErrInput)
	}
	if err := checkValues(raw, f.strategy); err != nil {
		return blas64.General{}, err
	}
	return raw, nil
}

// blocks calls do on consecutive blocks [lo, hi) of the rows rows, on
// up to f.threads goroutines.
func (f *Model) blocks(rows int, do func(lo, hi int)) {
	size := min(rowBlock, max(minBlock, (rows+f.threads-1)/f.threads))
	n := (rows + size - 1) / size
	_ = parallel(n, f.threads, func() func(int) error {
		return func(b int) error {
			lo := b * size
			do(lo, min(lo+size, rows))
			return nil
		}
	})
}

// predictBlock writes the predictions of rows [lo, hi) into out, tree
// after tree through a router, so each row sums its trees in order.
func (f *Model) predictBlock(raw blas64.General, lo, hi int, out []float64) {
	acc := out[lo:hi]
	clear(acc)
	newRouter(hi-lo, f.d, f.strategy != noMissing).predict(f.trees, raw, lo, hi, acc)
	nt := float64(len(f.trees))
	for i := range acc {
		acc[i] /= nt
	}
}

// b2u is 1 for true and 0 for false; the compiler turns it into a SETcc.
func b2u(b bool) uint32 {
	if b {
		return 1
	}
	return 0
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
