package boost

import (
	"context"
	"math"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// TestScreeningIsExactWeighted is TestScreeningIsExact for the weighted
// growth of FitClass: on 24 data sets with heavy ties, NaN, two to four
// classes, labels from pure noise to separable and assorted λ (0
// included), α, min_child_weight and η, every tree grown with screening
// equals the tree grown by evaluating every candidate exactly.
func TestScreeningIsExactWeighted(t *testing.T) {
	rng := newRNG(29)
	for c := range 24 {
		n, d, k := 20+rng.IntN(200), 1+rng.IntN(5), 2+rng.IntN(3)
		signal := []float64{0, 1, 4, 50}[rng.IntN(4)]
		X := mat.NewDense(n, d, nil)
		y := make([]float64, n)
		for i := range n {
			s := 0.0
			for j := range d {
				v := math.Round(rng.NormFloat64()*float64(1+c%4)) / float64(1+c%3)
				s += v
				if j%2 == 0 && rng.Float64() < 0.25 {
					v = math.NaN()
				}
				X.Set(i, j, v)
			}
			z := signal*s + rng.NormFloat64()
			y[i] = float64(min(k-1, max(0, int(math.Floor(z/3))+k/2)))
		}
		p := DefaultParams()
		p.Rounds, p.MaxDepth = 4, 1+rng.IntN(5)
		p.Lambda = []float64{0, 0.5, 1, 3}[rng.IntN(4)]
		p.Alpha = []float64{0, 0, 0.1, 1}[rng.IntN(4)]
		p.MinChildWeight = []float64{0, 0.1, 0.5, 2}[rng.IntN(4)]
		p.Eta = []float64{0.3, 1}[rng.IntN(2)]
		ds, err := newDataset(X, y)
		if err != nil {
			t.Fatal(err)
		}
		var trees [2][]tree
		for i, ex := range []bool{false, true} {
			keep := func(t *tree) { trees[i] = append(trees[i], *t) }
			if _, err := fitClass(context.Background(), ds, k, 0, p, fitOptions{keep: keep, exhaustive: ex}); err != nil {
				t.Fatal(err)
			}
		}
		for r := range trees[0] {
			if err := equalTrees(&trees[0][r], &trees[1][r]); err != nil {
				t.Fatalf("data set %d (n=%d d=%d k=%d %+v), tree %d: %v", c, n, d, k, p, r, err)
			}
		}
	}
}
