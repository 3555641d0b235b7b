package svm

import (
	"context"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// TestClassVectorMatchesGo fits and predicts a three-class problem with
// the AVX2 loops and again with the Go loops only: the decision values
// and probabilities must be bit-identical (the C-SVC dual runs through
// the same vector loops as the SVR dual, with the labels as signs).
func TestClassVectorMatchesGo(t *testing.T) {
	if !vector {
		t.Skip("no vector loops on this processor: only the Go loops run")
	}
	r := rand.New(rand.NewPCG(3, 4))
	n, p := 301, 5
	X := mat.NewDense(n, p, nil)
	y := make([]float64, n)
	for i := range n {
		for j := range p {
			X.Set(i, j, r.NormFloat64())
		}
		y[i] = float64(r.IntN(3))
		X.Set(i, 0, X.At(i, 0)+y[i])
	}
	run := func() (dec, prob *mat.Dense) {
		m, err := Classifier{}.FitClass(context.Background(), X, y, 3, rand.New(rand.NewPCG(5, 6)))
		if err != nil {
			t.Fatal(err)
		}
		dec, err = m.Decision(context.Background(), X)
		if err != nil {
			t.Fatal(err)
		}
		prob, err = m.PredictProba(context.Background(), X)
		if err != nil {
			t.Fatal(err)
		}
		return dec, prob
	}
	decVec, probVec := run()
	vector = false
	defer func() { vector = true }()
	decGo, probGo := run()
	if !mat.Equal(decVec, decGo) || !mat.Equal(probVec, probGo) {
		t.Error("the vector loops and the Go loops give different classifiers")
	}
}
