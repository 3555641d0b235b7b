package boost

import (
	"fmt"
	"math"

	"github.com/misslab/misslab/internal/learn/learnerr"
)

// The classification objectives of XGBoost 1.7.4 (src/objective/
// regression_loss.h, multiclass_obj.cu, src/common/math.h), in float32
// as XGBoost computes them, with glibc's expf (see expf).

// hessFloor is the smallest hessian XGBoost lets either loss give a row.
const hessFloor float32 = 1e-16

// sigmoid is XGBoost's common::Sigmoid: 1/(1 + e^−x + 1e-16) in float32,
// the exponent capped at 88.7 so that it cannot overflow.
func sigmoid(x float32) float32 {
	d := expf(min(-x, 88.7)) + 1
	d += 1e-16
	return 1 / d
}

// logisticGrad sets the binary:logistic gradient pair of every row from
// its margin and label (0 or 1): p − y and max(p(1 − p), 1e-16) with
// p = sigmoid(margin).
func logisticGrad(margin, y, grad, hess []float32) {
	for i, m := range margin {
		p := sigmoid(m)
		grad[i] = p - y[i]
		hess[i] = max(p*(1-p), hessFloor)
	}
}

// softmaxGrad sets the multi:softprob gradient pairs of the rows whose
// margins are margin (row-major, k per row) and labels y (class codes):
// grad[c·n + i], hess[c·n + i] for class c of row i, that is each
// class's gradients contiguous, ready for its tree. With p_c the softmax
// probability, the gradient is p_c − [y = c] and the hessian
// max(2p_c(1 − p_c), 1e-16). As in XGBoost the maximum subtracted before
// exponentiating starts from the smallest positive normal float32
// rather than from the first margin, the exponentials are summed in
// float64 and the sum rounded to float32 before dividing.
func softmaxGrad(margin, y []float32, k int, grad, hess []float32) {
	n := len(y)
	for i := range n {
		row := margin[i*k : (i+1)*k]
		wmax := float32(0x1p-126)
		for _, m := range row {
			wmax = max32(m, wmax)
		}
		var wsum float64
		for _, m := range row {
			wsum += float64(expf(m - wmax))
		}
		label := y[i]
		for c, m := range row {
			p := expf(m-wmax) / float32(wsum)
			hess[c*n+i] = max(2*p*(1-p), hessFloor)
			if label == float32(c) {
				p -= 1
			}
			grad[c*n+i] = p
		}
	}
}

// softmax replaces the margins of one row by their probabilities as
// XGBoost's predictor does (common::Softmax): the maximum starts from
// the first margin, exponentials are summed in float64 and each is
// divided by the float32-rounded sum.
func softmax(row []float32) {
	wmax := row[0]
	for _, m := range row[1:] {
		wmax = max32(m, wmax)
	}
	var wsum float64
	for i, m := range row {
		row[i] = expf(m - wmax)
		wsum += float64(row[i])
	}
	for i := range row {
		row[i] /= float32(wsum)
	}
}

// max32 is C's fmaxf: the larger of a and b, the other if one is NaN.
func max32(a, b float32) float32 {
	switch {
	case a != a:
		return b
	case b != b:
		return a
	case a > b:
		return a
	}
	return b
}

// baseMargin returns the initial margin of every class's trees from
// Params.BaseScore: for k = 2, binary:logistic reads it as a probability
// b ∈ (0, 1) and starts from its log-odds −log(1/b − 1) (in float32,
// as XGBoost's ProbToMargin); for k > 2, multi:softprob starts every
// class from b itself.
func baseMargin(b float64, k int) (float32, error) {
	b32 := float32(b)
	if k > 2 {
		return b32, nil
	}
	if !(b32 > 0 && b32 < 1) {
		return 0, fmt.Errorf("boost: base_score = %v, want a probability in (0, 1) for binary:logistic: %w", b, learnerr.ErrSetting)
	}
	return -logf(1/b32 - 1), nil
}

// logf is the float32 natural logarithm, correctly rounded. glibc's
// logf, which XGBoost calls, differs from it by one ulp on about 2·10⁻⁴
// of all inputs; it is used only for the base margin, which is exact
// (0) at the default base_score 0.5.
func logf(x float32) float32 {
	return float32(math.Log(float64(x)))
}
