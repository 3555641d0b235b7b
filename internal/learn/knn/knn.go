package knn

import (
	"context"
	"fmt"
	"maps"
	"math"
	"math/rand/v2"
	"slices"

	"gonum.org/v1/gonum/mat"

	"github.com/misslab/misslab/internal/learn/learnerr"
)

// DefaultK is caret's default number of neighbours.
const DefaultK = 5

// Regressor is caret's knnreg: the prediction at x is the mean target of
// the K training rows nearest to x in (unscaled) Euclidean distance.
//
// It reproduces caret 6.0.93's knnreg/knnregTrain (C routine knn3reg with
// use.all = TRUE) bit for bit: squared distances are summed over the
// columns in order, and the training rows are scanned in index order
// through the same bounded insertion buffer, so that
//   - among rows at equal distance the lower training index ranks first;
//   - every training row whose squared distance is within a relative 1e-4
//     of the K-th smallest ("tie" in caret's fuzzy sense) and still in
//     the buffer at the end is averaged in as well, so a prediction can
//     average more than K targets;
//   - the targets are summed in ascending (distance, index) order and
//     divided by their count.
//
// Deliberate differences from caret: a training set with fewer than K
// rows is an error (learnerr.ErrInput) where caret warns and uses all rows;
// caret stops with "too many ties in knn" once its buffer of neighbours
// and ties reaches 999 rows, whereas this implementation has no such
// limit and averages them all; squared distances that overflow float64
// are an error (learnerr.ErrInput) where caret's result is undefined.
//
// Predict is brute force over the training rows, but most rows are
// rejected by a BLAS lower bound on their distance (float32 or float64,
// with a proven rounding allowance) before the exact distance is summed;
// the bound never changes a prediction.
type Regressor struct {
	// K ≥ 1 is the number of neighbours (setting "k"; default 5).
	K int
}

// New returns a Regressor with k neighbours; k must be at least 1
// (learnerr.ErrSetting otherwise).
func New(k int) (Regressor, error) {
	if k < 1 {
		return Regressor{}, fmt.Errorf("knn: k = %d must be at least 1: %w", k, learnerr.ErrSetting)
	}
	return Regressor{K: k}, nil
}

// FromSettings builds a Regressor from grid settings: "k" (a positive
// integer, default DefaultK). Unknown keys and invalid values are errors
// wrapping learnerr.ErrSetting.
func FromSettings(s map[string]float64) (Regressor, error) {
	k := DefaultK
	for _, key := range slices.Sorted(maps.Keys(s)) {
		v := s[key]
		switch key {
		case "k":
			if v != math.Trunc(v) || v < 1 || v > math.MaxInt32 {
				return Regressor{}, fmt.Errorf("knn: k = %v must be a positive integer: %w", v, learnerr.ErrSetting)
			}
			k = int(v)
		default:
			return Regressor{}, fmt.Errorf("knn: unknown setting %q (known: k): %w", key, learnerr.ErrSetting)
		}
	}
	return New(k)
}

// Model is a fitted Regressor: a copy of the training set. It is
// immutable and safe for concurrent use.
type Model struct {
	k    int
	n, p int
	x    []float64 // n × p, row-major
	y    []float64
	scr  screener
}

// Fit stores a copy of X (n × p, finite) and y. It never consumes rng
// (the method is deterministic). Errors wrap learnerr.ErrInput (an empty
// X, len(y) ≠ n, NaN or ±Inf, n < K) or learnerr.ErrSetting (K < 1), or
// are the context's error.
func (r Regressor) Fit(ctx context.Context, X *mat.Dense, y []float64, _ *rand.Rand) (*Model, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if r.K < 1 {
		return nil, fmt.Errorf("knn: k = %d must be at least 1: %w", r.K, learnerr.ErrSetting)
	}
	x, n, p, err := flatten(X, "training")
	if err != nil {
		return nil, err
	}
	if len(y) != n {
		return nil, fmt.Errorf("knn: %d targets for %d training rows: %w", len(y), n, learnerr.ErrInput)
	}
	for i, v := range y {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return nil, fmt.Errorf("knn: target y[%d] = %v is not finite: %w", i, v, learnerr.ErrInput)
		}
	}
	if n < r.K {
		return nil, fmt.Errorf("knn: k = %d but only %d training rows (fewer rows than neighbours): %w", r.K, n, learnerr.ErrInput)
	}
	m := &Model{k: r.K, n: n, p: p, x: x, y: slices.Clone(y)}
	m.scr = newScreener(x, n, p)
	return m, nil
}

// K returns the number of neighbours.
func (m *Model) K() int { return m.k }

// Predict returns, for every row of X, the mean training target of its
// neighbours (see Regressor). Errors wrap learnerr.ErrInput (X without
// the training column count, NaN or ±Inf, overflowing distances), or are
// the context's error when ctx is cancelled.
func (m *Model) Predict(ctx context.Context, X *mat.Dense) ([]float64, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	q, nq, p, err := flatten(X, "prediction")
	if err != nil {
		return nil, err
	}
	if p != m.p {
		return nil, fmt.Errorf("knn: prediction matrix has %d columns, model was trained on %d: %w", p, m.p, learnerr.ErrInput)
	}
	out := make([]float64, nq)
	s := newSearcher(m.k, m.n)
	for i := range nq {
		if i%256 == 255 {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
		}
		v, ok := s.predictRow(m, q[i*p:(i+1)*p])
		if !ok {
			return nil, fmt.Errorf("knn: squared distances from prediction row %d overflow float64: %w", i, learnerr.ErrInput)
		}
		out[i] = v
	}
	return out, nil
}

// flatten checks that X is non-empty and finite and returns a row-major
// copy with its dimensions.
func flatten(X *mat.Dense, what string) ([]float64, int, int, error) {
	if X == nil || X.IsEmpty() {
		return nil, 0, 0, fmt.Errorf("knn: the %s matrix is nil or empty: %w", what, learnerr.ErrInput)
	}
	n, p := X.Dims()
	out := make([]float64, 0, n*p)
	for i := range n {
		row := X.RawRowView(i)
		for j, v := range row {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return nil, 0, 0, fmt.Errorf("knn: %s entry (%d, %d) is %v: %w", what, i, j, v, learnerr.ErrInput)
			}
		}
		out = append(out, row...)
	}
	return out, n, p, nil
}
