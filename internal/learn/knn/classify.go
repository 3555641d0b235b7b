package knn

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"

	"gonum.org/v1/gonum/mat"

	"github.com/misslab/misslab/internal/learn/learnerr"
)

// Classifier is caret's knn3: the class probabilities at x are the
// proportions of the classes among the K training rows nearest to x in
// Euclidean distance on the columns as given (caret's knn3, like its
// knnreg, does not scale them, and neither does misslab).
//
// It reproduces caret 6.0.93's knn3/knn3Train (C routine knn3 with
// use.all = TRUE, predict(type = "prob")) exactly: the neighbours are
// those Regressor finds, by the same scan, so that
//   - among rows at equal distance the lower training index ranks first;
//   - every training row whose squared distance is within a relative
//     1e-4 of the K-th smallest and still in caret's buffer at the end
//     votes as well ("ties"), so K + e rows vote, e ≥ 0;
//   - the probability of class c is votes_c / (K + e), one float64
//     division, as caret computes it.
//
// Deliberate differences from caret: a training set with fewer than K
// rows is an error (learnerr.ErrInput) where caret warns and uses all
// rows; there is no limit of 999 neighbours and ties; a class absent
// from the training rows gets probability 0 in its own column, where
// caret's knn3 drops the column or fails on the mismatched names; the
// returned matrix always has one column per class 0..k−1.
type Classifier struct {
	// K ≥ 1 is the number of neighbours (setting "k"; default
	// DefaultK = 5, caret's).
	K int
}

// NewClassifier returns a Classifier with k neighbours; k must be at
// least 1 (learnerr.ErrSetting otherwise).
func NewClassifier(k int) (Classifier, error) {
	if k < 1 {
		return Classifier{}, fmt.Errorf("knn: k = %d must be at least 1: %w", k, learnerr.ErrSetting)
	}
	return Classifier{K: k}, nil
}

// ClassModel is a fitted Classifier: a copy of the training rows and
// their classes. It is immutable and safe for concurrent use.
type ClassModel struct {
	m      *Model
	cls    []int32
	nclass int
}

// FitClass stores a copy of X (n × p, finite) and of the class codes y
// (float64 values 0, 1, …, k−1) for k ≥ 2 classes. It never consumes
// rng (the method is deterministic). Errors wrap learnerr.ErrInput (an
// empty X, len(y) ≠ n, NaN or ±Inf, a code that is not an integer in
// [0, k), k < 2, n < K) or learnerr.ErrSetting (K < 1), or are the
// context's error.
func (c Classifier) FitClass(ctx context.Context, X *mat.Dense, y []float64, k int, rng *rand.Rand) (*ClassModel, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	cls, err := classCodes(y, k)
	if err != nil {
		return nil, err
	}
	m, err := Regressor{K: c.K}.Fit(ctx, X, y, rng)
	if err != nil {
		return nil, err
	}
	return &ClassModel{m: m, cls: cls, nclass: k}, nil
}

// classCodes checks that y holds integer codes in [0, k) and returns them.
func classCodes(y []float64, k int) ([]int32, error) {
	if k < 2 || k > math.MaxInt32 {
		return nil, fmt.Errorf("knn: %d classes (need at least 2): %w", k, learnerr.ErrInput)
	}
	cls := make([]int32, len(y))
	for i, v := range y {
		if v != math.Trunc(v) || v < 0 || v >= float64(k) {
			return nil, fmt.Errorf("knn: class code y[%d] = %v is not an integer in [0, %d): %w", i, v, k, learnerr.ErrInput)
		}
		cls[i] = int32(v)
	}
	return cls, nil
}

// K returns the number of neighbours.
func (m *ClassModel) K() int { return m.m.k }

// Classes returns the number of classes k.
func (m *ClassModel) Classes() int { return m.nclass }

// PredictProba returns the n × k matrix of class proportions among the
// neighbours of every row of X (see Classifier); each row sums to 1 up to
// rounding of the k divisions. Errors wrap learnerr.ErrInput (X without
// the training column count, NaN or ±Inf, overflowing distances), or are
// the context's error when ctx is cancelled.
func (m *ClassModel) PredictProba(ctx context.Context, X *mat.Dense) (*mat.Dense, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	q, nq, p, err := flatten(X, "prediction")
	if err != nil {
		return nil, err
	}
	if p != m.m.p {
		return nil, fmt.Errorf("knn: prediction matrix has %d columns, model was trained on %d: %w", p, m.m.p, learnerr.ErrInput)
	}
	out := mat.NewDense(nq, m.nclass, nil)
	s := newSearcher(m.m.k, m.m.n)
	votes := make([]int, m.nclass)
	for i := range nq {
		if i%256 == 255 {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
		}
		count, ok := s.votes(m.cls, s.find(m.m, q[i*p:(i+1)*p]), votes)
		if !ok {
			return nil, fmt.Errorf("knn: squared distances from prediction row %d overflow float64: %w", i, learnerr.ErrInput)
		}
		row := out.RawRowView(i)
		for c, v := range votes {
			row[c] = float64(v) / float64(count)
		}
	}
	return out, nil
}
