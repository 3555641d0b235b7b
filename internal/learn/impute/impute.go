package impute

import (
	"context"
	"fmt"
	"math"
	"slices"

	"gonum.org/v1/gonum/mat"

	"github.com/misslab/misslab/internal/learn/learnerr"
)

// Imputer learns a transform from a training matrix (n × d, NaN = NA).
// Fit never sees the target: imputation parameters depend on the
// training covariates only, as in the paper's Section 3.1.
type Imputer interface {
	// Fit learns the transform's parameters from X, which it does not
	// modify or retain.
	Fit(ctx context.Context, X *mat.Dense) (Transformer, error)
}

// Transformer is a fitted transform. Transform returns a new matrix and
// never modifies X; it fails with an error wrapping learnerr.ErrInput
// when X does not have the training column count. A Transformer is
// immutable and safe for concurrent use.
type Transformer interface {
	Transform(X *mat.Dense) (*mat.Dense, error)
}

// Mean imputes each column's training mean over its observed entries.
type Mean struct{}

// Median imputes each column's training median over its observed
// entries (the average of the two middle values for an even count, as
// R's median).
type Median struct{}

// Constant imputes Value in every column (the paper's Theorem 2 setting).
type Constant struct{ Value float64 }

// OOR imputes, in column j, a constant out of the range of the training
// column's observed values. The paper specifies no more than that ("a
// constant out of the range of the training values"); the choice decides
// how OOR fares with distance-based learners (SVM, KNN), so two
// conventions are offered, min_j and max_j being the training column's
// observed extremes:
//
// The paper's constant (the zero value, Scaled false):
//
//	v_j = max(OORFloor, max_j + 3·(max_j − min_j + 1))
//
// (v_j = OORFloor for a column with no observed entry). On the paper's
// data this is exactly the 999999 its code used, so OOR with SVM and KNN
// reproduces the paper's (poor) behaviour rather than rescuing it; the
// second term keeps v_j above the training range for data whose values
// approach the floor, and above any test value that is not several
// training ranges beyond the training maximum.
//
// The scaled rule (Scaled true, pipeline setting oor_k = K ≥ 0):
//
//	v_j = max_j + K·s_j,  s_j = max_j − min_j, or max(1, |max_j|) when max_j = min_j
//
// with no floor: the fill sits K training ranges above the maximum (a
// constant column, which has no range, uses its magnitude, at least 1, so
// that K > 0 still leaves the range). A column with no observed entry
// gets v_j = K, as if max_j = min_j = 0. K = 0 imputes the training
// maximum itself: at the edge of the range, not beyond it.
type OOR struct {
	// Scaled selects the scaled rule with factor K; false is the paper's
	// constant and ignores K.
	Scaled bool
	// K ≥ 0 (finite) is the number of training ranges above the maximum.
	K float64
}

// OORFloor is the smallest out-of-range value OOR imputes: the constant
// 999999 of the paper's code.
const OORFloor = 999999.0

// Fill is a fitted column-wise imputer: NA in column j becomes Values[j].
type Fill struct {
	// Values holds one imputation value per training column.
	Values []float64
	// Empty lists (ascending) the columns with no observed training entry.
	// Mean and Median impute 0 there (there is no statistic to use); OOR
	// imputes OORFloor (scaled rule: K); Constant its value. Callers may
	// report them.
	Empty []int
}

// Fit computes the training column means.
func (Mean) Fit(ctx context.Context, X *mat.Dense) (Transformer, error) {
	return fitColumns(ctx, X, func(obs []float64) float64 {
		s := 0.0
		for _, v := range obs {
			s += v
		}
		return s / float64(len(obs))
	}, 0)
}

// Fit computes the training column medians.
func (Median) Fit(ctx context.Context, X *mat.Dense) (Transformer, error) {
	return fitColumns(ctx, X, median, 0)
}

// Fit records the constant for every column; it fails only on an empty X.
func (c Constant) Fit(ctx context.Context, X *mat.Dense) (Transformer, error) {
	return fitColumns(ctx, X, func([]float64) float64 { return c.Value }, c.Value)
}

