package impute

import (
	"context"
	"math"

	"gonum.org/v1/gonum/mat"
)

// Mask records which training columns had missing entries; its fitted
// transform appends their indicators M_j (1 = NA, 0 = observed).
//
// Unlike the paper's code, a mask column is kept for every incomplete
// training column even when all columns are incomplete (that code then
// dropped every indicator), and indicators are coded 0/1 rather than
// the 1/2 of R factor codes (equivalent for trees, not for distances).
// A test NA in a column complete in training is imputed by the
// pipeline's imputer but gets no indicator: the learner has no feature
// for it.
type Mask struct{}

// MaskFit is a fitted Mask.
type MaskFit struct {
	// D is the training column count.
	D int
	// Cols lists, ascending, the training columns with at least one NA.
	Cols []int
}

// Fit records the incomplete columns of X.
func (Mask) Fit(ctx context.Context, X *mat.Dense) (Transformer, error) {
	return FitMask(ctx, X)
}

// FitMask is Mask.Fit with the concrete result type.
func FitMask(ctx context.Context, X *mat.Dense) (*MaskFit, error) {
	if err := checkTrain(ctx, X); err != nil {
		return nil, err
	}
	_, d := X.Dims()
	return &MaskFit{D: d, Cols: missingCols(X)}, nil
}

// Indicators returns the n × len(Cols) matrix of indicators of X, or
// nil when no training column was incomplete.
func (m *MaskFit) Indicators(X *mat.Dense) (*mat.Dense, error) {
	if err := checkCols(X, m.D); err != nil {
		return nil, err
	}
	if len(m.Cols) == 0 {
		return nil, nil
	}
	n, _ := X.Dims()
	out := mat.NewDense(n, len(m.Cols), nil)
	for i := range n {
		row, dst := X.RawRowView(i), out.RawRowView(i)
		for k, j := range m.Cols {
			if math.IsNaN(row[j]) {
				dst[k] = 1
			}
		}
	}
	return out, nil
}

// Transform returns [X | M]: X unchanged (NaN kept) followed by the
// indicators of the training-incomplete columns.
func (m *MaskFit) Transform(X *mat.Dense) (*mat.Dense, error) {
	ind, err := m.Indicators(X)
	if err != nil {
		return nil, err
	}
	return HStack(X, ind), nil
}

// HStack returns [A | B] as a new matrix; a nil B returns a copy of A.
// A and B must have the same number of rows.
func HStack(A, B *mat.Dense) *mat.Dense {
	if B == nil {
		return mat.DenseCopyOf(A)
	}
	n, a := A.Dims()
	_, b := B.Dims()
	out := mat.NewDense(n, a+b, nil)
	for i := range n {
		dst := out.RawRowView(i)
		copy(dst, A.RawRowView(i))
		copy(dst[a:], B.RawRowView(i))
	}
	return out
}

// MIAInf is MIA as preprocessing (the paper's Remark "Implementation"):
// each column incomplete in training is kept with its NA replaced by a
// low out-of-range value and duplicated at the end with its NA replaced
// by a high one, so that a split on the low copy sends NA left and a
// split on the high copy sends NA right. The values are OOR's rule and
// its mirror, min(−999999, min_j − 3·(max_j − min_j + 1)), instead of the
// paper code's ±1e100: the order, which is all a tree uses, is the same,
// and the values stay finite in float32. Unlike the paper's code, which
// duplicated every column, complete columns are not duplicated (their
// copy would be identical and would double their chance in a random
// forest's feature sampling). A test NA in a column complete in training
// gets the low value, i.e. goes left at every split, as XGBoost's default
// direction for a feature without missing values in training.
type MIAInf struct{}

// MIAFit is a fitted MIAInf.
type MIAFit struct {
	// Cols lists, ascending, the training columns with at least one NA;
	// their high copies are appended in this order.
	Cols []int
	// Low and High hold one fill value per training column.
	Low, High []float64
}

// Fit computes the per-column low and high fill values.
func (MIAInf) Fit(ctx context.Context, X *mat.Dense) (Transformer, error) {
	if err := checkTrain(ctx, X); err != nil {
		return nil, err
	}
	n, d := X.Dims()
	f := &MIAFit{Cols: missingCols(X), Low: make([]float64, d), High: make([]float64, d)}
	obs := make([]float64, 0, n)
	for j := range d {
		obs = observed(X, j, obs[:0])
		f.Low[j], f.High[j] = -OORFloor, OORFloor
		if len(obs) > 0 {
			lo, hi := minMax(obs)
			f.Low[j], f.High[j] = oorLow(lo, hi), oorHigh(lo, hi)
		}
	}
	return f, nil
}

// Transform returns the d low-filled columns followed by the high-filled
// copies of Cols; the result has no NaN.
func (f *MIAFit) Transform(X *mat.Dense) (*mat.Dense, error) {
	d := len(f.Low)
	if err := checkCols(X, d); err != nil {
		return nil, err
	}
	n, _ := X.Dims()
	out := mat.NewDense(n, d+len(f.Cols), nil)
	for i := range n {
		src, dst := X.RawRowView(i), out.RawRowView(i)
		for j, v := range src {
			if math.IsNaN(v) {
				v = f.Low[j]
			}
			dst[j] = v
		}
		for k, j := range f.Cols {
			v := src[j]
			if math.IsNaN(v) {
				v = f.High[j]
			}
			dst[d+k] = v
		}
	}
	return out, nil
}

// Features returns the number of columns Transform produces.
func (f *MIAFit) Features() int { return len(f.Low) + len(f.Cols) }
