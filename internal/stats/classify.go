package stats

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"sort"
)

// ClassScores are the scores of predicted class probabilities against the
// true classes of a test set, as the studies of prediction with missing
// values report them. A score that is undefined (an AUC when a class is
// absent from the test set) is NaN.
type ClassScores struct {
	// LogLoss is the mean of −log p̂(y_i | x_i), each probability clipped
	// to [1e−15, 1 − 1e−15] as scikit-learn 1.2's log_loss does (so a
	// confident mistake costs 34.5, not +Inf).
	LogLoss float64
	// Brier is the mean squared error of the probabilities: for two
	// classes (p̂(1|x) − y)² averaged over rows (scikit-learn's
	// brier_score_loss, in [0, 1]); for more, Σ_k (p̂(k|x) − 1{y = k})²
	// averaged over rows (Brier's original score, in [0, 2]).
	Brier float64
	// AUC is the area under the ROC curve: for two classes the
	// Mann–Whitney statistic of p̂(1|x) with ties counted ½ (pROC's auc,
	// scikit-learn's roc_auc_score); for more, the unweighted mean of each
	// class against the rest (scikit-learn's multi_class = "ovr",
	// average = "macro").
	AUC float64
	// AUCHandTill is Hand and Till (2001)'s multiclass AUC, the mean over
	// pairs of classes {i, j} of (A(i|j) + A(j|i))/2, A(i|j) the AUC of
	// p̂(i|x) separating class i from class j on their rows alone (pROC's
	// multiclass.roc); equal to AUC for two classes.
	AUCHandTill float64
	// Accuracy is the share of rows whose most probable class (the lowest
	// class index on a tie) is the true one.
	Accuracy float64
	// BalancedAccuracy is the mean over the classes present in the test
	// set of the share of their rows classified right.
	BalancedAccuracy float64
	// ECE is the expected calibration error of the predicted class (Guo et
	// al., 2017): rows binned by their top probability into 10 equal
	// intervals of [0, 1] (right-closed; the first also holds 0), then
	// Σ_b (n_b/n)·|accuracy_b − mean top probability_b|.
	ECE float64
	// Reliability holds the sums behind ECE, bin by bin (bin b holds the
	// top probabilities in (b/10, (b+1)/10], the first also 0): summed
	// over repetitions they draw a reliability diagram.
	Reliability [CalibrationBins]CalibrationBin
}

// CalibrationBins is the number of equal-width bins of [0, 1] of ECE and
// ClassScores.Reliability.
const CalibrationBins = 10

// CalibrationBin sums the rows whose top class probability falls in one
// bin: Count rows, Confidence the sum of their top probabilities,
// Correct those whose top class is the true one. Its accuracy is
// Correct/Count, its mean confidence Confidence/Count.
type CalibrationBin struct {
	Count, Correct int
	Confidence     float64
}

// logLossEps is the clipping of LogLoss.
const logLossEps = 1e-15

// ErrClassScores is wrapped by ScoreClasses' errors: inputs of the wrong
// shape or out of range.
var ErrClassScores = errors.New("stats: class scores")

// ScoreClasses scores the n × k class probabilities p (row-major: p[i*k+c]
// is p̂(c | x_i), each row summing to 1 within 1e-6, the rounding of a
// float32 softmax such as XGBoost's) of the true classes y
// (values 0..k−1), k ≥ 2. Errors wrap ErrClassScores.
func ScoreClasses(p []float64, k int, y []int) (ClassScores, error) {
	if err := checkClasses(p, k, y); err != nil {
		return ClassScores{}, err
	}
	s := ClassScores{LogLoss: logLoss(p, k, y), Brier: brier(p, k, y), Reliability: reliability(p, k, y)}
	s.ECE = ece(s.Reliability, len(y))
	s.Accuracy, s.BalancedAccuracy = accuracies(p, k, y)
	if k == 2 {
		s.AUC = aucColumn(p, k, 1, func(i int) int { return classSide(y[i], 1, 0) })
		s.AUCHandTill = s.AUC
		return s, nil
	}
	s.AUC, s.AUCHandTill = ovrAUC(p, k, y), handTill(p, k, y)
	return s, nil
}

// checkClasses checks the shapes and ranges of ScoreClasses' inputs.
func checkClasses(p []float64, k int, y []int) error {
	if k < 2 || len(y) == 0 || len(p) != len(y)*k {
		return fmt.Errorf("%w: %d probabilities for %d rows of %d classes", ErrClassScores, len(p), len(y), k)
	}
	for i, c := range y {
		if c < 0 || c >= k {
			return fmt.Errorf("%w: row %d has class %d, outside [0, %d)", ErrClassScores, i, c, k)
		}
		sum := 0.0
		for _, v := range p[i*k : (i+1)*k] {
			if !(v >= 0 && v <= 1) {
				return fmt.Errorf("%w: row %d has probability %v", ErrClassScores, i, v)
			}
			sum += v
		}
		if math.Abs(sum-1) > 1e-6 {
			return fmt.Errorf("%w: row %d's probabilities sum to %v", ErrClassScores, i, sum)
		}
	}
	return nil
}