// Fit computes each column's out-of-range value (see OOR). A scaled
// rule with K negative or not finite is an error wrapping
// learnerr.ErrSetting.
func (o OOR) Fit(ctx context.Context, X *mat.Dense) (Transformer, error) {
	if !o.Scaled {
		return fitColumns(ctx, X, func(obs []float64) float64 {
			lo, hi := minMax(obs)
			return oorHigh(lo, hi)
		}, OORFloor)
	}
	if !(o.K >= 0) || math.IsInf(o.K, 1) {
		return nil, fmt.Errorf("impute: OOR factor K = %v, want a finite value ≥ 0: %w", o.K, learnerr.ErrSetting)
	}
	return fitColumns(ctx, X, func(obs []float64) float64 {
		lo, hi := minMax(obs)
		return oorScaled(lo, hi, o.K)
	}, oorScaled(0, 0, o.K))
}

// oorScaled is the scaled OOR rule for a column with observed range
// [lo, hi]: hi + k·(hi − lo), or hi + k·max(1, |hi|) when hi = lo.
func oorScaled(lo, hi, k float64) float64 {
	s := hi - lo
	if s == 0 {
		s = math.Max(1, math.Abs(hi))
	}
	return hi + k*s
}

// oorHigh is the OOR rule for a column with observed range [lo, hi].
func oorHigh(lo, hi float64) float64 {
	return math.Max(OORFloor, hi+3*(hi-lo+1))
}

// oorLow mirrors oorHigh below the range: min(−OORFloor, lo − 3·(hi−lo+1)).
func oorLow(lo, hi float64) float64 {
	return math.Min(-OORFloor, lo-3*(hi-lo+1))
}

// Transform replaces every NA of column j by Values[j].
func (f *Fill) Transform(X *mat.Dense) (*mat.Dense, error) {
	if err := checkCols(X, len(f.Values)); err != nil {
		return nil, err
	}
	out := mat.DenseCopyOf(X)
	n, d := out.Dims()
	for i := range n {
		row := out.RawRowView(i)
		for j := range d {
			if math.IsNaN(row[j]) {
				row[j] = f.Values[j]
			}
		}
	}
	return out, nil
}

// fitColumns applies stat to the observed entries of each column of X;
// columns without observed entries get empty and are listed in Fill.Empty.
func fitColumns(ctx context.Context, X *mat.Dense, stat func(obs []float64) float64, empty float64) (*Fill, error) {
	if err := checkTrain(ctx, X); err != nil {
		return nil, err
	}
	n, d := X.Dims()
	f := &Fill{Values: make([]float64, d)}
	obs := make([]float64, 0, n)
	for j := range d {
		obs = observed(X, j, obs[:0])
		if len(obs) == 0 {
			f.Values[j] = empty
			f.Empty = append(f.Empty, j)
			continue
		}
		f.Values[j] = stat(obs)
	}
	return f, nil
}

// observed appends the non-NaN entries of column j of X to dst.
func observed(X *mat.Dense, j int, dst []float64) []float64 {
	raw := X.RawMatrix()
	for i := range raw.Rows {
		if v := raw.Data[i*raw.Stride+j]; !math.IsNaN(v) {
			dst = append(dst, v)
		}
	}
	return dst
}

// median sorts obs in place and returns its median.
func median(obs []float64) float64 {
	slices.Sort(obs)
	k := len(obs) / 2
	if len(obs)%2 == 1 {
		return obs[k]
	}
	return (obs[k-1] + obs[k]) / 2
}

func minMax(obs []float64) (lo, hi float64) {
	lo, hi = obs[0], obs[0]
	for _, v := range obs[1:] {
		lo, hi = math.Min(lo, v), math.Max(hi, v)
	}
	return lo, hi
}

// checkTrain rejects a cancelled context and an empty training matrix.
func checkTrain(ctx context.Context, X *mat.Dense) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if X == nil || X.IsEmpty() {
		return fmt.Errorf("impute: the training matrix has no rows or columns: %w", learnerr.ErrInput)
	}
	return nil
}

// checkCols rejects a matrix without exactly d columns.
func checkCols(X *mat.Dense, d int) error {
	if X == nil || X.IsEmpty() {
		return fmt.Errorf("impute: nil or empty matrix, want %d columns: %w", d, learnerr.ErrInput)
	}
	if _, c := X.Dims(); c != d {
		return fmt.Errorf("impute: matrix has %d columns, the transform was fitted on %d: %w", c, d, learnerr.ErrInput)
	}
	return nil
}

// missingCols returns, ascending, the columns of X with at least one NaN.
func missingCols(X *mat.Dense) []int {
	n, d := X.Dims()
	seen := make([]bool, d)
	for i := range n {
		for j, v := range X.RawRowView(i) {
			if math.IsNaN(v) {
				seen[j] = true
			}
		}
	}
	var cols []int
	for j, s := range seen {
		if s {
			cols = append(cols, j)
		}
	}
	return cols
}
