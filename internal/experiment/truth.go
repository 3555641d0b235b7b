package experiment

import (
	"math"

	"gonum.org/v1/gonum/mat"

	"github.com/misslab/misslab/internal/learn"
)

// dataset is one job's training and test sets, ready for every pipeline.
type dataset struct {
	train, test   *mat.Dense // NaN for NA
	trainY, testY []float64
	variance      float64 // the R² denominator (regression)
	classes       int     // k of a classification task (its targets are class codes 0..k−1), else 0
	key           string  // stream key of the fits: sim.Stream(seed, key, unit, "fit/"+pipeline)
	unit          int
	truth         *truth // nil: no entry with a known true value
}

// truth holds the true values behind NA entries, for scoring imputations.
type truth struct {
	train, test           *mat.Dense // true values; read only where known
	knownTrain, knownTest []bool     // row-major: the entry is NA in the data and its truth is known
	sd                    []float64  // per column: sd of its known training values (n−1); 0 skips the column
}

// naTruth returns the truth of simulated data: every NA entry of X is
// known from Full. nil when nothing is missing.
func naTruth(trX, trFull, teX, teFull *mat.Dense) *truth {
	kTr, nTr := naMask(trX)
	kTe, nTe := naMask(teX)
	if nTr+nTe == 0 {
		return nil
	}
	return &truth{train: trFull, test: teFull, knownTrain: kTr, knownTest: kTe, sd: columnSD(trFull, nil)}
}

// naMask marks the NaN entries of X, row-major, and counts them.
func naMask(X *mat.Dense) ([]bool, int) {
	n, d := X.Dims()
	m := make([]bool, n*d)
	c := 0
	for i := range n {
		for j, v := range X.RawRowView(i) {
			if math.IsNaN(v) {
				m[i*d+j] = true
				c++
			}
		}
	}
	return m, c
}

// columnSD returns the sample sd (n−1) of each column's non-NaN values
// among the columns where use is true (every column when use is nil); 0
// where fewer than two values exist.
func columnSD(X *mat.Dense, use []bool) []float64 {
	n, d := X.Dims()
	sd := make([]float64, d)
	for j := range d {
		if use != nil && !use[j] {
			continue
		}
		var sum, sq float64
		k := 0
		for i := range n {
			if v := X.At(i, j); !math.IsNaN(v) {
				sum += v
				k++
			}
		}
		if k < 2 {
			continue
		}
		mean := sum / float64(k)
		for i := range n {
			if v := X.At(i, j); !math.IsNaN(v) {
				sq += (v - mean) * (v - mean)
			}
		}
		sd[j] = math.Sqrt(sq / float64(k-1))
	}
	return sd
}

// score returns the standardised imputation RMSE of a fitted pipeline on
// the training and test sets (NaN where it does not apply).
func (t *truth) score(f *learn.Fitted, train, test *mat.Dense) (trRMSE, teRMSE float64, err error) {
	imTr, ok, err := f.Impute(train)
	if err != nil || !ok {
		return math.NaN(), math.NaN(), err
	}
	imTe, _, err := f.Impute(test)
	if err != nil {
		return math.NaN(), math.NaN(), err
	}
	return rmse(imTr, t.train, t.knownTrain, t.sd), rmse(imTe, t.test, t.knownTest, t.sd), nil
}

// rmse is √(mean over known entries of ((imputed − true)/sd_j)²), NaN
// when no known entry has a column with sd > 0.
func rmse(imputed, truth *mat.Dense, known []bool, sd []float64) float64 {
	n, d := imputed.Dims()
	var s float64
	k := 0
	for i := range n {
		for j := range d {
			if !known[i*d+j] || sd[j] == 0 {
				continue
			}
			e := (imputed.At(i, j) - truth.At(i, j)) / sd[j]
			s += e * e
			k++
		}
	}
	if k == 0 {
		return math.NaN()
	}
	return math.Sqrt(s / float64(k))
}