func logLoss(p []float64, k int, y []int) float64 {
	s := 0.0
	for i, c := range y {
		s -= math.Log(min(max(p[i*k+c], logLossEps), 1-logLossEps))
	}
	return s / float64(len(y))
}

func brier(p []float64, k int, y []int) float64 {
	s := 0.0
	for i, c := range y {
		if k == 2 {
			d := p[i*k+1] - float64(c)
			s += d * d
			continue
		}
		for j := range k {
			d := p[i*k+j]
			if j == c {
				d--
			}
			s += d * d
		}
	}
	return s / float64(len(y))
}

// top returns the most probable class of row i (the lowest on a tie) and
// its probability.
func top(p []float64, k, i int) (int, float64) {
	row := p[i*k : (i+1)*k]
	c := 0
	for j, v := range row {
		if v > row[c] {
			c = j
		}
	}
	return c, row[c]
}

func accuracies(p []float64, k int, y []int) (acc, balanced float64) {
	right, n := make([]float64, k), make([]float64, k)
	hits := 0.0
	for i, c := range y {
		n[c]++
		if pred, _ := top(p, k, i); pred == c {
			right[c]++
			hits++
		}
	}
	present := 0.0
	for c := range k {
		if n[c] > 0 {
			balanced += right[c] / n[c]
			present++
		}
	}
	return hits / float64(len(y)), balanced / present
}

// reliability bins the rows of p by their top probability q into
// CalibrationBins equal intervals of [0, 1] (right-closed; the first
// also holds 0).
func reliability(p []float64, k int, y []int) [CalibrationBins]CalibrationBin {
	var bins [CalibrationBins]CalibrationBin
	for i, c := range y {
		pred, q := top(p, k, i)
		b := &bins[min(max(int(math.Ceil(q*CalibrationBins))-1, 0), CalibrationBins-1)]
		b.Count++
		b.Confidence += q
		if pred == c {
			b.Correct++
		}
	}
	return bins
}

// ece is Σ_b |correct_b − confidence_b| / n over the bins of n rows.
func ece(bins [CalibrationBins]CalibrationBin, n int) float64 {
	e := 0.0
	for _, b := range bins {
		if b.Count > 0 {
			e += math.Abs(float64(b.Correct)-b.Confidence) / float64(n)
		}
	}
	return e
}

// classSide is 1 for a row of class pos, 0 for one of class neg, −1 for
// any other (left out).
func classSide(c, pos, neg int) int {
	switch c {
	case pos:
		return 1
	case neg:
		return 0
	}
	return -1
}

// aucColumn is the Mann–Whitney AUC of column col of p as a score of the
// rows side(i) = 1 against those with side(i) = 0 (rows at −1 are left
// out), ties counted ½ through mid-ranks; NaN when a side is empty.
func aucColumn(p []float64, k, col int, side func(i int) int) float64 {
	type obs struct {
		v   float64
		pos bool
	}
	var o []obs
	for i := range len(p) / k {
		if s := side(i); s >= 0 {
			o = append(o, obs{p[i*k+col], s == 1})
		}
	}
	sort.SliceStable(o, func(a, b int) bool { return o[a].v < o[b].v })
	var rankSum, nPos float64
	for lo := 0; lo < len(o); {
		hi := lo
		for hi < len(o) && o[hi].v == o[lo].v {
			hi++
		}
		mid := float64(lo+hi+1) / 2 // mean of the 1-based ranks lo+1..hi
		for _, x := range o[lo:hi] {
			if x.pos {
				rankSum += mid
				nPos++
			}
		}
		lo = hi
	}
	nNeg := float64(len(o)) - nPos
	if nPos == 0 || nNeg == 0 {
		return math.NaN()
	}
	return (rankSum - nPos*(nPos+1)/2) / (nPos * nNeg)
}

// ovrAUC is the macro mean over the classes present of each class's AUC
// against the rest; NaN when a class is absent (as scikit-learn, which
// refuses such data).
func ovrAUC(p []float64, k int, y []int) float64 {
	s := 0.0
	for c := range k {
		s += aucColumn(p, k, c, func(i int) int {
			if y[i] == c {
				return 1
			}
			return 0
		})
	}
	return s / float64(k)
}

// handTill is Hand and Till's M over the pairs of classes present in y
// (pROC's multiclass.roc leaves out classes without rows).
func handTill(p []float64, k int, y []int) float64 {
	var present []int
	for c := range k {
		if slices.Contains(y, c) {
			present = append(present, c)
		}
	}
	if len(present) < 2 {
		return math.NaN()
	}
	s, pairs := 0.0, 0.0
	for a, i := range present {
		for _, j := range present[a+1:] {
			aij := aucColumn(p, k, i, func(r int) int { return classSide(y[r], i, j) })
			aji := aucColumn(p, k, j, func(r int) int { return classSide(y[r], j, i) })
			s += (aij + aji) / 2
			pairs++
		}
	}
	return s / pairs
}
