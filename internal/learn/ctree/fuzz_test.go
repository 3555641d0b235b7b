package ctree

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/misslab/misslab/internal/learn/learnerr"
)

// FuzzFit fits trees on arbitrary small data (ties, NaN, occasional ±Inf
// and NaN targets) under arbitrary valid controls: Fit either fails with
// one of the package's sentinel errors or returns a tree whose node sizes
// add up and whose predictions on the training set (and on an all-NA
// row) are finite and within the range of y. Run with
// go test -fuzz FuzzFit -fuzztime 30s ./internal/learn/ctree.
func FuzzFit(f *testing.F) {
	f.Add([]byte{12, 3, 7, 1, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16})
	f.Add([]byte{40, 2, 0, 0, 0, 0, 9, 9, 9, 9, 1, 2, 3, 0, 0, 0, 0})
	f.Add([]byte{5, 1, 255, 3, 2, 1, 1, 1, 1, 1, 0, 0})
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) < 4 {
			return
		}
		n, d := 1+int(data[0])%60, 1+int(data[1])%5
		p := fuzzParams(data[2], data[3])
		vals := data[4:]
		next := func(k int) byte {
			if len(vals) == 0 {
				return byte(k * 37)
			}
			return vals[k%len(vals)]
		}
		X := mat.NewDense(n, d, nil)
		y := make([]float64, n)
		k := 0
		for i := range n {
			for j := range d {
				X.Set(i, j, fuzzValue(next(k)))
				k++
			}
			y[i] = float64(int(next(k))%17) - 8
			if next(k) == 255 {
				y[i] = math.NaN()
			}
			k++
		}
		tr, err := Fit(context.Background(), X, y, p, rand.New(rand.NewPCG(1, 1)))
		if err != nil {
			for _, s := range []error{learnerr.ErrSetting, learnerr.ErrInput} {
				if errors.Is(err, s) {
					return
				}
			}
			t.Fatalf("unexpected error %v", err)
		}
		checkFuzzTree(t, tr, X, y)
	})
}

// fuzzParams derives valid controls from two bytes.
func fuzzParams(a, b byte) Params {
	return Params{
		TestType:     TestType(a & 1),
		Missing:      Missing(a >> 1 & 1),
		MinCriterion: []float64{0, 0.5, 0.95, 1}[a>>2&3],
		MinBucket:    1 + int(a>>4&3),
		MinSplit:     int(b & 7),
		MaxDepth:     int(b >> 3 & 3),
		MaxSurrogate: int(b >> 5 & 3),
		SplitTry:     1 + int(b>>7),
		MinProb:      0.01,
	}
}

// fuzzValue maps a byte to a feature value with many ties: NaN for 0–39,
// ±Inf for 254–255, otherwise one of 25 levels.
func fuzzValue(c byte) float64 {
	switch {
	case c < 40:
		return math.NaN()
	case c == 254:
		return math.Inf(1)
	case c == 255:
		return math.Inf(-1)
	}
	return float64(int(c)%25) / 4
}

func checkFuzzTree(t *testing.T, tr *Model, X *mat.Dense, y []float64) {
	t.Helper()
	nodes := tr.Nodes()
	if nodes[0].N != len(y) {
		t.Fatalf("root holds %d of %d rows", nodes[0].N, len(y))
	}
	for _, nd := range nodes {
		if !nd.Leaf && nodes[nd.Left].N+nodes[nd.Right].N != nd.N {
			t.Fatalf("node %d: %d + %d ≠ %d", nd.ID, nodes[nd.Left].N, nodes[nd.Right].N, nd.N)
		}
	}
	lo, hi := slices.Min(y), slices.Max(y)
	_, d := X.Dims()
	na := mat.NewDense(1, d, nil)
	for j := range d {
		na.Set(0, j, math.NaN())
	}
	for _, Xt := range []*mat.Dense{X, na} {
		pred, err := tr.Predict(context.Background(), Xt)
		if err != nil {
			t.Fatalf("Predict: %v", err)
		}
		for i, v := range pred {
			if !(v >= lo-1e-9 && v <= hi+1e-9) {
				t.Fatalf("prediction %d = %v outside [%v, %v]", i, v, lo, hi)
			}
		}
	}
}
