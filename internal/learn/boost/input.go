package boost

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"unsafe"

	"gonum.org/v1/gonum/mat"

	"github.com/misslab/misslab/internal/learn/learnerr"
)

// entry is one observed value of a column and the row it belongs to.
type entry struct {
	v   float32
	row int32
}

// entryWords returns s's entries as the 64-bit words they are, for
// sides.Split, which finds each row at rowShift.
func entryWords(s []entry) []uint64 {
	if len(s) == 0 {
		return nil
	}
	return unsafe.Slice((*uint64)(unsafe.Pointer(&s[0])), len(s))
}

// rowShift is where an entry's row sits in its word: the high half on a
// little-endian machine, the low half on a big-endian one.
var rowShift = func() uint {
	if entryWords([]entry{{row: 1}})[0] == 1 {
		return 0
	}
	return 32
}()

// An entry must be one 64-bit word: no padding, no other field.
var _ [8 - unsafe.Sizeof(entry{})]struct{} = [unsafe.Sizeof(entry{}) - 8]struct{}{}

// dataset is the training data as XGBoost sees it: float32 features
// (NaN = missing) and float32 labels, plus each column's observed entries
// sorted by value.
type dataset struct {
	n, d int
	x    []float32 // row-major n×d
	y    []float32
	cols [][]entry // cols[f]: observed entries of feature f, ascending
	// forward[f] reports whether feature f gets the forward (missing go
	// right) scan: XGBoost does it only for columns whose float32 density
	// 1 − n_missing/n is below 1 and whose observed values are not all
	// equal.
	forward []bool
}

// toFloat32 converts v like XGBoost's DMatrix does, rejecting ±Inf and
// finite values that overflow float32.
func toFloat32(v float64) (float32, bool) {
	if math.IsInf(v, 0) || math.Abs(v) > math.MaxFloat32 {
		return 0, false
	}
	return float32(v), true
}

// dims returns the dimensions of X, or an error for a nil or empty matrix.
func dims(X *mat.Dense) (n, d int, err error) {
	if X == nil || X.IsEmpty() {
		return 0, 0, fmt.Errorf("boost: empty feature matrix: %w", learnerr.ErrInput)
	}
	n, d = X.Dims()
	return n, d, nil
}

// features converts X to row-major float32, NaN kept as missing.
func features(X *mat.Dense, n, d int) ([]float32, error) {
	x := make([]float32, n*d)
	for i := range n {
		for j := range d {
			v := X.At(i, j)
			if math.IsNaN(v) {
				x[i*d+j] = float32(math.NaN())
				continue
			}
			f, ok := toFloat32(v)
			if !ok {
				return nil, fmt.Errorf("boost: X[%d, %d] = %v is infinite or beyond float32 range: %w", i, j, v, learnerr.ErrInput)
			}
			x[i*d+j] = f
		}
	}
	return x, nil
}

// newDataset validates and converts the training data.
func newDataset(X *mat.Dense, y []float64) (*dataset, error) {
	n, d, err := dims(X)
	if err != nil {
		return nil, err
	}
	if n > math.MaxInt32 {
		return nil, fmt.Errorf("boost: %d rows, at most %d supported: %w", n, math.MaxInt32, learnerr.ErrInput)
	}
	if len(y) != n {
		return nil, fmt.Errorf("boost: %d targets for %d rows: %w", len(y), n, learnerr.ErrInput)
	}
	ds := &dataset{n: n, d: d, y: make([]float32, n)}
	for i, v := range y {
		f, ok := toFloat32(v)
		if !ok || math.IsNaN(v) {
			return nil, fmt.Errorf("boost: target y[%d] = %v, want a finite float32: %w", i, v, learnerr.ErrInput)
		}
		ds.y[i] = f
	}
	if ds.x, err = features(X, n, d); err != nil {
		return nil, err
	}
	return ds, ds.sortColumns()
}

// sortColumns builds the per-feature sorted observed entries (ties by row)
// and the forward-scan flags.
func (ds *dataset) sortColumns() error {
	ds.cols = make([][]entry, ds.d)
	ds.forward = make([]bool, ds.d)
	for f := range ds.d {
		col := make([]entry, 0, ds.n)
		for i := range ds.n {
			if v := ds.x[i*ds.d+f]; v == v {
				col = append(col, entry{v: v, row: int32(i)})
			}
		}
		if len(col) == 0 {
			return fmt.Errorf("boost: column %d has no observed value: %w", f, learnerr.ErrInput)
		}
		slices.SortFunc(col, func(a, b entry) int {
			return cmp.Or(cmp.Compare(a.v, b.v), cmp.Compare(a.row, b.row))
		})
		ds.cols[f] = col
		density := 1 - float32(ds.n-len(col))/float32(ds.n)
		ds.forward[f] = density < 1 && col[0].v != col[len(col)-1].v
	}
	return nil
}
