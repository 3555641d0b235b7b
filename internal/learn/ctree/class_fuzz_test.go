package ctree

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/misslab/misslab/internal/learn/learnerr"
)

// FuzzFitClass fits classification trees on arbitrary small data (ties,
// NaN, occasional ±Inf, k from 2 to 5, occasional bad codes) under
// arbitrary valid controls: FitClass either fails with one of the
// package's sentinel errors or returns a tree whose node class counts add
// up and whose probabilities on the training set and on an all-NA row
// are k shares summing to 1. Run with
// go test -fuzz FuzzFitClass -fuzztime 30s ./internal/learn/ctree.
func FuzzFitClass(f *testing.F) {
	f.Add([]byte{12, 3, 7, 1, 2, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16})
	f.Add([]byte{40, 2, 0, 0, 1, 0, 9, 9, 9, 9, 1, 2, 3, 0, 0, 0, 0})
	f.Add([]byte{50, 4, 131, 9, 3, 60, 70, 80, 90, 100, 110, 120, 130, 140, 150, 160, 170})
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) < 5 {
			return
		}
		n, d, k := 1+int(data[0])%60, 1+int(data[1])%5, 2+int(data[4])%4
		p := fuzzParams(data[2], data[3])
		X, y := fuzzClassData(n, d, k, data[5:])
		m, err := FitClass(context.Background(), X, y, k, p, rand.New(rand.NewPCG(1, 1)))
		if err != nil {
			if !errors.Is(err, learnerr.ErrSetting) && !errors.Is(err, learnerr.ErrInput) {
				t.Fatalf("unexpected error %v", err)
			}
			return
		}
		checkFuzzClassTree(t, m, X, len(y))
	})
}

// fuzzClassData builds n × d features (fuzzValue) and class codes from
// vals; a byte of 255 makes the code k, which FitClass must refuse.
func fuzzClassData(n, d, k int, vals []byte) (*mat.Dense, []float64) {
	next := func(i int) byte {
		if len(vals) == 0 {
			return byte(i * 37)
		}
		return vals[i%len(vals)]
	}
	X := mat.NewDense(n, d, nil)
	y := make([]float64, n)
	i := 0
	for r := range n {
		for j := range d {
			X.Set(r, j, fuzzValue(next(i)))
			i++
		}
		y[r] = float64(int(next(i)) % k)
		if next(i) == 255 {
			y[r] = float64(k)
		}
	}
	return X, y
}

func checkFuzzClassTree(t *testing.T, m *ClassModel, X *mat.Dense, n int) {
	t.Helper()
	nodes := m.Nodes()
	for _, nd := range nodes {
		sum := 0.0
		for _, c := range nd.Counts {
			sum += c
		}
		if sum != float64(nd.N) || (!nd.Leaf && nodes[nd.Left].N+nodes[nd.Right].N != nd.N) {
			t.Fatalf("node %d: %d rows, class counts %v", nd.ID, nd.N, nd.Counts)
		}
	}
	if nodes[0].N != n {
		t.Fatalf("root holds %d of %d rows", nodes[0].N, n)
	}
	_, d := X.Dims()
	na := mat.NewDense(1, d, nil)
	na.Apply(func(int, int, float64) float64 { return math.NaN() }, na)
	for _, Xt := range []*mat.Dense{X, na} {
		P, err := m.PredictProba(context.Background(), Xt)
		if err != nil {
			t.Fatalf("PredictProba: %v", err)
		}
		for i := range P.RawMatrix().Rows {
			row := P.RawRowView(i)
			if s := mat.Sum(mat.NewVecDense(len(row), row)); len(row) != m.NumClasses() || math.Abs(s-1) > 1e-12 {
				t.Fatalf("row %d: probabilities %v", i, row)
			}
		}
	}
}
