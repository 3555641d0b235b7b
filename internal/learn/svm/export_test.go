package svm

import (
	"context"

	"gonum.org/v1/gonum/mat"
)

// FitClassDraws is FitClass with the shuffles' uniform draws taken from
// u in order instead of rng.Float64(); it also returns how many it took
// and fails the fit (ok = false) when u runs out.
func FitClassDraws(c Classifier, ctx context.Context, X *mat.Dense, y []float64, k int, u []float64) (m *ClassModel, used int, ok bool, err error) {
	ok = true
	m, err = c.fitClass(ctx, X, y, k, func() float64 {
		if used == len(u) {
			ok = false
			return 0
		}
		used++
		return u[used-1]
	})
	return m, used, ok, err
}

// SigmoidTrain is sigmoidTrain.
func SigmoidTrain(dec []float64, labels []bool) (a, b float64) { return sigmoidTrain(dec, labels) }

// PairProba is svm_predict_probability from one row's decision values
// dec for nc classes in libsvm's pair order, with each pair's sigmoid
// (probA, probB): the probabilities in libsvm's class order.
func PairProba(dec, probA, probB []float64, nc int) []float64 {
	m := &ClassModel{labels: make([]int, nc)}
	for a := range nc {
		for b := a + 1; b < nc; b++ {
			q := len(m.pairs)
			m.pairs = append(m.pairs, pairModel{a: a, b: b, probA: probA[q], probB: probB[q]})
		}
	}
	return m.proba(dec, make([]float64, nc*nc))
}
